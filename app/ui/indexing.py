"""The service's indexing side: requests go to the engine process, its reports become signals.

Every index write happens in the engine process (``app.core.host.client``): its watcher
follows the folders, and folder changes, dropped files and pauses are sent to it in order.
Its messages arrive on the host's reader thread and are re-emitted as signals here.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import TYPE_CHECKING, Any

from app.ui.payloads import ErrorReport, FolderInfo, IndexSnapshot, SyncDone, SyncProgress

if TYPE_CHECKING:
    from app.core.host.client import DropDone, EngineHost
    from app.core.index.indexer import Progress
    from app.core.watch.watcher import WatchStatus

BUSY_STATES = ("starting", "syncing", "updating")
SNAPSHOT_EVERY_S = 1.5


class EtaClock:
    """Estimates the time left from files done so far in the current run."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.total = 0

    def plan(self, total: int) -> None:
        self.started, self.total = time.monotonic(), total

    def eta(self, done: int) -> float | None:
        elapsed = time.monotonic() - self.started
        if done < 2 or elapsed < 1.0 or self.total <= done:
            return None
        return (self.total - done) * elapsed / done


class IndexingMixin:
    """Mixed into Service: watched folders, dropped files, pause and resume, snapshots."""

    _eta: EtaClock | None = None
    _last_snapshot = 0.0
    _snapshot_pending = False
    _watch_busy = False
    _following = False
    _polling: frozenset[str] = frozenset()

    # -- requests (GUI thread) --------------------------------------------------------------
    def add_folder(self, path: str) -> None:
        """Watch ``path`` from now on and index it."""
        self._to_writer("add_folder", path, refusal="no folder can be added")

    def remove_folder(self, path: str) -> None:
        """Stop watching ``path``; its passages leave the index."""
        self._to_writer("remove_folder", path, refusal="no folder can be removed")

    def index_paths(self, paths: list[str]) -> None:
        """Index these files once (dropped on the window); they are not watched."""
        if self._to_writer("index", list(paths), refusal="files cannot be added"):
            self._update(syncing=True)

    def set_paused(self, paused: bool) -> None:
        """Pause (stop the watcher, cancelling the sync in hand) or resume indexing."""
        if paused == self.state.paused:
            return
        self._update(paused=paused)
        if paused:
            self._cancel_indexing()
        self._to_writer("pause" if paused else "resume", refusal="")

    def refresh_snapshot(self) -> None:
        if not self._snapshot_pending:
            self._snapshot_pending = True
            self._submit("reader", self._snapshot)

    def _to_writer(self, op: str, *args: Any, refusal: str) -> bool:
        from app.core.host.client import HostError

        host = self.host
        if host is None or not self.state.writable:
            if refusal:
                self.error_occurred.emit(ErrorReport(f"Indexing is off, so {refusal}."))
            return False
        try:
            host.send(op, *args)
        except HostError as exc:
            self.error_occurred.emit(ErrorReport(exc.args[0]))
            return False
        return True

    def _cancel_indexing(self) -> None:
        from app.core.host.client import HostError

        if self.host is not None:
            with contextlib.suppress(HostError):
                self.host.send("cancel_drop")

    # -- messages from the engine process (its reader thread) ------------------------------
    def _on_indexing_message(self, kind: str, payload: Any) -> bool:
        """Handle an indexing message; False if ``kind`` is not one."""
        if kind == "progress":
            self._on_progress(payload)
        elif kind == "status":
            status, self._following, polling = payload
            self._polling = frozenset(polling)
            self._on_watch_status(status)
        elif kind == "dropped":
            self._on_dropped(payload)
        else:
            return False
        return True

    def _on_watch_status(self, status: WatchStatus) -> None:
        busy = status.state in BUSY_STATES
        self._watch_busy = busy
        if status.state in ("watching", "polling"):
            watching = status.state
        else:  # busy keeps the last word; stopped (paused) clears it
            watching = self.state.watching if self._following else ""
        self._update(
            syncing=busy,
            watching=watching,
            message=status.message,
            folder=status.folder if busy else "",
        )
        if status.state == "error":
            self.error_occurred.emit(ErrorReport(status.message))
        if not busy:
            self.sync_finished.emit(SyncDone())
        self.refresh_snapshot()

    def _on_progress(self, p: Progress) -> None:
        eta = self._eta or EtaClock()
        self._eta = eta
        if p.event == "planned":
            eta.plan(p.total)
            if p.total:
                self._update(syncing=True)
        self.sync_progressed.emit(
            SyncProgress(p.done, p.total or eta.total, p.path, p.event, eta.eta(p.done), p.detail)
        )
        finished = p.event in ("indexed", "unchanged", "failed") and p.done >= p.total > 0
        if finished or (p.event == "planned" and not p.total):
            # the run's last file (or nothing to do): the watcher may not report idle for it
            self._update(syncing=False)
            self.sync_finished.emit(SyncDone())
            self.refresh_snapshot()
        else:
            overdue = time.monotonic() - self._last_snapshot > SNAPSHOT_EVERY_S
            if overdue or p.event in ("removed", "moved"):
                self.refresh_snapshot()

    def _on_dropped(self, done: DropDone) -> None:
        if done.error:
            self.error_occurred.emit(ErrorReport(done.error))
            self.sync_finished.emit(SyncDone(error=done.error))
        elif done.cancelled:
            self.sync_finished.emit(SyncDone(cancelled=True))
        else:
            r = done.report
            self.sync_finished.emit(
                SyncDone(r.files_indexed, r.files_failed, r.files_removed, r.seconds)
            )
        self._update(syncing=self._watch_busy)
        self.refresh_snapshot()

    # -- snapshot (reader lane) -------------------------------------------------------------
    def _snapshot(self) -> None:
        self._snapshot_pending = False
        self._last_snapshot = time.monotonic()
        if not self.state.engine_ready or not self.data.manifest_path.exists():
            return
        manifest = self.reader()
        folders = []
        for folder in manifest.folders():
            records = manifest.files_under(folder).values()
            exists = os.path.isdir(folder)
            folders.append(
                FolderInfo(
                    path=folder,
                    files=len(records),
                    indexed=sum(r.status == "indexed" for r in records),
                    failed=sum(r.status == "failed" for r in records),
                    passages=sum(r.chunks for r in records),
                    status=self._folder_status(folder, exists),
                    exists=exists,
                )
            )
        counts = manifest.counts()
        self.index_changed.emit(
            IndexSnapshot(folders, counts["files"], counts["chunks"], manifest.failures())
        )

    def _folder_status(self, folder: str, exists: bool) -> str:
        if not exists:
            return "missing"
        if not self.state.writable:
            return "read-only"
        if self.state.paused:
            return "paused"
        if folder in self._polling:
            return "polling"
        return "watching" if self._following else "waiting"

    if TYPE_CHECKING:  # provided by Service
        state: Any
        host: EngineHost | None
        data: Any
        error_occurred: Any
        sync_progressed: Any
        sync_finished: Any
        index_changed: Any

        def _submit(self, lane: str, fn: Any, *args: Any) -> Any: ...
        def _update(self, **changes: Any) -> None: ...
        def reader(self) -> Any: ...
