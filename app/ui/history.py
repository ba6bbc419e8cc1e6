"""The window's side of conversation history: the thread store, used from the service's lanes.

The core Ask operation plans and records each turn in this store (the service hands it over);
here the reader lane lists, loads, deletes, clears and exports threads. Results come back as
signals with one dataclass each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.core.config import DataDir, Settings
from app.core.errors import HistoryError
from app.core.threads.export import source_state, thread_markdown
from app.core.threads.export_file import ExportError, write_export
from app.core.threads.store import ThreadInfo, ThreadStore, Turn
from app.ui.background import Lanes


@dataclass(frozen=True)
class ThreadList:
    search: str
    threads: list[ThreadInfo] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True)
class ThreadLoaded:
    thread_id: str
    info: ThreadInfo | None
    turns: list[Turn] = field(default_factory=list)
    error: str | None = None
    states: dict[tuple[int, int], str] = field(default_factory=dict)  # (turn, n) -> changed


@dataclass(frozen=True)
class ThreadExported:
    path: str
    error: str | None = None


@dataclass(frozen=True)
class HistoryCleared:
    count: int
    error: str | None = None


class History(QObject):
    """The thread store behind the window; every call runs in a service lane."""

    threads_listed = Signal(object)  # ThreadList
    thread_loaded = Signal(object)  # ThreadLoaded
    history_cleared = Signal(object)  # HistoryCleared
    thread_exported = Signal(object)  # ThreadExported

    def __init__(
        self,
        data: DataDir,
        settings: Callable[[], Settings],
        lanes: Lanes,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.store = ThreadStore(data.threads_path)
        self.data_dir = data.root  # an export is never written inside it
        self._settings = settings
        self._lanes = lanes

    @property
    def enabled(self) -> bool:
        return self._settings().history_enabled

    # -- the reader lane -------------------------------------------------------------------
    def list_threads(self, search: str = "") -> None:
        """List threads (matching ``search``); answered by ``threads_listed``."""
        self._lanes.submit("reader", self._list, search)

    def _list(self, search: str) -> None:
        try:
            self.threads_listed.emit(ThreadList(search, self.store.list_threads(search)))
        except HistoryError as exc:
            self.threads_listed.emit(ThreadList(search, error=str(exc)))

    def load_thread(self, thread_id: str) -> None:
        """Read a thread's turns; answered by ``thread_loaded``."""
        self._lanes.submit("reader", self._load, thread_id)

    def _load(self, thread_id: str) -> None:
        try:
            info = self.store.get(thread_id)
            turns = self.store.turns(thread_id) if info is not None else []
            states = {
                (t.n, s.n): state
                for t in turns
                for s in t.sources
                if (state := source_state(s, t.created))
            }
            self.thread_loaded.emit(ThreadLoaded(thread_id, info, turns, states=states))
        except HistoryError as exc:
            self.thread_loaded.emit(ThreadLoaded(thread_id, None, error=str(exc)))

    def delete_thread(self, thread_id: str, search: str = "") -> None:
        """Delete a thread, then list the threads again."""
        self._lanes.submit("reader", self._delete, thread_id, search)

    def _delete(self, thread_id: str, search: str) -> None:
        try:
            self.store.delete(thread_id)
        except HistoryError as exc:
            self.threads_listed.emit(ThreadList(search, error=str(exc)))
            return
        self._list(search)

    def clear(self) -> None:
        """Remove every thread; answered by ``history_cleared`` (with how many)."""
        self._lanes.submit("reader", self._clear)

    def _clear(self) -> None:
        try:
            self.history_cleared.emit(HistoryCleared(self.store.clear()))
        except HistoryError as exc:
            self.history_cleared.emit(HistoryCleared(0, str(exc)))
        self._list("")

    def export_thread(self, thread_id: str, path: str) -> None:
        """Write the thread as Markdown with footnotes to ``path``; answered by
        ``thread_exported``."""
        self._lanes.submit("reader", self._export, thread_id, path)

    def _export(self, thread_id: str, path: str) -> None:
        try:
            info = self.store.get(thread_id)
            if info is None:
                raise HistoryError("that thread was deleted")
            text = thread_markdown(info.title, self.store.turns(thread_id), thread_id=thread_id)
            # the save dialog has asked before replacing a file
            write_export(Path(path), text, self.data_dir, replace=True)
        except (HistoryError, ExportError, OSError) as exc:
            self.thread_exported.emit(ThreadExported(path, str(exc)))
            return
        self.thread_exported.emit(ThreadExported(path))

    def close(self) -> None:
        self.store.close()
