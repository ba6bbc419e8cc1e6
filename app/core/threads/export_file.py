"""Writing an export to the file a person named, and nowhere else.

The path must name a regular file (or nothing yet) in a folder that exists: never a FIFO, a
device, a socket or a folder; never a symbolic link (writing through it would change its
target, wherever that is); never anything inside the data directory (an export over
``manifest.sqlite3`` or ``threads.sqlite3`` would cost the index or the history); an existing
file only when replacing it was asked for. The text goes to a temporary file beside the
target, synced, then linked into place: without ``replace`` with ``os.link``, which fails if
something appeared there meanwhile, so nothing is ever overwritten unasked; with it, with
``os.replace``, which swaps the name and never writes through a link swapped in since.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from app.core.ingest.scanning import is_within


class ExportError(Exception):
    """The export was not written; the message says why and what to do instead."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_target(path: Path, data_dir: Path, *, replace: bool = False) -> Path:
    """The absolute path an export may be written to; ``ExportError`` with the reason when
    it may not (nothing is touched either way)."""
    target = Path(os.path.abspath(path))
    folder = target.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise ExportError(
            f"cannot write {path}: the folder {folder} {what}; create it first or choose "
            "another place"
        )
    real = Path(os.path.realpath(folder)) / target.name
    data = os.path.realpath(data_dir)
    if is_within(str(real), data) or is_within(str(target), os.path.abspath(data_dir)):
        raise ExportError(
            f"cannot write {path}: it is inside the data directory {data}, which holds the "
            "index and the history; choose a file outside it"
        )
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        raise ExportError(
            f"cannot write {path}: it is a symbolic link; give the path of the file itself"
        )
    if not stat.S_ISREG(st.st_mode):
        raise ExportError(f"cannot write {path}: it is {_kind(st.st_mode)}, not a file")
    if not replace:
        raise ExportError(
            f"{path} already exists; add --force to replace it, or choose another name"
        )
    return target


def write_export(path: Path, text: str, data_dir: Path, *, replace: bool = False) -> Path:
    """Write ``text`` (UTF-8) to ``path`` as ``check_target`` allows, atomically; the path
    written. ``ExportError`` when it may not be written or the write fails (a full disk): the
    target is then as it was."""
    target = check_target(path, data_dir, replace=replace)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        if replace:
            os.replace(tmp, target)
        else:
            os.link(tmp, target)  # fails if anything took the name since the check
    except FileExistsError:
        raise ExportError(
            f"{path} already exists; add --force to replace it, or choose another name"
        ) from None
    except OSError as exc:
        raise ExportError(
            f"cannot write {path}: {exc.strerror or exc}; nothing was changed"
        ) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)  # linked into place (or failed): the temporary name goes
    return target
