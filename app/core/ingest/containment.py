"""Containment at open time: where an open file really lies, checked against where it must.

A scan checks where a path leads, but the file is read later: a symbolic link swapped in
between would let the reader follow it out of the watched folder (or into Footnotes' own data
folder). So the reader opens first, asks the descriptor where it really is (``/proc/self/fd``
on Linux, ``F_GETPATH`` on macOS; elsewhere the resolved path must be the very file opened, by
device and inode), and only then reads, from that same descriptor.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from app.core.ingest.scanning import is_within, within_any

OUTSIDE = "it leads out of the watched folder (a symbolic link changed as it was read); not read"
DATA_DIR = "it lies in Footnotes' own data folder, which is never indexed"
MOVED = "it was replaced while it was read; it is read again on the next sync"


def descriptor_path(fd: int) -> str | None:
    """The real path of an open file as the OS knows it, or None where it cannot say."""
    if sys.platform.startswith("linux"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return None
        if target.endswith(" (deleted)"):  # unlinked after it was opened: where it was
            target = target[: -len(" (deleted)")]
        return target if target.startswith("/") else None  # "pipe:[…]", "anon_inode:…"
    if sys.platform == "darwin":
        import fcntl

        try:
            raw = fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024))
        except OSError:
            return None
        return os.fsdecode(raw.split(b"\0", 1)[0]) or None
    return None


def real_path_of(fd: int, path: str) -> str | None:
    """Where the file open on ``fd`` (opened from ``path``) really lies; None when that cannot
    be told for sure (the path now leads to another file than the one open)."""
    found = descriptor_path(fd)
    if found is not None:
        return found
    real = os.path.realpath(path)
    try:
        same = os.path.samestat(os.fstat(fd), os.stat(real))
    except OSError:
        return None
    return real if same else None


def containment_problem(
    fd: int, path: str, within: str | None, excluded: Iterable[str] = ()
) -> str | None:
    """Why the file open on ``fd`` must not be read (outside ``within``, or inside one of the
    ``excluded`` folders), or None when it lies where it should."""
    excluded = list(excluded)
    if within is None and not excluded:
        return None
    real = real_path_of(fd, path)
    if real is None:
        return MOVED
    if within_any(real, excluded):
        return DATA_DIR
    if within is not None and not is_within(real, within):
        return OUTSIDE
    return None
