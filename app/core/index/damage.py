"""Damaged files in the data directory: finding them cheaply, and setting one aside.

A SQLite file is damaged when its header is not SQLite's, or when SQLite itself, reading it
with its ``-wal``, calls it malformed; one shorter than its header says (cut short by a copy)
is damaged only once SQLite agrees, since a checkpoint a full disk stopped leaves the same
short file with every page still in its ``-wal``. An empty manifest beside other state
(vectors in ``chroma/``, threads, the vector cache) is damage too: taking it for a new index
would call every vector an orphan.
A damaged file is renamed ``NAME.damaged-<time>`` (with its ``-wal``/``-shm`` side files), so
nothing is lost and the next run starts clean where that is safe.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.core.config import DataDir
from app.core.errors import DamagedError
from app.core.index.matrix_cache import CACHE_FILE

SQLITE_HEADER = b"SQLite format 3\x00"


@dataclass(frozen=True)
class Damage:
    """One damaged file, why, and the command that repairs it."""

    path: Path
    why: str
    repair: str

    def __str__(self) -> str:
        return f"{self.path} is damaged ({self.why}); repair: {self.repair}"


def sqlite_problem(path: Path, *, deep: bool = False) -> str | None:
    """Why the SQLite file at ``path`` cannot be read (None when it can, or is absent).

    Reads the 100-byte header and the file's size first. A file shorter than its header says
    is only a suspicion: a checkpoint that a full disk cut short leaves exactly that, with
    every page still in the ``-wal`` beside it, so SQLite itself (which reads the file with its
    ``-wal`` and ``-shm``) is asked to check it before it is called damaged. ``deep`` asks
    SQLite for that check whatever the header says (for small files: it reads every page).
    """
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            header = fh.read(100)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"it cannot be read: {exc.strerror or exc}"
    if size == 0:
        return "it is empty"
    if len(header) < 100 or not header.startswith(SQLITE_HEADER):
        return "it is not a SQLite database"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    suspicion = None
    # The header's page count is valid when its "version valid for" matches the change counter.
    if header[24:28] == header[92:96] and pages and size < pages * page_size:
        suspicion = f"it is cut short: {size:,} of {pages * page_size:,} bytes"
    if suspicion is None and not deep:
        return None
    verdict = sqlite_check(path)
    if verdict is None or verdict is CANNOT_TELL:
        return None  # SQLite reads it whole (with its -wal), or cannot tell now: not damage
    return suspicion or verdict


CANNOT_TELL = "cannot tell"  # SQLite could not open the file to check it (locked, disk full)


def sqlite_check(path: Path) -> str | None:
    """SQLite's own quick check of the file with its ``-wal`` (read-only): None when sound,
    its complaint when not, ``CANNOT_TELL`` when the file could not be opened to check (held
    by a writer, a full disk): then nothing is concluded."""
    try:
        uri = f"{path.resolve().as_uri()}?mode=ro"
        with _closing(sqlite3.connect(uri, uri=True, timeout=5.0)) as conn:
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.OperationalError as exc:
        if "malformed" not in str(exc) and "not a database" not in str(exc):
            return CANNOT_TELL  # locked, or a full disk: not damage
        return f"SQLite reports: {exc}"
    except sqlite3.DatabaseError as exc:
        return f"SQLite reports: {exc}"
    if verdict != "ok":
        return f"SQLite's check failed: {verdict}"
    return None


class _closing:
    """A sqlite3 connection closed on leaving (its own context manager only commits)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.close()


def other_state(data: DataDir) -> list[str]:
    """What besides the manifest holds this index's state (an empty manifest beside any of it
    is damage, not a new index)."""
    found = []
    chroma = data.chroma_path / "chroma.sqlite3"
    if chroma.exists() and chroma.stat().st_size > 0:
        found.append(f"the vector store {data.chroma_path}")
    if data.threads_path.exists() and data.threads_path.stat().st_size > 0:
        found.append(f"the history {data.threads_path.name}")
    if (data.root / CACHE_FILE).exists():
        found.append(f"the vector cache {CACHE_FILE}")
    return found


def _cache_problem(path: Path) -> str | None:
    """Why the vector cache cannot be read (it is rebuilt from the store when so)."""
    try:
        with np.load(path, allow_pickle=False) as cache:
            cache["ids"].shape, cache["vectors"].shape, str(cache["token"])
    except Exception as exc:  # any failure of numpy's reader is damage to a cache
        return f"it cannot be read: {str(exc) or type(exc).__name__}"
    return None


def set_aside_manifests(data: DataDir) -> list[Path]:
    """Damaged manifests set aside earlier, oldest first."""
    return sorted(data.root.glob(f"{data.manifest_path.name}.damaged-*[0-9]"))


def manifest_problem(data: DataDir, *, creating: bool = False) -> str | None:
    """Why the manifest must not be opened (None when it is sound, or absent). An absent one
    whose damaged copy was set aside is only made anew by a writer (``creating``: ``index``),
    so a reading command never shows an empty index in its place."""
    if not data.manifest_path.exists():
        if creating or not set_aside_manifests(data) or not other_state(data):
            return None
        return f"it was set aside as {set_aside_manifests(data)[-1].name} and not rebuilt yet"
    why = sqlite_problem(data.manifest_path)
    if why == "it is empty" and not other_state(data):
        return None  # a new data directory (SQLite creates the file before its first table)
    return why


def set_aside(path: Path) -> Path:
    """Rename a damaged file (and its SQLite side files) to ``NAME.damaged-<time>``."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    os.replace(path, aside)
    for side in ("-wal", "-shm", "-journal"):
        extra = path.with_name(path.name + side)
        if extra.exists():
            os.replace(extra, aside.with_name(aside.name + side))
    return aside


def refuse_manifest(data: DataDir, why: str) -> DamagedError:
    """Set a damaged manifest aside, and the error that says why nothing was opened."""
    if data.manifest_path.exists():
        aside = set_aside(data.manifest_path)
    else:
        aside = set_aside_manifests(data)[-1]
    kept = other_state(data)
    beside = f" beside {', '.join(kept)}" if kept else ""
    return DamagedError(
        f"the index database {data.manifest_path} is damaged ({why}){beside}, so it was not "
        f"taken for a new index; it is kept as {aside.name}. Run `footnotes repair` to "
        "rebuild it from your files (every folder it indexed comes back, and passages already "
        f"embedded are reused), or put a backup of {data.manifest_path.name} back in its place."
    )


def survey(data: DataDir) -> list[Damage]:
    """Every damaged file of the data directory, each with the command that repairs it."""
    found: list[Damage] = []
    if why := manifest_problem(data):
        found.append(
            Damage(
                data.manifest_path,
                why,
                "`footnotes repair` (sets it aside and rebuilds it from your files)",
            )
        )
    if why := sqlite_problem(data.threads_path, deep=True):
        found.append(
            Damage(data.threads_path, why, "`footnotes repair` (sets it aside; a new history)")
        )
    if why := sqlite_problem(data.chroma_path / "chroma.sqlite3"):
        found.append(
            Damage(
                data.chroma_path / "chroma.sqlite3",
                why,
                "`footnotes repair` (rebuilds the vector store from the manifest's passages)",
            )
        )
    cache = data.root / CACHE_FILE
    if cache.exists() and (why := _cache_problem(cache)):
        found.append(
            Damage(
                cache,
                why,
                "none needed (the next search rebuilds it); `footnotes repair` deletes it now",
            )
        )
    return found
