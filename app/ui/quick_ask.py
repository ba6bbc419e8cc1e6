"""Quick ask: a small always-on-top window with the answer, the verdict and the top sources.

Its own scope control sits beside the question, so a quick question can be kept to a folder,
a file type or a period like one asked in the main window. A question goes on in the thread of
the last quick answer when it follows it up; one of its own starts a new thread, said in one
quiet line with the way to continue the last one instead, as in the main window.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent, QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.answer_view import AnswerView
from app.ui.ask_session import (
    AskSession,
    AskState,
    continuing,
    model_note_once,
    show_outcome,
    show_verdict,
    source_usage,
)
from app.ui.scope_bar import ScopeBar
from app.ui.sources_panel import SourceRow, usage_row
from app.ui.theme import app_icon
from app.ui.threads_panel import ThreadNote
from app.ui.widgets import Banner, QuestionBox, plain_label, shown_path, tooltip

if TYPE_CHECKING:
    from app.ui.service import Service

TOP_SOURCES = 3


class QuickAskWindow(QWidget):
    """Ask without the main window; click a source to open it there."""

    source_activated = Signal(object, int)  # AskState, source number

    def __init__(self, service: Service, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Tool | Qt.WindowType.WindowStaysOnTopHint)
        self.setObjectName("quickAsk")
        self.setWindowTitle("Quick ask")  # Qt adds " — Footnotes", the display name
        self.setWindowIcon(app_icon())
        self.session = AskSession(service, self)
        self.thread_id: str | None = None  # the last quick answer's thread: followed up next
        self.thread_note = ThreadNote()
        self.thread_note.continue_requested.connect(self.continue_last_thread)
        self.question = QuestionBox()
        self.question.setPlaceholderText("Quick question…  (Enter to ask, Esc to close)")
        self.scope_bar = ScopeBar()
        self.scope_bar.choices_requested.connect(service.list_scope_choices)
        service.scope_choices_listed.connect(self.scope_bar.set_choices)
        self.banner = Banner()
        self.answer = AnswerView()
        self.answer.setPlaceholderText("The answer appears here, with its sources below.")
        self.answer.setMinimumHeight(150)
        self.sources = QListWidget()
        self.sources.setObjectName("quickSources")
        self.sources.setMaximumHeight(96)
        self.sources.itemActivated.connect(self._on_item)
        self.sources.itemClicked.connect(self._on_item)
        self.sources_title = plain_label("Top sources")
        self.sources_title.setObjectName("sectionTitle")
        self.open_button = QPushButton("Open in Footnotes")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self._open_first)
        self.status = plain_label("")
        self.status.setObjectName("mutedLabel")
        self.status.setWordWrap(True)  # a note that another model answered is a sentence
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.open_button)
        box = QVBoxLayout(self)
        box.setContentsMargins(12, 12, 12, 12)
        box.setSpacing(8)
        ask_row = QHBoxLayout()
        ask_row.addWidget(self.question, 1)
        ask_row.addWidget(self.scope_bar)
        box.addLayout(ask_row)
        box.addWidget(self.thread_note)
        box.addWidget(self.banner)
        box.addWidget(self.answer, 1)
        box.addWidget(self.sources_title)
        box.addWidget(self.sources)
        box.addLayout(row)
        self.resize(560, 540)
        self.question.ask_requested.connect(self.ask)
        self.question.cancel_requested.connect(self._on_escape)
        self.session.searched.connect(self._on_searched)
        self.session.piece_arrived.connect(self.answer.append)
        self.session.finished.connect(self._on_finished)
        self.session.query_planned.connect(self._on_planned)
        self.session.turn_saved.connect(self._on_turn_saved)
        self.banner.next_unsupported_requested.connect(self.answer.next_unsupported)

    def popup(self) -> None:
        """Show on top, focused on the question."""
        self.show()
        self.raise_()
        self.activateWindow()
        self.question.setFocus()
        self.question.selectAll()

    @Slot(str)
    def ask(
        self, question: str, *, thread_id: str | None = None, follow_up: bool | None = None
    ) -> None:
        """Clear the last answer and ask ``question`` in the last quick answer's thread (or
        ``thread_id``): the core decides whether it follows it up, unless ``follow_up``."""
        self.thread_note.hide()
        self.banner.clear()
        self.sources.clear()
        self.open_button.setEnabled(False)
        self.answer.begin(0)
        self.status.setText("Searching your files…")
        self.question.setCursorPosition(0)
        self.session.ask(
            question, self.scope_bar.scope(), thread_id or self.thread_id, follow_up=follow_up
        )

    @Slot(object)
    def _on_planned(self, outcome: AskState) -> None:
        if outcome.new_topic_from:
            self.thread_note.show_note(outcome.new_topic_note)

    @Slot(object)
    def _on_turn_saved(self, outcome: AskState) -> None:
        if outcome.thread_id is not None:
            self.thread_id = outcome.thread_id

    @Slot()
    def continue_last_thread(self) -> None:
        """Ask the question again as a follow-up in the thread it left (the new one removed)."""
        plan = continuing(self.session.outcome)
        if plan is None:
            return
        question, thread_id, started = plan
        self.session.cancel()
        if started is not None:
            self.session.service.history.delete_thread(started)
        self.ask(question, thread_id=thread_id, follow_up=True)

    @Slot(object)
    def _on_searched(self, outcome: AskState) -> None:
        result = outcome.result
        if result is None:
            return
        self.answer.set_sources(len(result.hits))
        if result.hits:  # the verdict needs the whole answer: until then, never green
            s = result.support
            self.banner.show_checking("" if s.supported else s.reason)
        for i, hit in enumerate(sorted(result.hits, key=lambda h: h.rank)[:TOP_SOURCES]):
            page = f"  ·  p. {hit.page}" if hit.page else ""
            item = QListWidgetItem(f"[{i + 1}]  {os.path.basename(shown_path(hit.path))}{page}")
            item.setData(Qt.ItemDataRole.UserRole, i + 1)
            item.setToolTip(tooltip(shown_path(hit.path)))
            self.sources.addItem(item)
        self._fit_sources()
        self.open_button.setEnabled(bool(result.hits))
        self.status.setText("Answering…")

    def _fit_sources(self) -> None:
        """The sources list as tall as its rows, so the answer above gets the rest."""
        rows = sum(self.sources.sizeHintForRow(i) for i in range(self.sources.count()))
        if rows:
            self.sources.setFixedHeight(rows + 2 * self.sources.frameWidth() + 6)

    @Slot(object)
    def _on_finished(self, outcome: AskState) -> None:
        told = self.session.service.told_notes
        self.status.setText(
            model_note_once(outcome, told) or "Click a source to open it in Footnotes."
        )
        show_outcome(self.answer, outcome)
        show_verdict(self.banner, outcome)
        self._mark_sources(outcome)

    def _mark_sources(self, outcome: AskState) -> None:
        """Each listed source says how the answer used it, as in the main window."""
        usage = source_usage(outcome)
        if usage is None or outcome.result is None:
            return
        hits = sorted(outcome.result.hits, key=lambda h: h.rank)
        for i in range(self.sources.count()):
            item = self.sources.item(i)
            n = int(item.data(Qt.ItemDataRole.UserRole))
            mark, _ = usage_row(SourceRow(n, hits[n - 1]), usage).mark()
            if mark:
                item.setText(f"{item.text()}   —   {mark}")

    @Slot(QListWidgetItem)
    def _on_item(self, item: QListWidgetItem) -> None:
        if self.session.outcome is not None:
            n = int(item.data(Qt.ItemDataRole.UserRole))
            self.source_activated.emit(self.session.outcome, n)

    @Slot()
    def _open_first(self) -> None:
        if self.session.outcome is not None:
            self.source_activated.emit(self.session.outcome, 1)

    @Slot()
    def _on_escape(self) -> None:
        if self.session.running:
            self.session.cancel()
        else:
            self.hide()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self._on_escape()
        else:
            super().keyPressEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.session.cancel()
        super().closeEvent(event)
