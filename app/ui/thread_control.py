"""What the main window does with threads: follow one up, start a new one, reopen, delete,
export and copy; the History panel and the service's ``History`` do the showing and storing."""

from __future__ import annotations

import re
from typing import Any, Protocol

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from app.core.api import thread_markdown, turn_from_answer
from app.ui.ask_session import AskState
from app.ui.history import (
    History,
    HistoryCleared,
    ThreadExported,
    ThreadList,
    ThreadLoaded,
)
from app.ui.stored_turn import outcome_from_turn
from app.ui.threads_panel import TITLE, ThreadsPanel


class ThreadWindow(Protocol):
    """What the controller uses of the main window (a Protocol: no import cycle)."""

    thread_id: str | None
    outcome: AskState | None
    session: Any
    service: Any
    question: Any
    ask_button: Any
    searched_for: Any
    thread_note: Any
    errors: Any
    banner: Any
    sources: Any
    sources_title: Any
    passage: Any
    answer: Any
    status: Any
    nav: Any

    def focus_question(self) -> None: ...
    def on_searched(self, outcome: AskState) -> None: ...
    def on_finished(self, outcome: AskState) -> None: ...


class ThreadsController(QObject):
    """Keeps the window's open thread, the History panel and the stored threads in step."""

    def __init__(
        self, window: ThreadWindow, panel: ThreadsPanel, history: History, parent: QObject
    ) -> None:
        super().__init__(parent)
        self.window = window
        self.panel = panel
        self.history = history
        self.loaded: ThreadLoaded | None = None
        self._warned = False
        self._list_only: set[str] = set()  # threads read to list their turns, not to show one
        panel.search_changed.connect(self.refresh)
        panel.thread_chosen.connect(self.open_thread)
        panel.turn_chosen.connect(self.show_turn)
        panel.new_thread_requested.connect(self.new_thread)
        panel.delete_requested.connect(self.delete_thread)
        panel.export_requested.connect(self.export_thread)
        history.threads_listed.connect(self._on_listed)
        history.thread_loaded.connect(self._on_loaded)
        history.thread_exported.connect(self._on_exported)
        history.history_cleared.connect(self._on_cleared)
        window.service.settings_applied.connect(self._on_settings_applied)
        self.refresh()

    # -- listing ---------------------------------------------------------------------------
    @Slot()
    def refresh(self, _search: str = "") -> None:
        """List the threads again (matching the panel's search)."""
        if not self.history.enabled:
            self.panel.set_threads([])
            self.panel.show_message("History is off (Settings): questions are not kept.")
            return
        self.history.list_threads(self.panel.search_text())

    @Slot(object)
    def _on_settings_applied(self, _settings: object) -> None:
        if not self.history.enabled and self.window.thread_id is not None:
            self.window.thread_id = None  # history off: the next question starts afresh, and
            self.panel.set_current(None)  # no kept thread is listed or exported as if open
        self.refresh()

    @Slot(object)
    def _on_listed(self, listed: ThreadList) -> None:
        if listed.search == self.panel.search_text():
            self.panel.set_threads(listed.threads, listed.error)

    @Slot(object)
    def on_turn_saved(self, outcome: AskState) -> None:
        """An answer was stored: the thread it went to is now the open one."""
        if outcome.history_warning and not self._warned:
            self._warned = True  # one clear error, not one per question
            self.panel.show_message(outcome.history_warning)
            self.window.status.flash("This answer was not saved to the history.", 6000)
        if outcome.thread_id is None:
            return
        if outcome.thread_id != self.window.thread_id:
            self.window.thread_id = outcome.thread_id
            self.panel.set_current(outcome.thread_id, [])
            if outcome.turn > 1:  # a thread opened by this answer: list its earlier turns too
                self._list_only.add(outcome.thread_id)
                self.history.load_thread(outcome.thread_id)
        self.panel.add_turn(outcome.turn, outcome.question)
        self.describe_turn(outcome)
        self.refresh()

    @Slot(object)
    def describe_turn(self, outcome: AskState) -> None:
        """Say in the open thread's list how its answer was judged and who answered, once
        known (the turn may be stored before or after the answer is judged)."""
        if outcome.thread_id == self.window.thread_id and outcome.verdict is not None:
            model = outcome.answer.model if outcome.answer is not None else ""
            self.panel.describe_turn(outcome.turn, outcome.verdict.level, model)

    # -- opening ---------------------------------------------------------------------------
    @Slot()
    def new_thread(self) -> None:
        """Start afresh (Ctrl+N): the next question has no earlier context."""
        w = self.window
        w.session.cancel()  # its "finished" will not come (its outcome is dropped below)
        w.ask_button.setText("Ask")
        w.thread_id = None
        self.loaded = None
        w.outcome = None
        w.session.outcome = None
        w.question.clear()
        w.searched_for.hide()
        w.thread_note.hide()
        w.errors.hide()
        w.banner.clear()
        w.sources.set_hits([])
        w.sources_title.setText("Sources")
        w.passage.clear()
        w.answer.begin(0)
        w.answer.stop()
        self.panel.set_current(None)
        w.status.say("New thread: the next question starts afresh.")
        w.focus_question()

    @Slot(str)
    def open_thread(self, thread_id: str) -> None:
        """Reopen a thread: its answers, sources and highlights, the last one shown."""
        self.history.load_thread(thread_id)

    def discard_thread(self, thread_id: str) -> None:
        """Remove a thread the person did not want (a new topic they continued elsewhere),
        without asking: it holds only the question they are asking again."""
        if thread_id == self.window.thread_id:
            self.window.thread_id = None
            self.panel.set_current(None)
        self.history.delete_thread(thread_id, self.panel.search_text())

    @Slot(object)
    def _on_loaded(self, loaded: ThreadLoaded) -> None:
        if loaded.thread_id in self._list_only and not loaded.error and loaded.info is not None:
            self._list_only.discard(loaded.thread_id)
            if loaded.thread_id == self.window.thread_id:  # still the open one: list its turns
                self.loaded = loaded
                self.panel.set_current(loaded.thread_id, loaded.turns)
            return
        if loaded.error or loaded.info is None:
            self.panel.show_message(loaded.error or "That thread is gone.")
            self.refresh()
            return
        self.loaded = loaded
        self.window.thread_id = loaded.thread_id
        self.panel.set_current(loaded.thread_id, loaded.turns)
        if loaded.turns:
            self.show_turn(loaded.turns[-1].n)

    @Slot(int)
    def show_turn(self, n: int) -> None:
        """Show turn ``n`` of the reopened thread as it was answered."""
        loaded = self.loaded
        turn = next((t for t in loaded.turns if t.n == n), None) if loaded else None
        if loaded is None or turn is None:
            return
        w = self.window
        outcome = outcome_from_turn(turn, loaded.thread_id, loaded.states)
        w.session.cancel()
        w.session.outcome = None
        w.errors.hide()
        w.question.setText(turn.question)
        w.banner.clear()
        w.answer.begin(0)
        w.searched_for.show_query(turn.search_query, "")
        w.on_searched(outcome)
        w.on_finished(outcome)
        changed = sum(1 for (t, _n) in loaded.states if t == n)
        if changed:
            w.status.say(
                f"{changed} of this answer's sources changed or were removed since; the quotes "
                "are the text as it was."
            )
        if turn.sources:
            w.nav.show_source(1)

    # -- deleting, exporting, copying ------------------------------------------------------
    def confirm_delete(self, title: str) -> bool:
        """Ask before a thread and its answers are deleted; True to delete."""
        box = QMessageBox(self.panel)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Delete thread")
        box.setTextFormat(Qt.TextFormat.PlainText)  # a title is the person's words, never markup
        box.setText(f"Delete the thread “{title}” and all its answers? This cannot be undone.")
        delete = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(box.addButton(QMessageBox.StandardButton.Cancel))
        box.exec()
        return box.clickedButton() is delete

    @Slot(str)
    def delete_thread(self, thread_id: str) -> None:
        title = "this conversation"
        for i in range(self.panel.threads.count()):
            item = self.panel.threads.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == thread_id:
                title = item.data(TITLE) or title
        if not self.confirm_delete(title):
            return
        if thread_id == self.window.thread_id:
            self.new_thread()
        self.history.delete_thread(thread_id, self.panel.search_text())

    def _title_of(self, thread_id: str) -> str:
        """The thread's title as the history panel shows it ('' when it is not listed)."""
        for i in range(self.panel.threads.count()):
            item = self.panel.threads.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == thread_id:
                return str(item.data(TITLE) or "")
        return ""

    def choose_export_path(self, suggested: str) -> str:
        path, _ = QFileDialog.getSaveFileName(
            self.panel, "Export thread", suggested, "Markdown (*.md)"
        )
        return path

    @Slot()
    def export_thread(self) -> None:
        """Save the open thread as Markdown with footnotes (Ctrl+E)."""
        thread_id = self.window.thread_id
        if thread_id is None:
            self.window.status.flash("No thread is open: ask a question, or open one.", 4000)
            return
        path = self.choose_export_path(export_name(self._title_of(thread_id), thread_id))
        if path:
            self.history.export_thread(thread_id, path)

    @Slot(object)
    def _on_exported(self, done: ThreadExported) -> None:
        if done.error:
            self.window.errors.show_message(f"The thread was not exported: {done.error}")
        else:
            self.window.status.flash(f"Exported to {done.path}", 6000)

    @Slot()
    def copy_answer(self) -> None:
        """Put the shown answer on the clipboard as Markdown with footnotes."""
        o = self.window.outcome
        if o is None or o.answer is None or not o.answer.text:
            self.window.status.flash("There is no answer to copy yet.", 4000)
            return
        turn = turn_from_answer(o.question, o.search_query or o.question, o.answer)
        turn.n = o.turn or 1
        text = thread_markdown(o.question, [turn])
        QApplication.clipboard().setText(text)
        self.window.status.flash("Copied the answer with its sources (Markdown).", 4000)

    @Slot(object)
    def _on_cleared(self, cleared: HistoryCleared) -> None:
        if cleared.error is None and self.window.thread_id is not None:
            self.new_thread()


def export_name(title: str, thread_id: str) -> str:
    """The file name the export dialog proposes: the thread's title, made safe for any file
    system ("What is capex?" -> "What is capex.md"); the id only for a thread with no title."""
    safe = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", title.splitlines()[0] if title else "")
    safe = " ".join(safe.split()).strip(" .")[:80].rstrip(" .")
    return f"{safe or 'footnotes-' + thread_id}.md"
