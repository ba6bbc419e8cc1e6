"""The OS side of watching: watchdog observers, with polling where native watches are refused.

One recursive watch per top folder. If the OS refuses a native watch (inotify limits: ENOSPC,
EMFILE), that folder is polled instead and the status says so once. A folder that cannot be read
(unmounted, deleted, permission denied) loses its watch and gets it back when it returns; the
watcher says so.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from watchdog import events as ev
from watchdog.events import FileSystemEvent, FileSystemEventHandler

from app.core.index.availability import folder_problem
from app.core.ingest.scanning import IgnoreRules, is_within
from app.core.watch.status import StatusFn

if TYPE_CHECKING:
    from watchdog.observers.api import BaseObserver, ObservedWatch

POLL_S = 2.0  # polling interval where native watching is refused
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


def top_folders(folders: list[str]) -> list[str]:
    """Folders not inside another one of them (each needs one recursive watch)."""
    return [f for f in folders if not any(f != o and is_within(f, o) for o in folders)]


class _Handler(FileSystemEventHandler):
    """Passes every watchdog event to one callback (it runs on watchdog's threads)."""

    def __init__(self, on_event: Callable[[FileSystemEvent], None]) -> None:
        self.on_event = on_event

    def on_any_event(self, event: FileSystemEvent) -> None:
        """Hand the event on."""
        self.on_event(event)


class FolderWatches:
    """The watches on the top folders; changed from one thread (``polling_folders``: any)."""

    def __init__(
        self,
        on_event: Callable[[FileSystemEvent], None],
        rules: IgnoreRules,
        status: StatusFn,
        *,
        poll_interval: float = POLL_S,
        force_polling: bool = False,
    ) -> None:
        self._handler = _Handler(on_event)
        self._rules = rules
        self._status = status
        self.poll_interval = poll_interval
        self.force_polling = force_polling
        self._watches: dict[str, tuple[BaseObserver, ObservedWatch]] = {}
        self._observers: dict[str, BaseObserver] = {}
        self._said_polling: set[str] = set()
        self._unwatchable: set[str] = set()

    def start(self) -> None:
        """Start the native observer, so a failure to do so surfaces before any thread runs."""
        self._observer("native")

    def stop(self) -> None:
        """Tell every observer to stop (``join`` waits for them)."""
        for observer in self._observers.values():
            observer.stop()

    def join(self, timeout: float) -> None:
        """Wait for the stopped observers' threads."""
        for observer in self._observers.values():
            if observer.is_alive():
                observer.join(timeout)

    @property
    def polling_folders(self) -> list[str]:
        """Folders watched by polling, not by native notices."""
        poll = self._observers.get("poll")
        return sorted(f for f, (observer, _) in self._watches.items() if observer is poll)

    def retry(self, folder: str) -> None:
        """Try ``folder`` again even if it could not be watched before (it was added again)."""
        self._unwatchable.discard(folder)

    def reschedule(self, folders: Iterable[str]) -> None:
        """Watch exactly the top folders of ``folders`` that can be read."""
        wanted = [f for f in top_folders(list(folders)) if folder_problem(f) is None]
        for folder in [f for f in self._watches if f not in wanted]:
            self._unschedule(folder)
        for folder in wanted:
            if folder not in self._watches:
                self._schedule(folder)

    def check(self, folders: Iterable[str]) -> list[str]:
        """Notice watched folders that became unreadable or came back; returns the ones back."""
        back = []
        for folder in top_folders(list(folders)):
            there = folder_problem(folder) is None
            if there == (folder in self._watches) or folder in self._unwatchable:
                continue
            if not there:
                self._unschedule(folder)
                continue
            self._schedule(folder)
            back.append(folder)
        return back

    def _observer(self, kind: str) -> BaseObserver:
        """The native or the polling observer, started on first use."""
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
        """A folder's entries for the polling observer, ignored names left out."""
        with os.scandir(path) as entries:
            return iter([e for e in entries if not self._rules.ignores_name(e.name)])

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
        """Drop ``folder``'s watch (quietly if its emitter already ended with the folder)."""
        observer, watch = self._watches.pop(folder)
        with contextlib.suppress(KeyError, RuntimeError):
            observer.unschedule(watch)


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
