"""One writer per data directory: an advisory lock file naming the process that holds it."""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path
from typing import IO


class LockedError(Exception):
    """Another process is writing this index; the message names it."""


class WriterLock:
    """``flock`` on ``writer.lock``; released by the OS if the holder dies, even by SIGKILL."""

    def __init__(self, path: Path, what: str) -> None:
        self.path = Path(path)
        self.what = what
        self._fh: IO[str] | None = None

    def acquire(self) -> WriterLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release()
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip()
            fh.close()
            raise LockedError(describe_holder(holder, self.path.parent)) from None
        fh.seek(0)
        fh.truncate()
        fh.write(json.dumps({"pid": os.getpid(), "what": self.what, "since": time.time()}))
        fh.flush()
        self._fh = fh
        return self

    def release(self) -> None:
        if self._fh is not None:
            fh, self._fh = self._fh, None
            fh.seek(0)
            fh.truncate()
            fcntl.flock(fh, fcntl.LOCK_UN)
            fh.close()

    def __enter__(self) -> WriterLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def describe_holder(raw: str, data_dir: Path) -> str:
    try:
        info = json.loads(raw)
        since = time.strftime("%H:%M:%S", time.localtime(info["since"]))
        who = f"{info['what']} (process {info['pid']}, since {since})"
    except (ValueError, KeyError, TypeError):
        who = "another Footnotes process"
    return (
        f"The index in {data_dir} is being updated by {who}; "
        "stop it first, or use a different --data-dir."
    )
