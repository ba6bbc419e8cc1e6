"""The service's indexing side: the core Watcher follows the folders; drops and pauses go here.

All index writes happen on the watcher's writer thread or, while it is stopped (paused) or for
dropped files, on the service's ``writer`` lane through the indexer (which holds its lock).
"""

from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING, Any

from app.ui.payloads import ErrorReport, FolderInfo, IndexSnapshot, SyncDone, SyncProgress

if TYPE_CHECKING:
    from app.core.config import Settings
    from app.core.indexer import Progress
    from app.core.watcher import Watcher, WatchStatus

BUSY_STATES = ("starting", "syncing", "updating")
SNAPSHOT_EVERY_S = 1.5
STOP_WAIT_S = 600.0  # a batch being embedded on a slow machine must be allowed to finish


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
    """Mixed into Service: follows watched folders, indexes drops, pauses and resumes."""

    _watcher: Watcher | None = None
    _drop_cancel: threading.Event | None = None
    _eta: EtaClock | None = None
    _last_snapshot = 0.0
    _snapshot_pending = False
    _watch_busy = False

    # -- requests (GUI thread) --------------------------------------------------------------
    def add_folder(self, path: str) -> None:
        """Watch ``path`` from now on and index it."""
        self._submit("writer", self._add_folder, path)

    def remove_folder(self, path: str) -> None:
        """Stop watching ``path``; its passages leave the index."""
        self._submit("writer", self._remove_folder, path)

    def index_paths(self, paths: list[str]) -> None:
        """Index these files once (dropped on the window); they are not watched."""
        self._submit("writer", self._index_files, list(paths))

    def set_paused(self, paused: bool) -> None:
        """Pause (stop the watcher, cancelling the sync in hand) or resume indexing."""
        if paused == self.state.paused:
            return
        self._update(paused=paused)
        if paused:
            self._cancel_indexing()
            self._submit("writer", self._stop_following)
        else:
            self._submit("writer", self._start_following)

    def refresh_snapshot(self) -> None:
        if not self._snapshot_pending:
            self._snapshot_pending = True
            self._submit("reader", self._snapshot)

    # -- the watcher (writer lane) ----------------------------------------------------------
    def _start_following(self) -> None:
        from app.core.watcher import Watcher

        engine = self.engine
        if engine is None or self.state.paused or not self.state.writable or self._stopping:
            return
        if self._watcher is not None and self._watcher.running:
            return
        self._eta = EtaClock()
        watcher = Watcher(
            engine, on_progress=self._on_progress, on_status=self._on_watch_status,
            writer_name="the Footnotes app",
        )
        watcher.start()
        self._watcher = watcher
        self.refresh_snapshot()

    def _stop_following(self) -> bool:
        """Stop the watcher and wait for its write in hand; False if it would not finish."""
        watcher, self._watcher = self._watcher, None
        stopped = True
        if watcher is not None:
            watcher.stop(timeout=5.0)  # sets its stop event; observer threads get 5 s each
            deadline = time.monotonic() + STOP_WAIT_S  # an embedding batch is not interrupted
            while watcher.running and time.monotonic() < deadline:
                time.sleep(0.05)
            stopped = not watcher.running
        self._watch_busy = False
        self._update(syncing=False, watching="")
        self.refresh_snapshot()
        return stopped

    def _cancel_indexing(self) -> None:
        if self._drop_cancel is not None:
            self._drop_cancel.set()

    def _on_watch_status(self, status: WatchStatus) -> None:
        busy = status.state in BUSY_STATES
        self._watch_busy = busy
        watching = status.state if status.state in ("watching", "polling") else ""
        self._update(syncing=busy, watching=watching or self.state.watching,
                     message=status.message, folder=status.folder if busy else "")
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

    # -- folder operations (writer lane) ----------------------------------------------------
    def _add_folder(self, path: str) -> None:
        engine = self.engine
        if engine is None or not self.state.writable:
            self.error_occurred.emit(ErrorReport("Indexing is off, so no folder can be added."))
            return
        try:
            if self._watcher is not None and self._watcher.running:
                self._watcher.add_folder(path)
            else:
                engine.add_folder(path)  # indexed when indexing resumes
        except OSError as exc:
            self.error_occurred.emit(ErrorReport(f"Cannot watch {path}: {exc}"))
        self.refresh_snapshot()

    def _remove_folder(self, path: str) -> None:
        engine = self.engine
        if engine is None or not self.state.writable:
            return
        if self._watcher is not None and self._watcher.running:
            self._watcher.remove_folder(path)
        else:
            from app.core.scanning import normalize

            folder = normalize(path)
            engine.manifest.remove_folder(folder)
            engine.indexer().remove([folder])
        self.refresh_snapshot()

    def _index_files(self, paths: list[str]) -> None:
        from app.core.indexer import Cancelled

        engine = self.engine
        if engine is None or not self.state.writable:
            self.error_occurred.emit(ErrorReport("Indexing is off, so files cannot be added."))
            return
        cancel = threading.Event()
        self._drop_cancel = cancel
        self._update(syncing=True)
        indexer = engine.indexer()
        indexer.progress = self._on_progress
        try:
            report = indexer.update_paths(paths, cancel=cancel)
        except Cancelled:
            self.sync_finished.emit(SyncDone(cancelled=True))
        except Exception as exc:
            self.error_occurred.emit(ErrorReport(f"Indexing the dropped files failed: {exc}"))
            self.sync_finished.emit(SyncDone(error=str(exc)))
        else:
            self.sync_finished.emit(
                SyncDone(report.files_indexed, report.files_failed, report.files_removed,
                         report.seconds)
            )
        finally:
            self._update(syncing=self._watch_busy)
            self.refresh_snapshot()

    def _apply_to_engine(self, old: Settings, new: Settings) -> None:
        from app.core.scanning import IgnoreRules

        engine = self.engine
        if engine is None:
            return
        engine.settings = new
        if old.ignore_patterns != new.ignore_patterns:
            restart = self._watcher is not None
            self._stop_following()
            engine.indexer().ignore = IgnoreRules(new.ignore_patterns)
            if restart:
                self._start_following()

    # -- snapshot (reader lane) -------------------------------------------------------------
    def _snapshot(self) -> None:
        self._snapshot_pending = False
        self._last_snapshot = time.monotonic()
        if self.engine is None or not self.data.manifest_path.exists():
            return
        manifest = self.reader()
        watcher = self._watcher
        polling = set(watcher.polling_folders) if watcher is not None else set()
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
                    status=self._folder_status(folder, exists, polling),
                    exists=exists,
                )
            )
        counts = manifest.counts()
        self.index_changed.emit(
            IndexSnapshot(folders, counts["files"], counts["chunks"], manifest.failures())
        )

    def _folder_status(self, folder: str, exists: bool, polling: set[str]) -> str:
        if not exists:
            return "missing"
        if not self.state.writable:
            return "read-only"
        if self.state.paused:
            return "paused"
        if folder in polling:
            return "polling"
        return "watching" if self._watcher is not None else "waiting"

    if TYPE_CHECKING:  # provided by Service
        state: Any
        engine: Any
        data: Any
        _stopping: bool
        error_occurred: Any
        sync_progressed: Any
        sync_finished: Any
        index_changed: Any

        def _submit(self, lane: str, fn: Any, *args: Any) -> Any: ...
        def _update(self, **changes: Any) -> None: ...
        def reader(self) -> Any: ...
