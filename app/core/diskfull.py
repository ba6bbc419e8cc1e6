"""A full disk, told apart from other write failures, and the one sentence that says so.

SQLite says "database or disk is full" (SQLITE_FULL) or, when even its shared-memory file
cannot grow, "disk I/O error"; Python's own writes raise ``OSError`` with ``ENOSPC`` (or
``EDQUOT`` for a quota). Every write path of the engine turns these into ``DiskFullError``,
whose message is the same sentence wherever the write was: how much room is left, and that
the index is as its last finished write left it (each write is one transaction, or a vector
store call repeated by the next run).
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path

from app.core.errors import DiskFullError

FULL_BELOW_BYTES = 1 << 20  # less free space than this is a full disk for the index
_NO_ROOM = ("database or disk is full", "no space left on device", "disk quota exceeded")
_IO_ERROR = "disk i/o error"  # a full disk, or another fault: told apart by the free space


def free_bytes(where: Path) -> int | None:
    """Free bytes on the disk holding ``where`` (None when that cannot be asked)."""
    try:
        return shutil.disk_usage(where).free
    except OSError:
        return None


def is_disk_full(where: Path, exc: BaseException) -> bool:
    """Whether ``exc`` (from a write under ``where``) comes of its disk being full."""
    if isinstance(exc, DiskFullError):
        return True
    code = exc.errno if isinstance(exc, OSError) else None
    if code in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc).lower()
    if isinstance(exc, sqlite3.Error | OSError) and any(words in text for words in _NO_ROOM):
        return True
    if _IO_ERROR in text:
        free = free_bytes(where)
        return free is not None and free < FULL_BELOW_BYTES
    return False


def disk_full_message(where: Path, what: str = "") -> str:
    """The sentence for a write that found no room on the disk holding ``where`` (``what``
    names it: "the vector store ")."""
    free = free_bytes(where)
    if free is None:
        room = "no room left"
    else:
        room = f"{free / 1e6:.1f} MB free" if free >= 100_000 else f"{free // 1024:,} KB free"
    return (
        f"The disk holding {what}{where} is full ({room}): nothing was lost, the index is as its "
        "last finished write left it; free some space and run the command again."
    )


def disk_full_error(where: Path, exc: BaseException) -> DiskFullError | None:
    """``DiskFullError`` for ``exc`` when it comes of a full disk under ``where``, else None."""
    if isinstance(exc, DiskFullError):
        return exc
    return DiskFullError(disk_full_message(where)) if is_disk_full(where, exc) else None
