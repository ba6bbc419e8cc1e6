"""Live folder watching: watchdog events → debounced, coalesced changes → the indexer.

    watcher = Watcher(engine, on_progress=..., on_status=...)
    watcher.start()             # takes the writer lock; syncs every watched folder, then follows
    watcher.add_folder(path)    # saved in the manifest, watched and indexed
    watcher.remove_folder(path) # no longer watched; its passages leave the index
    watcher.wait_idle(timeout)  # True once nothing is pending (tests, benchmarks)
    watcher.stop()              # cancels the work in hand (the writer lock stays: engine.close)

Threads: watchdog's threads only record paths in a ChangeQueue; one writer thread makes every
index write in order, and computes waiting vectors in slices between changes, so a file saved
while a large folder is being embedded is searchable within seconds. ``on_progress`` and
``on_status`` run on that writer thread (a GUI re-emits them as signals). A second Engine over
the same data directory searches meanwhile (its own SQLite connection; WAL).

A path is re-indexed once no event touched it for ``quiet`` seconds (a save storm is one
re-index), or ``max_wait`` after its first event. A rename or move inside the watched folders
re-points manifest rows (nothing is embedded); a move out is a delete, a move in a create. A
folder whose native watch the OS refuses (inotify limits) is polled, and ``on_status`` says so.
Symlinks are not followed out; ignore rules apply to events. A folder that cannot be read is
unavailable, not gone (its passages stay); failed writes are retried on a backoff schedule.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from watchdog.events import FileSystemEvent, FileSystemMovedEvent

from app.core.index.report import Cancelled, IndexReport, Progress
from app.core.ingest.scanning import is_within, no_longer_watched, normalize
from app.core.text import counted
from app.core.watch.backoff import Backoff
from app.core.watch.change_queue import MAX_WAIT_S, QUIET_S, Batch, ChangeQueue
from app.core.watch.observers import POLL_S, FolderWatches
from app.core.watch.retrying import Retrier
from app.core.watch.status import FolderProblems, WatchState, WatchStats, WatchStatus

if TYPE_CHECKING:
    from app.core.engine import Engine

__all__ = ["WatchState", "WatchStats", "WatchStatus", "Watcher"]

log = logging.getLogger(__name__)

RECHECK_S = 5.0  # how often watched folders are checked for disappearing and coming back
PROBE_ID = "footnotes-probe"  # looked up to see whether the store answers again
SLICE = 2  # batches of vectors computed between two looks at new changes (a few seconds)
FolderOp = Literal["add", "remove"]


class Watcher:
    """Keeps the index equal to the watched folders; Qt-free, one writer thread."""

    def __init__(
        self,
        engine: Engine,
        *,
        on_progress: Callable[[Progress], None] | None = None,
        on_status: Callable[[WatchStatus], None] | None = None,
        quiet: float = QUIET_S,
        max_wait: float = MAX_WAIT_S,
        poll_interval: float = POLL_S,
        force_polling: bool = False,
        writer_name: str = "footnotes watch",
        backoff: Backoff | None = None,
    ) -> None:
        self.engine = engine
        self.on_progress = on_progress or (lambda p: None)
        self.on_status = on_status or (lambda s: None)
        self.poll_interval = poll_interval
        self.force_polling = force_polling
        self.writer_name = writer_name
        self.stats = WatchStats()
        self.last_sync: IndexReport | None = None  # the start-up sync
        self.error: str | None = None  # why the writer thread ended, if it failed
        self._rules = engine.indexer().ignore
        self._data_root = normalize(engine.data.root)
        self._queue = ChangeQueue(quiet, max_wait)
        self._ops: deque[tuple[FolderOp, str]] = deque()
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._busy = True
        self._thread: threading.Thread | None = None
        self._folders: tuple[str, ...] = ()  # written by the writer thread only
        self._vectors_waiting = False  # texts written wait for vectors: slices between changes
        self._problems = FolderProblems(self._status)  # watched folders that cannot be read
        server = bool(engine.settings.chroma_url)
        self._retrier = Retrier(
            backoff or Backoff(),
            server=server,
            probe=lambda: engine.store().existing([PROBE_ID]),  # one look-up, nothing read
            say=self._status,
            state_dir=engine.data.root,
        )
        self._watches = FolderWatches(
            self._on_event,
            self._rules,
            self._status,
            poll_interval=poll_interval,
            force_polling=force_polling,
        )

    # -- public API (any thread) --------------------------------------------------------------
    def start(self) -> None:
        """Take the writer lock, then sync and follow the watched folders in the background."""
        if self._thread is not None:
            raise RuntimeError("the watcher was already started")
        self.engine.acquire_writer(self.writer_name)
        self._watches.start()
        self._thread = threading.Thread(target=self._run, name="footnotes-watcher", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop following changes; returns once the writer thread has finished its write."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        self._watches.stop()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        self._watches.join(timeout)
        self._retrier.clear()
        self._status("stopped", "Stopped watching.")

    def add_folder(self, path: str) -> str:
        """Watch and index ``path`` from now on (saved in the manifest); returns its real path."""
        if not os.path.isdir(normalize(path)):
            raise NotADirectoryError(f"{path} is not a folder")
        return self._request("add", path)

    def remove_folder(self, path: str) -> str:
        """Stop watching ``path`` and remove its passages from the index."""
        return self._request("remove", path)

    @property
    def folders(self) -> list[str]:
        """The watched folders, as the writer thread last saw them."""
        return list(self._folders)

    @property
    def unavailable(self) -> dict[str, str]:
        """Watched folders that cannot be read now, with the reason (as last checked)."""
        return dict(self._problems.reasons)

    @property
    def polling_folders(self) -> list[str]:
        """Watched folders checked by polling because native watching was refused."""
        return self._watches.polling_folders

    @property
    def running(self) -> bool:
        """True while the writer thread runs (it ends on ``stop()`` or on an error)."""
        return self._thread is not None and self._thread.is_alive()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no change is pending or being applied; False on timeout or if stopped."""
        with self._cond:
            self._cond.wait_for(
                lambda: not self.running or not (self._busy or self._ops or len(self._queue)),
                timeout,
            )
            return self.running and not (self._busy or self._ops or len(self._queue))

    # -- events (watchdog threads) ------------------------------------------------------------
    def _on_event(self, event: FileSystemEvent) -> None:
        """Record a watchdog event's paths in the queue (on watchdog's threads)."""
        src, now = os.fsdecode(event.src_path), time.monotonic()
        old = self._wanted(src, event.is_directory)
        if isinstance(event, FileSystemMovedEvent):
            if event.is_synthetic:
                return  # a file inside a moved folder: the folder's move covers it
            dest = os.fsdecode(event.dest_path)
            new = self._wanted(dest, event.is_directory)
            with self._cond:
                if old and new:
                    self._queue.move(src, dest, now)
                elif old or new:  # moved out: a delete; moved in (or from an ignored name): new
                    self._queue.touch(src if old else dest, now)
                self._cond.notify_all()
        elif old:
            with self._cond:
                self._queue.touch(src, now)
                self._cond.notify_all()

    def _wanted(self, path: str, is_dir: bool) -> bool:
        """True for a path inside a watched folder that a scan would look at: every file the
        rules keep is indexed or counted as skipped, so a change to any of them matters."""
        root = self._root_of(path)
        if root is None or is_within(path, self._data_root):
            return False
        return not self._rules.ignores(path, root)

    def _root_of(self, path: str) -> str | None:
        """The watched folder that holds ``path``, if any."""
        return next((f for f in self._folders if is_within(path, f)), None)

    def _request(self, op: FolderOp, path: str) -> str:
        """Hand a folder change to the writer thread; returns the folder's real path."""
        folder = normalize(path)
        with self._cond:
            self._ops.append((op, folder))
            self._cond.notify_all()
        return folder

    def _status(self, state: WatchState, message: str, folder: str = "") -> None:
        """Tell ``on_status``; a broken listener is logged, never raised into the watcher."""
        try:
            self.on_status(WatchStatus(state, message, folder))
        except Exception:
            log.exception("on_status callback failed")

    # -- the writer thread --------------------------------------------------------------------
    def _run(self) -> None:
        """The writer thread: the start-up sync, then the loop, until stopped or failed."""
        try:
            self._retrier.start(self._startup, self._stop, self._cond)
            self._loop()
        except Cancelled:
            pass
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)
            self._status("error", f"Watching stopped: {self.error}")
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def _startup(self) -> None:
        """Repair the store, then sync every watched folder that can be read."""
        self._status("starting", "Loading the embedding model and checking the index...")
        indexer = self.engine.indexer(self._progress)
        self._vectors_waiting = indexer.vectors.repair() > 0
        folders = self.engine.manifest.folders()
        self._folders = tuple(folders)
        self._watches.reschedule(self._folders)
        for folder in folders:  # an unplugged drive: its passages stay until it is back
            self._problems.check(folder, self.engine.manifest)
        folders = [f for f in folders if f not in self._problems.reasons]
        if folders:
            self._status("syncing", f"Looking for changes in {counted(len(folders), 'folder')}...")
            self.last_sync = report = indexer.sync(folders, cancel=self._stop, drain=False)
            self._count(report)
            self._status(
                "watching",
                f"Watching {counted(len(folders), 'folder')}; start-up check: "
                f"{report.files_indexed} indexed, {report.unchanged_only} unchanged, "
                f"{report.files_removed} removed, {report.files_failed} failed.",
            )
        else:
            self._status("watching", "No folders to watch yet.")

    def _loop(self) -> None:
        """Apply folder requests and due changes in order; check the folders now and then."""
        next_check = time.monotonic() + RECHECK_S
        while True:
            with self._cond:
                while not self._stop.is_set():
                    now = time.monotonic()
                    due = self._queue.next_due()
                    wake = min(t for t in (next_check, due, self._retrier.retry_at) if t)
                    embedding = self._vectors_waiting and not self._retrier.waiting
                    if self._ops or wake <= now or embedding:
                        break
                    if self._busy:
                        self._busy = False
                        self._cond.notify_all()
                    self._cond.wait(wake - now)
                if self._stop.is_set():
                    return
                was_busy, self._busy = self._busy, True
                ops = list(self._ops)
                self._ops.clear()
                batch = self._queue.take(time.monotonic())
            for op, folder in ops:  # a folder added while the store is away: on the schedule
                if op == "add":
                    add = lambda b: self._folder_op("add", b.paths[0])  # noqa: E731
                    self._retrier.attempt(add, Batch([], [folder]))
                else:
                    self._guarded(self._folder_op, op, folder)
            if batch.moves or batch.paths:
                if self._retrier.waiting:  # the store is away: wait for the scheduled try
                    self._retrier.hold(batch.touched())
                else:
                    self._retrier.attempt(self._apply, batch)
            if self._retrier.due(time.monotonic()):
                self._retrier.retry(self._apply)
            if time.monotonic() >= next_check:
                self._guarded(self._check_folders)
                next_check = time.monotonic() + RECHECK_S
            if self._vectors_waiting and not self._retrier.waiting:  # between changes, a slice
                self._retrier.attempt(self._embed_slice, Batch([], []))
            if (ops or batch.moves or batch.paths) and not (was_busy or self._retrier.waiting):
                self._status("watching", f"Watching {counted(len(self._folders), 'folder')}.")

    def _guarded(self, fn: Callable[..., None], *args: Any) -> bool:
        """A failed step is reported and the watcher goes on; False if it failed."""
        try:
            fn(*args)
            return True
        except Cancelled:
            raise
        except Exception as exc:
            self._status("error", f"Could not update the index: {exc}")
            return False

    def _apply(self, batch: Batch) -> None:
        """Renames first (nothing embedded), then the changed paths, then links gone out."""
        indexer = self.engine.indexer()
        self.stats.batches += 1
        for src, dest in batch.moves:
            self.stats.files_moved += indexer.move(src, dest)
            with self._cond:  # confirm by a stat-only check once things settle
                self._queue.touch(dest, time.monotonic())
        keep: list[str] = []
        drop: list[str] = []  # links out of the folder: forget them if they were known
        for path in batch.paths:
            if self._admissible(path):
                keep.append(path)
            elif self._root_of(path) is not None:
                drop.append(path)
        if keep:
            self._status("updating", f"Updating {counted(len(keep), 'path')}...")
            self._count(indexer.update_paths(keep, cancel=self._stop, drain=False))
        if drop:
            self.stats.files_removed += indexer.remove(drop)
            self._vectors_waiting = True  # (the slice finds out) then the calibration

    def _admissible(self, path: str) -> bool:
        """False for what a scan would skip: symlinked folders, anything resolving outside."""
        root = self._root_of(path)
        if root is None:
            return False
        if not os.path.lexists(path):
            return True  # gone: what was known there is removed
        real = os.path.realpath(path)
        return is_within(real, root) and not (os.path.islink(path) and os.path.isdir(real))

    def _embed_slice(self, batch: Batch) -> None:
        """A few batches of waiting vectors; once none wait, the support flag's calibration
        is brought up to date (it measures only when the index grew or shrank by a fifth)."""
        vectors = self.engine.indexer().vectors
        self.stats.chunks_embedded += vectors.embed_pending(self._stop, max_batches=SLICE)
        self._vectors_waiting = vectors.waiting() > 0
        if not self._vectors_waiting:
            self.engine.refresh_calibration()

    def _count(self, report: IndexReport) -> None:
        """Add a sync's counts to the running totals; note the folders it could not read."""
        for name in ("files_indexed", "files_removed", "files_failed", "chunks_embedded"):
            setattr(self.stats, name, getattr(self.stats, name) + getattr(report, name))
        self._vectors_waiting = True  # the next slice finds out how many
        for folder, reason in report.unavailable:
            if folder in self._folders:
                self._problems.mark(folder, reason)

    def _progress(self, p: Progress) -> None:
        """Pass an indexer event to ``on_progress``, logging (not raising) a listener's error."""
        try:
            self.on_progress(p)
        except Exception:  # a broken listener must not break the index
            log.exception("on_progress callback failed")

    def _folder_op(self, op: FolderOp, folder: str) -> None:
        """Start watching and index a folder, or stop and forget what only it held."""
        indexer = self.engine.indexer()
        self._watches.retry(folder)
        if op == "add":
            self.engine.manifest.add_folder(folder)
            if folder not in self._folders:
                self._folders = (*self._folders, folder)
                self._watches.reschedule(self._folders)
            self._status("syncing", f"Indexing {folder}...", folder)
            self._count(indexer.update_paths([folder], cancel=self._stop, drain=False))
            return
        self.engine.manifest.remove_folder(folder)
        self._problems.reasons.pop(folder, None)
        self._folders = tuple(f for f in self._folders if f != folder)
        self._watches.reschedule(self._folders)
        known = self.engine.manifest.files_under(folder)
        doomed = no_longer_watched(folder, list(self._folders), known)
        if doomed:
            self.stats.files_removed += indexer.remove(doomed)

    def _check_folders(self) -> None:
        """Notice folders that became unreadable or came back, and ones `folders add` added."""
        back = set(self._watches.check(self._folders))
        back.update(f for f in self._folders if self._problems.check(f, self.engine.manifest))
        added = [f for f in self.engine.manifest.folders() if f not in self._folders]
        with self._cond:  # back: whatever changed meanwhile is picked up
            for folder in back:
                self._queue.touch(folder, time.monotonic() - self._queue.max_wait)
            self._ops.extend(("add", f) for f in added if ("add", f) not in self._ops)
