"""Live folder watching: watchdog events → debounced, coalesced changes → the indexer.

    watcher = Watcher(engine, on_progress=..., on_status=...)
    watcher.start()             # takes the writer lock; syncs every watched folder, then follows
    watcher.add_folder(path)    # saved in the manifest, watched and indexed
    watcher.remove_folder(path) # no longer watched; its passages leave the index
    watcher.wait_idle(timeout)  # True once nothing is pending (tests, benchmarks)
    watcher.stop()              # cancels the work in hand; what was written stays consistent

Threads: watchdog's threads only record paths in a ChangeQueue; one writer thread makes every
index write (indexer, manifest connection) in order. ``on_progress`` (indexer ``Progress``
events: indexed, removed, moved, failed, ...) and ``on_status`` (``WatchStatus``) run on that
writer thread, so a GUI re-emits them as signals. Search from a second Engine over the same
data directory: it has its own SQLite connection, and WAL lets it read while the watcher writes.

A path is re-indexed once no event touched it for ``quiet`` seconds (an editor's save storm is
one re-index), or ``max_wait`` after its first event if it keeps changing. A rename or move
inside the watched folders re-points manifest rows (``Indexer.move``: nothing is embedded); a
move out is a delete, a move in a create (a folder is scanned). If the OS refuses a native
watch (inotify limits: ENOSPC, EMFILE), that folder is polled instead and ``on_status`` says so
once. Symlinks are not followed out of a folder; the ignore rules apply to events too.
The engine keeps the writer lock after ``stop()`` until ``engine.close()``.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from watchdog import events as ev
from watchdog.events import FileSystemEvent, FileSystemEventHandler, FileSystemMovedEvent

from app.core.index.indexer import Cancelled, IndexReport, Progress
from app.core.ingest.loaders import is_supported
from app.core.ingest.scanning import is_within, no_longer_watched, normalize
from app.core.watch.change_queue import MAX_WAIT_S, QUIET_S, Batch, ChangeQueue

if TYPE_CHECKING:
    from watchdog.observers.api import BaseObserver, ObservedWatch

    from app.core.engine import Engine

log = logging.getLogger(__name__)

POLL_S = 2.0  # polling interval where native watching is refused
RECHECK_S = 5.0  # how often watched folders are checked for disappearing and coming back
RETRY_S = 5.0  # a change whose update failed (store unreachable, disk full) is retried after
WATCH_LIMIT_ERRNOS = frozenset({errno.ENOSPC, errno.EMFILE})
# Not "opened" or "closed without writing": reading a file to index it must not be an event.
EVENTS: list[type[FileSystemEvent]] = [
    ev.FileCreatedEvent,
    ev.FileModifiedEvent,
    ev.FileClosedEvent,
    ev.FileAttribEvent,
    ev.FileDeletedEvent,
    ev.FileMovedEvent,
    ev.DirCreatedEvent,
    ev.DirDeletedEvent,
    ev.DirMovedEvent,
]


@dataclass(frozen=True)
class WatchStatus:
    """What the watcher is doing, as a sentence for a status line."""

    state: str  # starting, syncing, updating, watching, polling, missing, error, stopped
    message: str
    folder: str = ""


@dataclass
class WatchStats:
    """Running totals since start (the start-up sync included)."""

    files_indexed: int = 0
    files_removed: int = 0
    files_moved: int = 0
    files_failed: int = 0
    chunks_embedded: int = 0
    batches: int = 0


def top_folders(folders: list[str]) -> list[str]:
    """Folders not inside another one of them (each needs one recursive watch)."""
    return [f for f in folders if not any(f != o and is_within(f, o) for o in folders)]


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        self.watcher._on_event(event)


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
        self._ops: deque[tuple[str, str]] = deque()
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._busy = True
        self._thread: threading.Thread | None = None
        self._folders: tuple[str, ...] = ()  # written by the writer thread only
        self._watches: dict[str, tuple[BaseObserver, ObservedWatch]] = {}
        self._observers: dict[str, BaseObserver] = {}
        self._said_polling: set[str] = set()
        self._unwatchable: set[str] = set()
        self._handler = _Handler(self)

    # -- public API (any thread) --------------------------------------------------------------
    def start(self) -> None:
        """Take the writer lock, then sync and follow the watched folders in the background."""
        if self._thread is not None:
            raise RuntimeError("the watcher was already started")
        self.engine.acquire_writer(self.writer_name)
        self._observer("native")
        self._thread = threading.Thread(target=self._run, name="footnotes-watcher", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop following changes; returns once the writer thread has finished its write."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        for observer in self._observers.values():
            observer.stop()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        for observer in self._observers.values():
            if observer.is_alive():
                observer.join(timeout)
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
        return list(self._folders)

    @property
    def polling_folders(self) -> list[str]:
        poll = self._observers.get("poll")
        return sorted(f for f, (observer, _) in self._watches.items() if observer is poll)

    @property
    def running(self) -> bool:
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
        root = self._root_of(path)
        if root is None or is_within(path, self._data_root):
            return False
        if self._rules.ignores(path, root):
            return False
        return is_dir or is_supported(path)

    def _root_of(self, path: str) -> str | None:
        return next((f for f in self._folders if is_within(path, f)), None)

    def _request(self, op: str, path: str) -> str:
        folder = normalize(path)
        with self._cond:
            self._ops.append((op, folder))
            self._cond.notify_all()
        return folder

    def _status(self, state: str, message: str, folder: str = "") -> None:
        try:
            self.on_status(WatchStatus(state, message, folder))
        except Exception:
            log.exception("on_status callback failed")

    # -- the writer thread --------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._startup()
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
        self._status("starting", "Loading the embedding model and checking the index...")
        indexer = self.engine.indexer(self._progress)
        indexer.repair()
        folders = self.engine.manifest.folders()
        self._folders = tuple(folders)
        self._reschedule()
        for folder in folders:  # an unplugged drive: its passages stay until it is back
            if not os.path.isdir(folder):
                self._status("missing", _missing(folder), folder)
        folders = [f for f in folders if os.path.isdir(f)]
        if folders:
            self._status("syncing", f"Looking for changes in {_n(len(folders), 'folder')}...")
            self.last_sync = report = indexer.sync(folders, cancel=self._stop)
            self._count(report)
            self._status(
                "watching",
                f"Watching {_n(len(folders), 'folder')}; start-up check: "
                f"{report.files_indexed} indexed, {report.files_unchanged} unchanged, "
                f"{report.files_removed} removed, {report.files_failed} failed.",
            )
        else:
            self._status("watching", "No folders to watch yet.")

    def _loop(self) -> None:
        next_check = time.monotonic() + RECHECK_S
        while True:
            with self._cond:
                while not self._stop.is_set():
                    now = time.monotonic()
                    due = self._queue.next_due()
                    if self._ops or (due is not None and due <= now) or now >= next_check:
                        break
                    if self._busy:
                        self._busy = False
                        self._cond.notify_all()
                    self._cond.wait(min(next_check, due if due is not None else next_check) - now)
                if self._stop.is_set():
                    return
                was_busy, self._busy = self._busy, True
                ops = list(self._ops)
                self._ops.clear()
                batch = self._queue.take(time.monotonic())
            for op, folder in ops:
                self._guarded(self._folder_op, op, folder)
            if (batch.moves or batch.paths) and not self._guarded(self._apply, batch):
                self._retry(batch)
            if time.monotonic() >= next_check:
                self._guarded(self._check_folders)
                next_check = time.monotonic() + RECHECK_S
            if (ops or batch.moves or batch.paths) and not was_busy:
                self._status("watching", f"Watching {_n(len(self._folders), 'folder')}.")

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

    def _retry(self, batch: Batch) -> None:
        """Check a failed batch's paths again a little later (a moved file: both its names)."""
        later = time.monotonic() + RETRY_S
        with self._cond:
            for path in [p for move in batch.moves for p in move] + batch.paths:
                self._queue.touch(path, later)

    def _apply(self, batch: Batch) -> None:
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
            self._status("updating", f"Updating {_n(len(keep), 'path')}...")
            self._count(indexer.update_paths(keep, cancel=self._stop))
        if drop:
            self.stats.files_removed += indexer.remove(drop)

    def _admissible(self, path: str) -> bool:
        """False for what a scan would skip: symlinked folders, anything resolving outside."""
        root = self._root_of(path)
        if root is None:
            return False
        if not os.path.lexists(path):
            return True  # gone: what was known there is removed
        real = os.path.realpath(path)
        return is_within(real, root) and not (os.path.islink(path) and os.path.isdir(real))

    def _count(self, report: IndexReport) -> None:
        for name in ("files_indexed", "files_removed", "files_failed", "chunks_embedded"):
            setattr(self.stats, name, getattr(self.stats, name) + getattr(report, name))

    def _progress(self, p: Progress) -> None:
        try:
            self.on_progress(p)
        except Exception:  # a broken listener must not break the index
            log.exception("on_progress callback failed")

    def _folder_op(self, op: str, folder: str) -> None:
        indexer = self.engine.indexer()
        self._unwatchable.discard(folder)
        if op == "add":
            self.engine.manifest.add_folder(folder)
            if folder not in self._folders:
                self._folders = (*self._folders, folder)
                self._reschedule()
            self._status("syncing", f"Indexing {folder}...", folder)
            self._count(indexer.update_paths([folder], cancel=self._stop))
            return
        self.engine.manifest.remove_folder(folder)
        self._folders = tuple(f for f in self._folders if f != folder)
        self._reschedule()
        known = self.engine.manifest.files_under(folder)
        doomed = no_longer_watched(folder, list(self._folders), known)
        if doomed:
            self.stats.files_removed += indexer.remove(doomed)

    # -- observers ---------------------------------------------------------------------------
    def _observer(self, kind: str) -> BaseObserver:
        if kind not in self._observers:
            if kind == "poll":
                from watchdog.observers.polling import PollingObserverVFS

                # lstat: symlinked folders are not walked (loops); ignored folders are skipped.
                observer: BaseObserver = PollingObserverVFS(
                    os.lstat, self._listdir, polling_interval=self.poll_interval
                )
            else:
                from watchdog.observers import Observer

                observer = Observer()
            observer.daemon = True
            observer.start()
            self._observers[kind] = observer
        return self._observers[kind]

    def _listdir(self, path: str | None) -> Iterator[os.DirEntry[str]]:
        with os.scandir(path) as entries:
            return iter([e for e in entries if not self._rules.ignores_name(e.name)])

    def _reschedule(self) -> None:
        wanted = [f for f in top_folders(list(self._folders)) if os.path.isdir(f)]
        for folder in [f for f in self._watches if f not in wanted]:
            self._unschedule(folder)
        for folder in wanted:
            if folder not in self._watches:
                self._schedule(folder)

    def _schedule(self, folder: str) -> None:
        """A native watch, else (watch limit reached, or refused) polling, said once."""
        kw: dict[str, Any] = {"recursive": True, "event_filter": EVENTS}
        reason = "native watching is turned off"
        if not self.force_polling:
            try:
                native = self._observer("native")
                before = inotify_watches()
                watch = native.schedule(self._handler, folder, **kw)
                self._watches[folder] = (native, watch)
                if before is not None and type(native).__name__ == "InotifyObserver":
                    _check_all_watched(folder, (inotify_watches() or 0) - before)
                return
            except OSError as exc:
                reason = exc.strerror or str(exc)
                if folder in self._watches:
                    self._unschedule(folder)
        try:
            poll = self._observer("poll")
            self._watches[folder] = (poll, poll.schedule(self._handler, folder, **kw))
        except OSError as exc:
            self._unwatchable.add(folder)  # not retried until it is added again
            self._status("error", f"Cannot watch {folder}: {exc.strerror or exc}", folder)
            return
        if folder not in self._said_polling:
            self._said_polling.add(folder)
            self._status(
                "polling",
                f"Cannot get change notices for {folder} ({reason}); "
                f"checking it every {self.poll_interval:g} s instead.",
                folder,
            )

    def _unschedule(self, folder: str) -> None:
        observer, watch = self._watches.pop(folder)
        with contextlib.suppress(KeyError, RuntimeError):  # its emitter ended with the folder
            observer.unschedule(watch)

    def _check_folders(self) -> None:
        """Notice a watched folder that disappeared (unmounted, deleted) or came back."""
        now = time.monotonic()
        for folder in top_folders(list(self._folders)):
            there = os.path.isdir(folder)
            if there == (folder in self._watches) or folder in self._unwatchable:
                continue
            if not there:
                self._unschedule(folder)
                self._status("missing", _missing(folder), folder)
                continue
            self._schedule(folder)
            with self._cond:  # back: whatever changed meanwhile is picked up
                self._queue.touch(folder, now - self._queue.max_wait)


def inotify_watches() -> int | None:
    """Inotify watches this process holds (from /proc/self/fdinfo); None where there is none."""
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return None
    count = 0
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:inotify":
                with open(f"/proc/self/fdinfo/{fd}", encoding="ascii") as fh:
                    count += sum(line.startswith("inotify wd:") for line in fh)
    return count


def _check_all_watched(folder: str, added: int) -> None:
    """watchdog only raises when the top folder cannot be watched; check the ones below too."""
    folders = 1 + sum(
        not os.path.islink(os.path.join(top, d)) for top, dirs, _ in os.walk(folder) for d in dirs
    )
    if folders - added > folders // 100:  # in a big tree a few may come and go meanwhile
        raise OSError(
            errno.ENOSPC,
            f"the system's watch limit allowed {added} of {folders} "
            "folders; see fs.inotify.max_user_watches",
        )


def _missing(folder: str) -> str:
    return (
        f"{folder} is missing (an unplugged drive?); its passages stay in the index and "
        "watching resumes when it is back."
    )


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")
