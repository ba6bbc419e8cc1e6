"""One writer per data directory: an advisory lock file naming the process that holds it.

The lock is the operating system's, so it dies with its holder, even by SIGKILL: ``flock``
on POSIX (Linux, macOS); on Windows, where there is no ``fcntl``, ``msvcrt.locking`` on one
byte far past the holder's note, so that the note itself stays readable by the process that
was refused (Windows byte-range locks also stop reads).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from app.core.errors import LockedError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
try:
    import msvcrt
except ImportError:  # POSIX
    msvcrt = None  # type: ignore[assignment]

FAR_BYTE = 1 << 30  # the byte locked where there is no flock: past any note ever written


def _try_lock(fh: IO[str]) -> bool:
    """Take the lock on ``fh`` without waiting; False if another process holds it."""
    if fcntl is not None:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    if msvcrt is not None:
        fh.seek(FAR_BYTE)
        try:
            msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        finally:
            fh.seek(0)
        return True
    raise OSError("this platform has neither fcntl nor msvcrt to lock the index with")


def _unlock(fh: IO[str]) -> None:
    if fcntl is not None:
        fcntl.flock(fh, fcntl.LOCK_UN)
    elif msvcrt is not None:
        fh.seek(FAR_BYTE)
        with contextlib.suppress(OSError):  # closing the file releases it too
            msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)


@contextlib.contextmanager
def held(path: Path, timeout_s: float = 60.0) -> Iterator[None]:
    """Hold the OS lock on ``path`` for a short section, waiting for another process to
    leave it first (at most ``timeout_s``; then OSError)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as fh:
        deadline = time.monotonic() + timeout_s
        while not _try_lock(fh):
            if time.monotonic() > deadline:
                raise OSError(f"{path} stayed locked by another process for {timeout_s:.0f} s")
            time.sleep(0.05)
        try:
            yield
        finally:
            _unlock(fh)


class WriterLock:
    """The OS lock on ``writer.lock``, which names its holder; released if the holder dies."""

    def __init__(self, path: Path, what: str) -> None:
        self.path = Path(path)
        self.what = what
        self._fh: IO[str] | None = None

    def acquire(self) -> WriterLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release()
        try:
            locked = _try_lock(fh)
        except BaseException:
            fh.close()
            raise
        if not locked:
            fh.seek(0)
            holder = fh.read().strip()
            fh.close()
            raise LockedError(describe_holder(holder, self.path.parent), holder_name(holder))
        self._fh = fh
        note = json.dumps({"pid": os.getpid(), "what": self.what, "since": time.time()})
        try:
            fh.seek(0)
            fh.truncate()
            fh.write(note)
            fh.flush()
        except OSError:  # a full disk: the lock is held all the same, its note stays empty
            with contextlib.suppress(OSError):
                fh.seek(0)
                fh.truncate()
        return self

    def release(self) -> None:
        if self._fh is not None:
            fh, self._fh = self._fh, None
            with contextlib.suppress(OSError):  # emptying the note frees space, never fails
                fh.seek(0)
                fh.truncate()
            _unlock(fh)
            with contextlib.suppress(OSError):  # closing flushes what a full disk refused
                fh.close()

    def __enter__(self) -> WriterLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def holder_name(raw: str) -> str:
    """Who holds the lock, from its note: "footnotes watch (process 812, since 09:14:03)"."""
    try:
        info = json.loads(raw)
        since = time.strftime("%H:%M:%S", time.localtime(info["since"]))
        return f"{info['what']} (process {info['pid']}, since {since})"
    except (ValueError, KeyError, TypeError):
        return "another Footnotes process"


def describe_holder(raw: str, data_dir: Path) -> str:
    """The command line's refusal: who holds the index, and the option that avoids it."""
    who = holder_name(raw)
    return (
        f"The index in {data_dir} is being updated by {who}; "
        "stop it first, or use a different --data-dir."
    )


def read_only_message(holder: str) -> str:
    """The window's note when another process holds the index: what still works, in words
    for a person (no command-line options)."""
    return (
        f"Footnotes is already open with this data folder: {holder} is indexing it. "
        "This window can ask questions but not index; to index here, close the other one "
        "and open Footnotes again."
    )
