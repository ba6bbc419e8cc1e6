"""Walk folders for indexable files: ignore rules, no symlinks out of the folder, no loops."""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class FileStat:
    """A file found by a scan, with what change detection needs."""

    path: str
    size: int
    mtime_ns: int


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
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def within_any(path: str, folders: Iterable[str]) -> bool:
    return any(is_within(path, f) for f in folders)


def scan(
    root: str, rules: IgnoreRules, errors: list[tuple[str, str]] | None = None
) -> Iterator[FileStat]:
    """Every regular file under ``root`` that the rules keep.

    Symlinked folders are not entered (so loops cannot hang the scan); a symlinked file is
    kept only when its target lies inside ``root``. Unreadable folders are reported in ``errors``.
    """
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if errors is not None:
                errors.append((folder, f"folder could not be read: {exc.strerror or exc}"))
            continue
        subdirs = []
        for entry in entries:
            if rules.ignores_name(entry.name):
                continue
            try:
                if entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    if not is_within(target, root) or os.path.isdir(target):
                        continue
                    st = os.stat(entry.path)
                elif entry.is_dir(follow_symlinks=False):
                    subdirs.append(entry.path)
                    continue
                else:
                    st = entry.stat(follow_symlinks=False)
            except OSError:
                continue  # vanished between listing and stat: the next event or scan sees it
            if not stat.S_ISREG(st.st_mode):
                continue
            if rules.has_path_patterns and rules.ignores(entry.path, root):
                continue
            yield FileStat(entry.path, st.st_size, st.st_mtime_ns)
        stack.extend(reversed(subdirs))
