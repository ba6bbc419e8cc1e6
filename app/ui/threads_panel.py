"""The History panel (threads, search over past questions, a thread's turns), the
"Searched for: …" row under the question, editable and re-runnable, and the quiet line that
says a new topic started a new thread, with one click to continue the last one instead."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.threads.store import ThreadInfo, Turn
from app.ui.widgets import ElidedLabel, plain_label, tooltip

_ID = Qt.ItemDataRole.UserRole
_QUESTION = Qt.ItemDataRole.UserRole + 1  # a turn's (question, time asked)
TITLE = Qt.ItemDataRole.UserRole + 2  # a thread's title, as written


class ThreadsPanel(QWidget):
    """Lists threads (newest first), filters them by a search, and lists the open one's turns."""

    search_changed = Signal(str)
    thread_chosen = Signal(str)
    turn_chosen = Signal(int)
    new_thread_requested = Signal()
    delete_requested = Signal(str)
    export_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search past questions…")
        self.search.setClearButtonEnabled(True)
        self.threads = QListWidget()
        self.threads.setObjectName("threadList")
        self.turns = QListWidget()
        self.turns.setObjectName("turnList")
        self.new_button = QPushButton("New thread")
        self.new_button.setToolTip("Start a new thread (Ctrl+N)")
        self.delete_button = QPushButton("Delete")
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Save the open thread as Markdown with footnotes")
        self.message = plain_label("")
        self.message.setWordWrap(True)
        self.message.hide()
        self.turns_title = plain_label("Answers in this thread")
        self.turns_title.setObjectName("sectionTitle")
        buttons = QHBoxLayout()
        for b in (self.new_button, self.delete_button, self.export_button):
            buttons.addWidget(b)
        box = QVBoxLayout(self)
        box.setContentsMargins(6, 6, 6, 6)
        box.addWidget(self.search)
        box.addWidget(self.message)
        box.addWidget(self.threads, 3)
        box.addLayout(buttons)
        box.addWidget(self.turns_title)
        box.addWidget(self.turns, 2)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(250)
        self._debounce.timeout.connect(self._emit_search)
        self.search.textEdited.connect(self._on_search_edited)
        self.threads.itemActivated.connect(self._on_thread_item)
        self.threads.itemClicked.connect(self._on_thread_item)
        self.turns.itemClicked.connect(self._on_turn_item)
        self.turns.itemActivated.connect(self._on_turn_item)
        self.new_button.clicked.connect(self.new_thread_requested)
        self.delete_button.clicked.connect(self._on_delete)
        self.export_button.clicked.connect(self.export_requested)
        self.current_id: str | None = None
        self._update_buttons()

    # -- filling ---------------------------------------------------------------------------
    def set_threads(self, threads: list[ThreadInfo], error: str | None = None) -> None:
        """Show these threads, keeping the open one selected."""
        self.threads.clear()
        for t in threads:
            when = time.strftime("%d %b %H:%M", time.localtime(t.updated))
            item = QListWidgetItem(f"{t.title}\n{when}  ·  {t.turns} answer{'s' * (t.turns != 1)}")
            item.setData(_ID, t.id)
            item.setData(TITLE, t.title)  # the title itself; the tooltip is escaped markup
            item.setToolTip(tooltip(t.title))
            self.threads.addItem(item)
            if t.id == self.current_id:
                item.setSelected(True)
        if error:
            self.show_message(error)
        elif not threads:
            self.show_message(
                "No threads match." if self.search.text().strip() else "No questions asked yet."
            )
        else:
            self.message.hide()
        self._update_buttons()

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()

    def set_current(self, thread_id: str | None, turns: list[Turn] | None = None) -> None:
        """Mark ``thread_id`` as the open thread and list its turns (None: a new thread)."""
        self.current_id = thread_id
        for i in range(self.threads.count()):
            item = self.threads.item(i)
            item.setSelected(item.data(_ID) == thread_id)
        if turns is not None or thread_id is None:
            self.turns.clear()
            for t in turns or []:
                self._add(t.n, t.question, t.created, str(t.verdict.get("level", "")), t.model)
        self._update_buttons()

    def add_turn(self, n: int, question: str) -> None:
        self._add(n, question, time.time(), "", "")
        self._update_buttons()

    def describe_turn(self, n: int, level: str, model: str) -> None:
        """Add the verdict and model to answer ``n``'s line, once the answer is judged."""
        for i in range(self.turns.count()):
            item = self.turns.item(i)
            if item.data(_ID) == n:
                question, created = item.data(_QUESTION)
                item.setText(_turn_text(n, question, created, level, model))

    def _add(self, n: int, question: str, created: float, level: str, model: str) -> None:
        item = QListWidgetItem(_turn_text(n, question, created, level, model))
        item.setData(_ID, n)
        item.setData(_QUESTION, (question, created))
        item.setToolTip(tooltip(question))  # shown as written, never as markup
        self.turns.addItem(item)

    def search_text(self) -> str:
        return self.search.text().strip()

    def _update_buttons(self) -> None:
        chosen = self._selected_id() or self.current_id
        self.delete_button.setEnabled(chosen is not None)
        self.export_button.setEnabled(self.current_id is not None and self.turns.count() > 0)

    def _selected_id(self) -> str | None:
        items = self.threads.selectedItems()
        return str(items[0].data(_ID)) if items else None

    # -- slots -----------------------------------------------------------------------------
    @Slot(str)
    def _on_search_edited(self, _text: str) -> None:
        self._debounce.start()

    @Slot()
    def _emit_search(self) -> None:
        self.search_changed.emit(self.search_text())

    @Slot(QListWidgetItem)
    def _on_thread_item(self, item: QListWidgetItem) -> None:
        self.thread_chosen.emit(str(item.data(_ID)))

    @Slot(QListWidgetItem)
    def _on_turn_item(self, item: QListWidgetItem) -> None:
        self.turn_chosen.emit(int(item.data(_ID)))

    @Slot()
    def _on_delete(self) -> None:
        chosen = self._selected_id() or self.current_id
        if chosen is not None:
            self.delete_requested.emit(chosen)


