"""Walk folders for indexable files: ignore rules, no symlinks out of the folder, no loops."""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from app.core.ingest.failures import FailureKind


@dataclass(frozen=True)
class FileStat:
    """A file found by a scan, with what change detection needs.

    ``error`` marks what the scan found but cannot index: a folder it may not list
    (``folder`` True) or a symbolic link that loops or leads nowhere; ``error_kind`` says which.
    ``within`` is the real folder the file must still lie in when it is opened (``plan``).
    """

    path: str
    size: int
    mtime_ns: int
    error: str | None = None
    folder: bool = False
    error_kind: FailureKind | None = None
    within: str | None = None


class IgnoreRules:
    """Glob patterns matched against each path component (``node_modules``, ``*.swp``, ``.*``).

    A pattern containing ``/`` is matched against the path relative to the watched folder.
    """

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = [p.strip() for p in patterns if p.strip() and not p.startswith("#")]
        self._names = [p for p in self.patterns if "/" not in p]
        self._paths = [p.strip("/") for p in self.patterns if "/" in p]
        self.has_path_patterns = bool(self._paths)

    def ignores_name(self, name: str) -> bool:
        """True when one path component (a file or folder name) is ignored."""
        return any(fnmatch.fnmatchcase(name, p) for p in self._names)

    def ignores(self, path: str, root: str | None = None) -> bool:
        """True when any component of ``path`` (below ``root``) is ignored."""
        rel = os.path.relpath(path, root) if root else path
        parts = [p for p in rel.split(os.sep) if p not in ("", ".")]
        if any(self.ignores_name(p) for p in parts):
            return True
        joined = "/".join(parts)
        return any(fnmatch.fnmatchcase(joined, p) for p in self._paths)


def normalize(path: str | os.PathLike[str]) -> str:
    """The absolute, symlink-resolved form of a path a person gave us."""
    return os.path.realpath(os.path.abspath(os.fspath(path)))


def is_within(path: str, folder: str) -> bool:
    """True when ``path`` is ``folder`` or lies below it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def within_any(path: str, folders: Iterable[str]) -> bool:
    """True when ``path`` lies in any of ``folders``."""
    return any(is_within(path, f) for f in folders)


def no_longer_watched(folder: str, watched: list[str], known: Iterable[str]) -> list[str]:
    """What leaves the index when ``folder`` is no longer watched: nothing if a watched folder
    holds it; else its ``known`` files outside the watched folders nested in it (or, with none
    nested, the folder itself)."""
    if within_any(folder, watched):
        return []
    if any(is_within(f, folder) for f in watched):
        return [p for p in known if not within_any(p, watched)]
    return [folder]


def _stat_or_zero(path: str) -> tuple[int, int]:
    """A path's (size, mtime_ns) without following links; zeros if it cannot be stat'ed."""
    try:
        st = os.lstat(path)
    except OSError:
        return 0, 0  # a path too long to name: change detection sees it as the same each time
    return st.st_size, st.st_mtime_ns


def link_problem(path: str, exc: OSError) -> FileStat:
    """A symbolic link that cannot be followed, with the reason."""
    if exc.errno == errno.ELOOP:
        reason = "it is a symbolic link that loops back on itself"
    elif exc.errno == errno.ENOENT:
        reason = "it is a symbolic link to a file that does not exist"
    else:
        reason = f"it is a symbolic link that cannot be followed: {exc.strerror or exc}"
    return FileStat(path, *_stat_or_zero(path), error=reason, error_kind=FailureKind.BROKEN_LINK)


def scan(root: str, rules: IgnoreRules, excluded: Iterable[str] = ()) -> Iterator[FileStat]:
    """Every regular file under ``root`` that the rules keep, and what could not be read.

    Symlinked folders are not entered (so loops cannot hang the scan); a symlinked file is
    kept only when its target lies inside ``root``. Nothing in the ``excluded`` real folders
    (the data directory) is yielded. A folder that cannot be listed and a link inside ``root``
    that loops or leads nowhere are yielded with ``error`` set.
    """
    excluded = [e for e in excluded if e]
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            reason = f"folder could not be read: {exc.strerror or exc}"
            kind = FailureKind.FOLDER_UNREADABLE
            yield FileStat(
                folder, *_stat_or_zero(folder), error=reason, folder=True, error_kind=kind
            )
            continue
        subdirs = []
        for entry in entries:
            if rules.ignores_name(entry.name) or within_any(entry.path, excluded):
                continue
            try:
                if entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    if not is_within(target, root) or os.path.isdir(target):
                        continue
                    if within_any(target, excluded):
                        continue
                    try:
                        st = os.stat(entry.path)
                    except OSError as exc:
                        if not (rules.has_path_patterns and rules.ignores(entry.path, root)):
                            yield link_problem(entry.path, exc)
                        continue
                elif entry.is_dir(follow_symlinks=False):
                    subdirs.append(entry.path)
                    continue
                else:
                    st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                    continue  # vanished between listing and stat: the next event or scan sees it
                yield FileStat(  # there, but the OS cannot say more now (EIO, a network share)
                    entry.path,
                    0,
                    0,
                    error=f"could not be read now: {exc.strerror or exc}",
                    error_kind=FailureKind.UNREADABLE,
                )
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            if rules.has_path_patterns and rules.ignores(entry.path, root):
                continue
            yield FileStat(entry.path, st.st_size, st.st_mtime_ns)
        stack.extend(reversed(subdirs))
