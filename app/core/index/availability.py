"""Whether a watched folder can be read now: unavailable is not gone.

A watched folder that cannot be read (an unplugged drive or a missing mount, permission
denied, an I/O error, a stale network handle) keeps its passages until it is back or the person
removes it with ``folders remove``; only a path that is gone from a folder that *can* be read is
a deletion. A folder the index holds files of that is now entirely empty counts as unavailable
too: that is what the mount point of a drive that is not mounted looks like. Every front end
(``index``, ``status``, the watcher, the window) asks this one function, so they agree on which
folders are unavailable and why.
"""

from __future__ import annotations

import errno
import os
import stat

GONE_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR})


def reason_for(exc: OSError) -> str:
    """A short reason a person reads, for an OS error on a watched folder."""
    if exc.errno in GONE_ERRNOS:
        return "not found (an unplugged drive, or a folder moved or deleted?)"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EIO:
        return "input/output error (a failing disk or a lost connection?)"
    if exc.errno == errno.ESTALE:
        return "stale network file handle (the share was remounted?)"
    if exc.errno == errno.ENOTCONN:
        return "not connected (a network share or FUSE mount that went away?)"
    return (exc.strerror or str(exc)).lower()


EMPTIED = "empty, though files of it are indexed (a drive or share not mounted there?)"


def folder_problem(folder: str, indexed: bool = False) -> str | None:
    """Why ``folder`` cannot be read now, or None when it can be listed. ``indexed``: the
    index holds files of it, so a folder with nothing in it at all is not there either."""
    try:
        st = os.stat(folder)
        if not stat.S_ISDIR(st.st_mode):
            return "no longer a folder"
        with os.scandir(folder) as entries:  # opening is what a missing permission refuses
            if indexed and next(entries, None) is None:
                return EMPTIED
    except OSError as exc:
        return reason_for(exc)
    return None


def unavailable_message(folder: str, reason: str) -> str:
    """The status sentence for a watched folder that cannot be read."""
    return (
        f"{folder} is unavailable ({reason}); its passages stay in the index and "
        "watching resumes when it is back."
    )
