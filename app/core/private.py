"""Owner-only modes for the data directory: folders 0700, files 0600, tightened when opened.

The data directory holds every question asked, every answer and the text of every indexed
file, so no other local user may read any of it. Folders Footnotes creates (the data
directory and the parents it makes, as for the platform's default) are made 0700; an
existing data directory whose modes are wider is tightened when it is opened (what was
tightened is kept for ``footnotes doctor`` to report); and the process's umask is narrowed to
owner-only, so what SQLite (its -wal and -shm files), Chroma, the vector cache and the model
export create later is 0600 too. Footnotes writes nothing outside its data directory, so the
narrower umask costs nothing elsewhere.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
OTHERS = 0o077  # the group and other bits that must be clear


def make_private_dir(path: Path) -> list[Path]:
    """Create ``path`` and any missing parents owner-only; the folders it created."""
    missing: list[Path] = []
    here = path
    while not here.exists() and here != here.parent:
        missing.append(here)
        here = here.parent
    created = []
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:
            continue  # made by another process meanwhile: its modes are tightened below
        os.chmod(folder, PRIVATE_DIR)  # mkdir's mode is filtered by the umask
        created.append(folder)
    return created


def narrow_umask() -> None:
    """Make every file this process creates from now on owner-only (group/other bits off)."""
    old = os.umask(OTHERS)
    os.umask(old | OTHERS)


def too_open(root: Path) -> list[Path]:
    """Everything in ``root`` (itself included) that another user could read or enter."""
    found: list[Path] = []
    for path, st in _walk(root):
        if st.st_mode & OTHERS and not stat.S_ISLNK(st.st_mode):
            found.append(path)
    return found


def tighten(root: Path) -> list[Path]:
    """Clear the group/other bits of ``root`` and everything in it; what was changed.

    Links are not followed (a link in the data directory must not lead a chmod elsewhere);
    a file that cannot be changed (another owner's) is left for ``doctor`` to name.
    """
    changed: list[Path] = []
    for path in too_open(root):
        try:
            mode = stat.S_IMODE(os.lstat(path).st_mode)
            os.chmod(path, mode & ~OTHERS, follow_symlinks=False)
        except (OSError, NotImplementedError):
            continue
        changed.append(path)
    return changed


def secure(root: Path) -> list[Path]:
    """Create the data directory owner-only (or tighten the one there) and narrow the umask;
    the paths whose modes were tightened (what another user could read until now)."""
    make_private_dir(root)
    narrow_umask()
    return tighten(root)


def _walk(root: Path) -> list[tuple[Path, os.stat_result]]:
    """``root`` and everything below it with its lstat, never following links."""
    try:
        out = [(root, os.lstat(root))]
    except OSError:
        return []
    stack = [root] if stat.S_ISDIR(out[0][1].st_mode) else []
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            out.append((Path(entry.path), st))
            if stat.S_ISDIR(st.st_mode):
                stack.append(Path(entry.path))
    return out