class SearchedFor(QWidget):
    """'Searched for: …' under the question; edit it and press Enter (or Search again)."""

    rerun_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel("Searched for:")
        self.label.setObjectName("mutedLabel")
        self.query = QLineEdit()
        self.query.setObjectName("searchedFor")
        self.query.setToolTip(
            "What was searched for this question (a follow-up is searched with what it refers "
            "to). Edit it and press Enter to search and answer again."
        )
        self.again = QPushButton("Search again")
        self.how = plain_label("")
        self.how.setObjectName("mutedLabel")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label)
        row.addWidget(self.query, 1)
        row.addWidget(self.how)
        row.addWidget(self.again)
        self.query.returnPressed.connect(self._rerun)
        self.again.clicked.connect(self._rerun)
        self.hide()

    def show_query(self, query: str, method: str = "", note: str = "") -> None:
        self.query.setText(query)
        self.query.setCursorPosition(0)
        self.how.setText(
            {"model": "(rewritten)", "fallback": "(with earlier terms)", "edited": "(edited)"}.get(
                method, ""
            )
        )
        self.how.setToolTip(note)
        self.show()

    @Slot()
    def _rerun(self) -> None:
        text = self.query.text().strip()
        if text:
            self.rerun_requested.emit(text)


class ThreadNote(QWidget):
    """One quiet line under the question: "A new topic, so a new thread (…)." and the link
    "Continue the last thread instead" (asks the question again as a follow-up there)."""

    continue_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("threadNote")
        self.label = ElidedLabel(mode=Qt.TextElideMode.ElideRight)
        self.label.setObjectName("mutedLabel")
        self.button = QPushButton("Continue the last thread instead")
        self.button.setObjectName("linkButton")
        self.button.setFlat(True)
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.setToolTip(
            "Ask this question again as a follow-up in the thread before, with its earlier "
            "answers (the new thread is removed)"
        )
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.button)
        self.button.clicked.connect(self.continue_requested)
        self.hide()

    def show_note(self, note: str) -> None:
        self.label.setText(note)
        self.show()


def _turn_text(n: int, question: str, created: float, level: str, model: str) -> str:
    """One answer of the open thread: its question, then when it was asked, how it was judged
    and which model answered (the same question asked twice is told apart)."""
    when = time.strftime("%d %b %H:%M", time.localtime(created))
    about = "  ·  ".join(x for x in (when, level.replace("_", " "), model) if x)
    return f"{n}. {' '.join(question.split())}\n{about}"
