"""The folders a data directory indexes, kept beside the manifest so a rebuilt one has them all.

``roots.json`` holds two lists: the watched folders (the manifest's ``folders`` table, copied
here on every change) and every other path given to ``index`` (a folder, or a single file).
The manifest is the source of truth while it is sound; when it is damaged and set aside,
``footnotes repair`` reads the files again from these paths (their vectors, keyed by text,
are reused) and a new manifest starts with the same watched folders. Written atomically, and
only when it changes; a path at or below another of the same list is not kept twice.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from app.core.config import atomic_write_text
from app.core.ingest.scanning import is_within, within_any

ROOTS_FILE = "roots.json"
_VERSION = 1


@dataclass
class Roots:
    """The watched folders, and the other paths ``index`` was given."""

    watched: list[str] = field(default_factory=list)
    indexed: list[str] = field(default_factory=list)

    def all(self) -> list[str]:
        """Every path to read when the manifest is rebuilt, each once, outermost first."""
        return _outermost([*self.watched, *self.indexed])

    def __bool__(self) -> bool:
        return bool(self.watched or self.indexed)


def _outermost(paths: Iterable[str]) -> list[str]:
    """The paths without those at or below another one. Sorted by their parts, what lies
    below a path follows it at once ("/a", "/a/b", then "/a b"): one pass keeps the tops."""
    kept: list[str] = []
    for path in sorted(set(paths), key=lambda p: p.split(os.sep)):
        if not kept or not is_within(path, kept[-1]):
            kept.append(path)
    return kept


class RootsFile:
    """``roots.json`` of one data directory."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / ROOTS_FILE

    def exists(self) -> bool:
        return self.path.exists()

    def load(self) -> Roots:
        """What the file holds; empty when it is absent or unreadable (nothing to restore)."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            watched = [str(p) for p in raw.get("watched", [])]
            indexed = [str(p) for p in raw.get("indexed", [])]
        except (OSError, ValueError, AttributeError, TypeError):
            return Roots()
        return Roots(sorted(set(watched)), _outermost(indexed))

    def save(self, roots: Roots) -> None:
        """Write it atomically (an ``OSError`` on a full disk reaches the caller)."""
        body = {"version": _VERSION, "watched": roots.watched, "indexed": roots.indexed}
        atomic_write_text(self.path, json.dumps(body, indent=1) + "\n")

    def _change(self, new: Roots, old: Roots) -> None:
        if (new.watched, new.indexed) != (old.watched, old.indexed) or not self.exists():
            self.save(new)

    def watch(self, folder: str) -> None:
        """``folder`` is watched from now on (paths indexed inside it need no entry of their
        own: they leave the index with it)."""
        old = self.load()
        indexed = [p for p in old.indexed if not is_within(p, folder)]
        self._change(Roots(sorted({*old.watched, folder}), indexed), old)

    def unwatch(self, folder: str) -> None:
        """``folder`` is no longer watched: neither it nor a path indexed inside it comes back."""
        old = self.load()
        watched = [f for f in old.watched if f != folder]
        indexed = [p for p in old.indexed if not is_within(p, folder)]
        self._change(Roots(watched, indexed), old)

    def indexed(self, paths: Iterable[str]) -> None:
        """These paths were given to ``index`` (those inside a watched folder need no entry)."""
        old = self.load()
        new = [p for p in paths if not within_any(p, old.watched)]
        if new or not self.exists():
            self._change(Roots(old.watched, _outermost([*old.indexed, *new])), old)

    def forget(self, paths: Iterable[str]) -> None:
        """These paths (and what lies below them) left the index on purpose."""
        gone = list(paths)
        old = self.load()
        indexed = [p for p in old.indexed if not within_any(p, gone)]
        self._change(Roots(old.watched, indexed), old)


def salvage(manifest: Path) -> Roots:
    """What can still be read of a damaged manifest's own lists: its watched folders and the
    files it held, row by row until SQLite stops. A file cut short is read from a copy whose
    header counts only the pages it still has (SQLite refuses the whole file otherwise)."""
    found = Roots()
    copy = manifest.with_name(f".salvage-{manifest.name}")
    try:
        data = bytearray(manifest.read_bytes())
        if len(data) >= 100:
            page_size = int.from_bytes(data[16:18], "big")
            page_size = 65536 if page_size == 1 else page_size
            if page_size:
                data[28:32] = (len(data) // page_size).to_bytes(4, "big")
        copy.write_bytes(bytes(data))
        wal = manifest.with_name(manifest.name + "-wal")
        if wal.exists():
            copy.with_name(copy.name + "-wal").write_bytes(wal.read_bytes())
        conn = sqlite3.connect(f"{copy.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
    except (OSError, sqlite3.Error):
        _remove_copy(copy)
        return found
    conn.text_factory = lambda raw: raw.decode("utf-8", "surrogateescape")
    try:
        found.watched = sorted(set(_rows(conn, "SELECT path FROM folders")))
        files = _rows(conn, "SELECT path FROM files")
        found.indexed = _outermost(p for p in files if not within_any(p, found.watched))
    finally:
        conn.close()
        _remove_copy(copy)
    return found


def _rows(conn: sqlite3.Connection, sql: str) -> list[str]:
    """The first column of each row SQLite can still read, in order, until it cannot."""
    out: list[str] = []
    with contextlib.suppress(sqlite3.Error):
        for row in conn.execute(sql):
            out.append(row[0])
    return out


def _remove_copy(copy: Path) -> None:
    for extra in ("", "-wal", "-shm"):
        copy.with_name(copy.name + extra).unlink(missing_ok=True)
