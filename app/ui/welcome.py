"""The first start's guide, in the answer area: add a folder, is Ollama there, a first question.

Until the first question, the answer pane says what to do next instead of showing nothing:
a folder to add (or drop), whether Ollama answers at the configured address and has a chat
model (with the command, or a Get button, that fixes it), and once files are indexed a
question drawn from them (``core.search.suggest``, read in the service's reader lane).
``WelcomeGuide`` feeds the panel from the service's signals; the panel only shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.ollama.address import display_host
from app.core.ollama.models import ModelInfo, pick_chat_model
from app.core.wording import counted
from app.ui.theme import colors
from app.ui.widgets import ElidedButton, plain_label

if TYPE_CHECKING:
    from app.core.config import Settings
    from app.core.search.suggest import Suggestion
    from app.ui.payloads import IndexSnapshot, ModelList, ServiceState
    from app.ui.service import Service

INTRO = (
    "Footnotes answers questions from your own files and shows the passages each answer "
    "rests on. Your files are read on this computer and stay there."
)


class Step(QFrame):
    """One numbered line of the guide: a sentence, and a button that does what it says."""

    def __init__(self, number: int, button: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcomeStep")
        self.number = plain_label(f"{number}")
        self.number.setObjectName("passageTitle")
        self.number.setFixedWidth(22)
        self.text = plain_label()
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.button = ElidedButton(button)  # a long suggested question never widens the guide
        self.button.hide()
        body = QVBoxLayout()
        body.setSpacing(6)
        body.addWidget(self.text)
        body.addWidget(self.button, 0, Qt.AlignmentFlag.AlignLeft)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 4, 0, 4)
        row.addWidget(self.number, 0, Qt.AlignmentFlag.AlignTop)
        row.addLayout(body, 1)

    def say(self, text: str, level: str = "", button: str | None = None) -> None:
        """Show ``text`` (``ok`` green, ``problem`` red, else plain), with ``button`` or none."""
        c = colors()
        color = {"ok": c.ok_fg, "problem": c.unsupported_line}.get(level)
        self.text.setStyleSheet(f"color:{color};" if color else "")
        self.text.setText(text)
        if button:
            self.button.setText(button)
        self.button.setVisible(button is not None)


class WelcomePanel(QWidget):
    """What to do first: folders, Ollama, a first question; emits what the person chose."""

    add_folder_requested = Signal()
    get_model_requested = Signal()
    check_requested = Signal()
    question_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcomePanel")
        self.setAutoFillBackground(True)  # the answer's page colour, as the answer will have
        self.setBackgroundRole(QPalette.ColorRole.Base)
        self.suggestion: Suggestion | None = None
        title = plain_label("Welcome to Footnotes")
        title.setObjectName("passageTitle")
        intro = plain_label(INTRO)
        intro.setObjectName("mutedLabel")
        intro.setWordWrap(True)
        self.folders = Step(1, "Add folder…")
        self.ollama = Step(2, "Check again")
        self.first = Step(3, "")
        self.folders.button.clicked.connect(self.add_folder_requested)
        self.ollama.button.clicked.connect(self._on_ollama_button)
        self.first.button.clicked.connect(self._on_question)
        self.first.button.setObjectName("suggestedQuestion")
        box = QVBoxLayout(self)
        box.setContentsMargins(18, 16, 18, 16)
        box.setSpacing(10)
        box.addWidget(title)
        box.addWidget(intro)
        box.addWidget(self.folders)
        box.addWidget(self.ollama)
        box.addWidget(self.first)
        box.addStretch(1)
        self._ollama_action = "check"

    def show_folders(self, snapshot: IndexSnapshot | None, state: ServiceState) -> None:
        """Say whether there is anything to ask about yet, and how to add it."""
        if not state.writable:
            self.folders.say(
                "Another Footnotes window is indexing this data folder: this one can ask "
                "questions about what it has indexed, but not add folders."
            )
            return
        if snapshot is None or not snapshot.folders:
            self.folders.say(
                "Choose a folder of your files for Footnotes to read, or drop one on this "
                "window. It keeps the index up to date as the files change.",
                button="Add folder…",
            )
            self.folders.button.setEnabled(state.engine_ready)
            return
        where = counted(len(snapshot.folders), "folder")
        indexed = snapshot.files - len(snapshot.failures)  # the files count those that failed
        if state.syncing or not snapshot.files:
            self.folders.say(f"Reading {where}: {counted(indexed, 'file')} indexed so far.")
        else:
            failed = (
                f" ({counted(len(snapshot.failures), 'file')} could not be read: see Folders)"
                if snapshot.failures
                else ""
            )
            self.folders.say(
                f"{counted(indexed, 'file')} indexed in {where}, "
                f"{counted(snapshot.passages, 'passage')} to search{failed}.",
                "ok",
            )

    def show_checking(self, host: str) -> None:
        self.ollama.say(f"Checking whether Ollama answers at {display_host(host)}…")

    def show_models(self, listed: ModelList, wanted: str) -> None:
        """Say whether Ollama answers and has a chat model, with what to do if not."""
        if listed.error:
            self._ollama_action = "check"
            self.ollama.say(
                f"{listed.error} Then check again. Until then, questions show the passages "
                "found but no answer.",
                "problem",
                "Check again",
            )
            return
        answering = pick_chat_model([ModelInfo(m) for m in listed.models], wanted)
        self._ollama_action = "get"
        get = f"Get {wanted}…"
        if answering is None:
            self.ollama.say(
                f"Ollama is running, but it has no chat model to answer with: get {wanted} "
                f"here, or run `ollama pull {wanted}`.",
                "problem",
                get,
            )
        elif answering.split(":")[0] != wanted.split(":")[0]:
            self.ollama.say(
                f"Ollama is running. {wanted} is not installed, so {answering} answers "
                f"until you get it (or run `ollama pull {wanted}`).",
                "",
                get,
            )
        else:
            self.ollama.say(f"Ollama is running: {answering} answers your questions.", "ok")

    def show_suggestion(self, suggestion: Suggestion | None) -> None:
        """Offer a first question from the files (or say one comes once they are indexed)."""
        self.suggestion = suggestion
        if suggestion is None:
            self.first.say(
                "Once your files are indexed, ask anything they might answer: a name, a "
                "date, a figure, how something is done."
            )
            return
        self.first.say("Try a first question, drawn from your files:", button=suggestion.question)

    @Slot()
    def _on_ollama_button(self) -> None:
        if self._ollama_action == "get":
            self.get_model_requested.emit()
        else:
            self.check_requested.emit()

    @Slot()
    def _on_question(self) -> None:
        if self.suggestion is not None:
            self.question_chosen.emit(self.suggestion.question)


class WelcomeGuide(QObject):
    """Shows the welcome panel in place of the answer until the first question, fed by the
    service: the index snapshot, Ollama's models (probed at start), a suggested question."""

    def __init__(self, service: Service, answer: QWidget, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.panel = WelcomePanel()
        self.scroll = QScrollArea()  # a small window scrolls the guide, never grows for it
        self.scroll.setWidget(self.panel)
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setFrameShape(QFrame.Shape.StyledPanel)
        self.area = QStackedWidget()  # what the window lays out where the answer goes
        self.area.addWidget(self.scroll)
        self.area.addWidget(answer)
        self.answer = answer
        self.snapshot: IndexSnapshot | None = None
        self._asked_suggestion = False
        service.index_changed.connect(self.on_snapshot)
        service.state_changed.connect(self.on_state)
        service.models_listed.connect(self.on_models)
        service.question_suggested.connect(self.panel.show_suggestion)
        service.settings_applied.connect(self.on_settings)
        self.panel.check_requested.connect(self.check_ollama)
        self.panel.show_folders(None, service.state)
        self.panel.show_suggestion(None)
        self.check_ollama()

    @property
    def showing(self) -> bool:
        return self.area.currentWidget() is self.scroll

    def done(self) -> None:
        """A question was asked: the answer takes the pane from now on."""
        self.area.setCurrentWidget(self.answer)

    @Slot()
    def check_ollama(self) -> None:
        """Ask Ollama (in the service's probe lane) which models it has."""
        host = self.service.settings.ollama_host
        self.panel.show_checking(host)
        self.service.list_models(host)

    @Slot(object)
    def on_settings(self, _settings: Settings) -> None:
        self.check_ollama()

    @Slot(object)
    def on_models(self, listed: ModelList) -> None:
        if listed.host == self.service.settings.ollama_host:  # not the Settings dialog's draft
            self.panel.show_models(listed, self.service.settings.ollama_model)

    @Slot(object)
    def on_state(self, state: ServiceState) -> None:
        self.panel.show_folders(self.snapshot, state)
        self._maybe_suggest()

    @Slot(object)
    def on_snapshot(self, snapshot: IndexSnapshot) -> None:
        self.snapshot = snapshot
        self.panel.show_folders(snapshot, self.service.state)
        self._maybe_suggest()

    def _maybe_suggest(self) -> None:
        """Once files are indexed and the run is over, pick a first question (once)."""
        snap, state = self.snapshot, self.service.state
        if self._asked_suggestion or snap is None or not snap.files or state.syncing:
            return
        self._asked_suggestion = True
        self.service.suggest_question()
