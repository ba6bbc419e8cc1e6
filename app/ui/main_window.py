"""The main window: question, answer, sources and the passage in its file; panels at the side.

It lays out the widgets and presents a question's progress; the small objects it owns do the
rest (status line, source navigation, indexing, drops, theme, memory, help, side docks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QMainWindow,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import AnswerFailure
from app.core.wording import counted
from app.ui.answer_view import AnswerView
from app.ui.ask_session import (
    AskSession,
    AskState,
    continuing,
    model_note_once,
    show_outcome,
    show_verdict,
    source_usage,
    unbacked_line,
)
from app.ui.drops import DropHandler
from app.ui.folders_panel import FoldersPanel
from app.ui.index_status import IndexingView
from app.ui.menus import Actions, build_actions, build_menus
from app.ui.model_pull import PullDialog
from app.ui.passage_view import PassageView
from app.ui.payloads import ErrorReport
from app.ui.scope_bar import ScopeBar
from app.ui.side_docks import SideDocks
from app.ui.source_nav import SourceNavigator
from app.ui.sources_panel import SourcesPanel
from app.ui.status_line import StatusLine
from app.ui.theme import app_icon
from app.ui.thread_control import ThreadsController
from app.ui.threads_panel import SearchedFor, ThreadNote, ThreadsPanel
from app.ui.welcome import WelcomeGuide
from app.ui.widgets import Banner, ErrorBar, QuestionBox, plain_label
from app.ui.window_chrome import HelpDialogs, ThemeChooser, WindowMemory

if TYPE_CHECKING:
    from app.core.search.scope import Scope
    from app.ui.service import Service


# The answer column's and the passage's shares of the room beside the side panel: at 1,280 px
# with the side panel at its width, the answer keeps more than 45% of the window.
ANSWER_SPLIT = [620, 380]


class MainWindow(QMainWindow):
    """Presents the service: asks, streams answers, shows sources; owns no index state."""

    quick_ask_requested = Signal()
    settings_requested = Signal()
    quit_requested = Signal()

    def __init__(self, service: Service, ui_settings: QSettings) -> None:
        super().__init__()
        self.service = service
        self.tray_available = False  # closing hides to the tray only when there is one
        self._quitting = False
        self._told_tray = False
        self.setWindowTitle("Footnotes")
        self.setWindowIcon(app_icon())
        self.session = AskSession(service, self)
        self.outcome: AskState | None = None
        self.thread_id: str | None = None  # the open thread: the next question follows it up
        self._build()
        self.status = StatusLine(self.statusBar())
        self.actions_: Actions = build_actions(self)
        build_menus(self.menuBar(), self.actions_)
        self.nav = SourceNavigator(self.answer, self.sources, self.passage, self.status, self)
        self.threads = ThreadsController(self, self.history_panel, service.history, self)
        self.indexing = IndexingView(
            service, self.folders, self.actions_, self.status, self.session, self
        )
        self.drops = DropHandler(self, self.status, self._accepts_drops)
        self.theme = ThemeChooser(self.actions_.theme, ui_settings)
        self.help = HelpDialogs(self, str(service.data.root))
        splits = {"main_split": self.main_split, "left_split": self.left_split}
        self.memory = WindowMemory(self, splits, self.question, ui_settings)
        self._connect()
        # the answer and its sources get the larger share, the passage the rest
        self.memory.restore({"main_split": ANSWER_SPLIT, "left_split": [460, 340]})

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.question = QuestionBox()
        self.question.setPlaceholderText("Ask your files a question…   (Enter to ask, Esc to stop)")
        self.ask_button = QPushButton("Ask")
        self.ask_button.setObjectName("askButton")
        self.ask_button.setDefault(True)
        self.scope_bar = ScopeBar()
        self.searched_for = SearchedFor()
        self.thread_note = ThreadNote()  # "A new topic, so a new thread" + continue instead
        self.history_panel = ThreadsPanel()
        self.errors = ErrorBar()
        self.banner = Banner()
        self.answer = AnswerView()
        self.sources = SourcesPanel()
        self.passage = PassageView(self.service)
        self.folders = FoldersPanel()
        self.welcome = WelcomeGuide(self.service, self.answer, self)  # the pane, until asked

        top = QHBoxLayout()
        top.addWidget(self.question, 1)
        top.addWidget(self.scope_bar)
        top.addWidget(self.ask_button)
        sources_box = QWidget()
        sb = QVBoxLayout(sources_box)
        sb.setContentsMargins(0, 4, 0, 0)
        sb.setSpacing(4)
        self.sources_title = plain_label("Sources")
        self.sources_title.setObjectName("sectionTitle")
        sb.addWidget(self.sources_title)
        sb.addWidget(self.sources, 1)
        self.left_split = QSplitter(Qt.Orientation.Vertical)
        self.left_split.addWidget(self.welcome.area)
        self.left_split.addWidget(sources_box)
        self.left_split.setStretchFactor(0, 3)
        self.left_split.setStretchFactor(1, 2)
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.addWidget(self.left_split)
        self.main_split.addWidget(self.passage)
        self.main_split.setStretchFactor(0, 3)  # a wider window widens both, the answer more
        self.main_split.setStretchFactor(1, 2)
        central = QWidget()
        box = QVBoxLayout(central)
        box.setContentsMargins(10, 10, 10, 6)
        box.setSpacing(8)
        box.addLayout(top)
        box.addWidget(self.searched_for)
        box.addWidget(self.thread_note)
        box.addWidget(self.errors)
        box.addWidget(self.banner)
        box.addWidget(self.main_split, 1)
        self.setCentralWidget(central)

        self.docks = SideDocks(self, self.folders, self.history_panel)
        self.folders_dock, self.history_dock = self.docks.folders, self.docks.history
        self.resize(1360, 860)

    def _connect(self) -> None:
        self.service.error_occurred.connect(self.on_error)
        self.session.searched.connect(self.on_searched)
        self.session.piece_arrived.connect(self.answer.append)
        self.session.finished.connect(self.on_finished)
        self.session.finished.connect(self.threads.describe_turn)
        self.session.query_planned.connect(self.on_query_planned)
        self.session.turn_saved.connect(self.threads.on_turn_saved)
        self.searched_for.rerun_requested.connect(self.rerun_search)
        self.thread_note.continue_requested.connect(self.continue_last_thread)
        self.docks.connect_actions(self.actions_.toggle_folders, self.actions_.toggle_history)
        self.question.ask_requested.connect(self.ask)
        self.question.cancel_requested.connect(self.cancel_ask)
        self.ask_button.clicked.connect(self._on_ask_button)
        self.banner.next_unsupported_requested.connect(self.answer.next_unsupported)
        self.errors.action_requested.connect(self.pull_model)
        first = self.welcome.panel
        first.add_folder_requested.connect(self.actions_.add_folder.trigger)
        first.get_model_requested.connect(self.pull_model)
        first.question_chosen.connect(self.ask_suggested)
        self.service.settings_applied.connect(self._on_settings_applied)
        self.scope_bar.choices_requested.connect(self.service.list_scope_choices)
        self.service.scope_choices_listed.connect(self.scope_bar.set_choices)
        self.scope_bar.scope_changed.connect(self._on_scope_changed)
        self.drops.folders_dropped.connect(self.indexing.add_folders)
        self.drops.files_dropped.connect(self.indexing.index_files)
        self.theme.theme_changed.connect(self._restyle)
        a, nav = self.actions_, self.nav
        for action, slot in (
            (a.ask, self.ask_current),
            (a.stop, self.cancel_ask),
            (a.quick_ask, self.show_quick_ask),
            (a.focus_question, self.focus_question),
            (a.settings, self.show_settings),
            (a.show_window, self.show_and_raise),
            (a.quit, self.quit_app),
            (a.open_source, nav.open_current_source),
            (a.reveal_source, nav.reveal_current_source),
            (a.next_source, nav.next_source),
            (a.previous_source, nav.previous_source),
            (a.zoom_in, self.passage.pdf.zoom_in),
            (a.zoom_out, self.passage.pdf.zoom_out),
            (a.new_thread, self.threads.new_thread),
            (a.export_thread, self.threads.export_thread),
            (a.copy_answer, self.threads.copy_answer),
            (a.shortcuts, self.help.show_shortcuts),
            (a.about, self.help.show_about),
            *((n, nav.on_number_shortcut) for n in a.sources),
        ):
            action.triggered.connect(slot)

    # -- asking ----------------------------------------------------------------------------
    @Slot()
    def ask_current(self) -> None:
        """Ask what is in the question box (Enter, the Ask button or menu entry), remembering it."""
        text = self.question.text().strip()
        if text:
            self.question.remember(text)
            self.ask(text)

    @Slot(str)
    def ask(
        self,
        question: str,
        search_query: str | None = None,
        *,
        thread_id: str | None = None,
        follow_up: bool | None = None,
    ) -> None:
        """Clear the last answer and ask ``question`` in the open thread (or ``thread_id``),
        cancelling one still coming: the core decides whether it follows the thread up (a
        topic of its own starts a new one) unless ``follow_up``; ``search_query`` is searched
        instead of the planned one."""
        self.errors.hide()
        self.thread_note.hide()
        self.welcome.done()
        self.banner.clear()
        self.sources.set_hits([])
        self.passage.clear()
        self.answer.begin(0)
        self.outcome = None
        self.searched_for.hide()
        scope = self.scope_bar.scope()  # a period like "last 7 days" counts from now
        self.session.ask(
            question, scope, thread_id or self.thread_id, search_query, follow_up=follow_up
        )
        self.ask_button.setText("Stop")
        where = "your files" if scope.everything else "the files in scope"
        self.status.say(
            f"Searching {where}…"
            if self.service.state.model_loaded
            else "Searching… (the embedding model is still loading)"
        )

    @Slot(str)
    def ask_suggested(self, question: str) -> None:
        """Ask the welcome's suggested question, as if typed."""
        self.question.setText(question)
        self.ask_current()

    @Slot(object)
    def on_query_planned(self, outcome: AskState) -> None:
        """Show what is being searched, under the question, for the person to correct."""
        self.searched_for.show_query(outcome.search_query or "", outcome.search_method)
        if outcome.new_topic_from:  # said quietly, with the way back to the last thread
            self.thread_note.show_note(outcome.new_topic_note)

    @Slot()
    def continue_last_thread(self) -> None:
        """Ask the question again as a follow-up in the thread it left for a new one (the new
        thread, if it was stored, is removed: it holds only this question)."""
        plan = continuing(self.session.outcome or self.outcome)
        if plan is None:
            return
        question, thread_id, started = plan
        self.session.cancel()
        if started is not None:
            self.threads.discard_thread(started)
        self.thread_id = None  # the thread opens in History once the answer is stored there
        self.ask(question, thread_id=thread_id, follow_up=True)
        self.status.say("Asking again as a follow-up in the last thread…")

    @Slot(str)
    def rerun_search(self, query: str) -> None:
        """Search the edited "Searched for" text and answer the same question again."""
        question = self.outcome.question if self.outcome else self.question.text().strip()
        if question:
            self.ask(question, query)

    @Slot(object)
    def _on_scope_changed(self, scope: Scope) -> None:
        if scope.everything:
            self.status.flash("Questions search all your files again.", 4000)
        else:
            self.status.flash(f"Questions search only: {self.scope_bar.summary()}", 4000)

    @Slot()
    def cancel_ask(self) -> None:
        """Stop the answer in progress (Esc); what arrived so far stays."""
        self.session.cancel()

    @Slot()
    def _on_ask_button(self) -> None:
        if self.session.running:
            self.cancel_ask()
        else:
            self.ask_current()

    @Slot(object)
    def on_searched(self, outcome: AskState) -> None:
        """Retrieval is done: list the sources and show the verdict before the answer comes."""
        self.outcome = outcome
        result = outcome.result
        if result is None:
            return
        self.sources.set_hits(result.hits)
        self.answer.set_sources(len(result.hits))
        self.sources_title.setText(f"Sources  ·  {counted(len(result.hits), 'passage')}")
        if result.hits:  # the verdict needs the whole answer: until then, never green
            s = result.support
            self.banner.show_checking("" if s.supported else s.reason)
            self.sources.select(1)
        self.status.say("Answering…")

    @Slot(object)
    def on_finished(self, outcome: AskState) -> None:
        """The answer is complete (or stopped, or failed): mark its sentences, say how it went."""
        self.outcome = outcome
        self.ask_button.setText("Ask")
        self.status.say(
            "No answer came back: see the message above." if outcome.error else "Ready."
        )
        show_outcome(self.answer, outcome)
        show_verdict(self.banner, outcome, brief=bool(outcome.error))  # the error bar says why
        usage = source_usage(outcome)
        if usage is not None:  # no answer: no usage marks
            self.sources.model_.set_usage(usage)
        if line := unbacked_line(outcome):
            self.status.say(line)
        note = model_note_once(outcome, self.service.told_notes)
        if note:  # another model answered: said where it is seen, with the way to the right one
            self.status.say(note)
            self.errors.show_message(note, f"Get {self.service.settings.ollama_model}…")
        if outcome.error:
            kind = outcome.answer.error_kind if outcome.answer is not None else None
            missing = kind is AnswerFailure.MODEL_MISSING
            self.errors.show_message(
                outcome.error, f"Get {self.service.settings.ollama_model}…" if missing else None
            )

    @Slot()
    def pull_model(self) -> PullDialog:
        """Download the configured model through Ollama, with progress (no chat model yet)."""
        s = self.service.settings
        dialog = PullDialog(s.ollama_host, s.ollama_model, self)
        dialog.pulled.connect(self._on_model_pulled)
        dialog.start()
        return dialog

    @Slot(str)
    def _on_model_pulled(self, model: str) -> None:
        self.errors.hide()
        self.welcome.check_ollama()
        self.status.say(f"The model {model} is installed: ask your question again.")

    @Slot(object)
    def _on_settings_applied(self, _settings: object) -> None:
        """The last question's error ("Ollama is not running at …") may be fixed by the new
        settings: the next question says whether it still stands. (A bound slot, not a
        lambda: Qt drops it with the window, while a lambda queued from the reader lane
        would still run once the window is deleted.)"""
        self.errors.hide()

    @Slot(object)
    def on_error(self, report: ErrorReport) -> None:
        """Show a background failure in the window, not only in a log."""
        self.errors.show_message(report.message)

    @Slot(int)
    def show_source(self, n: int) -> None:
        """Select source ``n`` and show its passage."""
        self.nav.show_source(n)

    def adopt(self, outcome: AskState, n: int) -> None:
        """Show an outcome asked elsewhere (quick-ask) and select its source ``n``."""
        self.show_and_raise()
        self.welcome.done()
        self.question.setText(outcome.question)
        self.banner.clear()
        self.answer.begin(0)
        self.session.outcome = None
        if outcome.thread_id:  # quick-ask's thread goes on here, and History shows it open
            self.threads.on_turn_saved(outcome)
        if outcome.search_query:
            self.searched_for.show_query(outcome.search_query, outcome.search_method)
        self.thread_note.hide()
        if outcome.new_topic_from:
            self.thread_note.show_note(outcome.new_topic_note)
        self.on_searched(outcome)
        if outcome.done:
            self.on_finished(outcome)
        else:
            self.answer.append(outcome.text)
            self.answer.stop()
        self.nav.show_source(n)

    @Slot(str)
    def _restyle(self, theme: str) -> None:
        """Draw again what was drawn in the old palette's colours."""
        self.answer.restyle()
        if self.outcome is not None and self.outcome.answer is not None:
            done = self.outcome.answer
            self.answer.finish(done.text, done.sentences, len(done.sources))
        if self.banner.verdict is not None:
            self.banner.show_verdict(self.banner.verdict, brief=self.banner.brief)
        elif self.banner.level == "checking":
            self.banner.show_checking(self.banner.reason.text())
        self.passage.set_strong([])
        self.folders.refresh()
        self.scope_bar.restyle()

    # -- window management -----------------------------------------------------------------
    def _accepts_drops(self) -> bool:
        return self.service.state.writable

    @Slot()
    def focus_question(self) -> None:
        """Put the cursor in the question box, its text selected for typing over."""
        self.question.setFocus()
        self.question.selectAll()

    @Slot()
    def show_and_raise(self) -> None:
        """Bring the window back (from the tray, quick-ask or a minimised state)."""
        self.show()
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.raise_()
        self.activateWindow()

    @Slot()
    def show_quick_ask(self) -> None:
        """Ask for the quick-ask window (the app owns it, so the tray can open it too)."""
        self.quick_ask_requested.emit()

    @Slot()
    def show_settings(self) -> None:
        """Ask for the settings dialog (the app owns it)."""
        self.settings_requested.emit()

    @Slot()
    def quit_app(self) -> None:
        """Quit for real (not to the tray), saving the window's geometry first."""
        self._quitting = True
        self.memory.save()
        self.quit_requested.emit()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Quit, or (with a tray icon to come back from) only hide."""
        self.memory.save()
        if self._quitting or not self.tray_available:
            self._quitting = True
            event.accept()
            self.quit_requested.emit()
            return
        event.ignore()
        self.hide()
        if not self._told_tray:
            self._told_tray = True
            self.status.flash("Footnotes keeps running in the tray.", 5000)
