"""The saved copy of the vector matrix, valid only for the store generation it reflects.

Reading 60k vectors from Chroma takes seconds, which every ``footnotes search`` would pay.
``vectors.npz`` in the data directory keeps the matrix with the generation token it reflects;
every write to the store first replaces the token in ``vectors.generation``, so a copy older
than the store (or one left by a writer killed midway) is never used. Embedded store only:
a Chroma server's collection has writers this process does not see.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from app.core.config import atomic_write_text
from app.core.index import vectors
from app.core.index.vectors import VectorMatrix

GENERATION_FILE = "vectors.generation"
CACHE_FILE = "vectors.npz"


class MatrixCache:
    """Loads, saves and invalidates the matrix copy kept in ``folder``."""

    def __init__(self, folder: Path, dim: int) -> None:
        self.folder = Path(folder)
        self.dim = dim
        self.dirty = False  # this process wrote to the store since it opened it

    def generation(self) -> str:
        try:
            return (self.folder / GENERATION_FILE).read_text(encoding="utf-8").strip()
        except OSError:
            return ""

    def bump(self) -> str:
        """A new token before a write: any saved matrix is stale from now on."""
        token = secrets.token_hex(8)
        atomic_write_text(self.folder / GENERATION_FILE, token)
        self.dirty = True
        return token

    def cached(self) -> VectorMatrix | None:
        """The saved copy if it reflects the store as it is now, else None."""
        token = self.generation()
        return vectors.load(self.folder / CACHE_FILE, self.dim, token) if token else None

    def load(self, read_store: Callable[[], VectorMatrix]) -> VectorMatrix:
        """The saved copy if current, else the store's vectors (then saved if still current)."""
        matrix = self.cached()
        if matrix is not None:
            return matrix
        token = self.generation()
        if not token:
            try:
                token = self.bump()
            except OSError:  # a data directory this process may not write: no saved copy
                return read_store()
            self.dirty = False
        matrix = read_store()
        if self.generation() == token:  # no writer changed the store meanwhile
            self.save(matrix)
        return matrix

    def save(self, matrix: VectorMatrix) -> None:
        with contextlib.suppress(OSError):  # a cache: a full disk costs speed, not data
            vectors.save(matrix, self.folder / CACHE_FILE, self.generation())


def store_fingerprint(folder: Path, chroma: Path) -> str | None:
    """The embedded store as it is now: the generation token every write replaces, and its
    database file's size and time (a store deleted or restored by hand changes them). None
    when there is no token yet."""
    token = MatrixCache(folder, 0).generation()
    try:
        st = os.stat(chroma / "chroma.sqlite3")
    except OSError:
        return None
    return f"{token}:{st.st_size}:{st.st_mtime_ns}" if token else None
