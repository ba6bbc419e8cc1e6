"""Every stored vector in one float32 matrix, for an exact cosine top-k at personal scale.

Chroma's HNSW graph returned 93% of the exact top 10 on a 62k-passage index with its
defaults (a passage that is there, missed). A matrix product over 100k x 384 float32 (150 MB)
takes a few milliseconds, so search is exact instead: the matrix is read from the store once
per process (or from a saved copy that names the store generation it reflects), then kept
in step with the store's own writes. Rows are L2-normalised: the dot product is the cosine.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

import numpy as np


class VectorMatrix:
    """Ids and unit vectors in row order; removal leaves a hole that the next growth reuses."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._ids: list[str | None] = []
        self._rows: dict[str, int] = {}
        self._free: list[int] = []
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._valid = np.zeros(0, dtype=bool)

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, id_: object) -> bool:
        return id_ in self._rows

    def add(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        """Insert or replace vectors (normalised here)."""
        vecs = _unit(np.asarray(vectors, dtype=np.float32).reshape(len(ids), self.dim))
        new = [i for i, id_ in enumerate(ids) if id_ not in self._rows]
        need = len(new) - len(self._free)
        if need > 0:
            grown = max(need, len(self._ids) // 4, 1024)
            self._matrix = np.vstack([self._matrix, np.zeros((grown, self.dim), np.float32)])
            self._valid = np.concatenate([self._valid, np.zeros(grown, dtype=bool)])
            start = len(self._ids)
            self._ids.extend([None] * grown)
            self._free.extend(range(start + grown - 1, start - 1, -1))
        for i, id_ in enumerate(ids):
            row = self._rows.get(id_)
            if row is None:
                row = self._free.pop()
                self._rows[id_] = row
                self._ids[row] = id_
                self._valid[row] = True
            self._matrix[row] = vecs[i]

    def get(self, ids: Iterable[str]) -> dict[str, np.ndarray]:
        """The (unit) vectors of those ``ids`` held here."""
        return {i: self._matrix[self._rows[i]].copy() for i in ids if i in self._rows}

    def remove(self, ids: Iterable[str]) -> None:
        for id_ in ids:
            row = self._rows.pop(id_, None)
            if row is not None:
                self._ids[row] = None
                self._valid[row] = False
                self._matrix[row] = 0.0
                self._free.append(row)

    def nearest(
        self, query: np.ndarray, n: int, allowed: Collection[str] | None = None
    ) -> list[tuple[str, float]]:
        """The ``n`` most similar ids, best first; ``allowed`` limits the candidates."""
        if n <= 0 or not self._rows:
            return []
        q = _unit(np.asarray(query, dtype=np.float32).reshape(1, self.dim))[0]
        if allowed is not None:
            rows = np.fromiter((self._rows[i] for i in allowed if i in self._rows), dtype=np.int64)
            if rows.size == 0:
                return []
            scores = self._matrix[rows] @ q
        else:
            rows = None
            scores = np.where(self._valid, self._matrix @ q, -np.inf)
        n = min(n, int(np.isfinite(scores).sum()))
        if n <= 0:
            return []
        top = np.argpartition(-scores, n - 1)[:n] if n < scores.size else np.arange(scores.size)
        top = top[np.argsort(-scores[top], kind="stable")]
        out = []
        for t in top:
            row = int(rows[t]) if rows is not None else int(t)
            id_ = self._ids[row]
            if id_ is not None:
                out.append((id_, float(scores[t])))
        return out


def _unit(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return m / norms


def save(matrix: VectorMatrix, path: Path, token: str) -> None:
    """Write the matrix (valid rows only) with the store generation it reflects; atomic and
    on disk (fsynced) before it replaces the old copy, so a crash leaves one whole file."""
    rows = np.flatnonzero(matrix._valid)
    ids = np.array([matrix._ids[r] for r in rows], dtype=object)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as fh:
            np.savez(fh, token=np.array(token), ids=ids.astype(str), vectors=matrix._matrix[rows])
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def load(path: Path, dim: int, token: str) -> VectorMatrix | None:
    """The saved matrix if it reflects store generation ``token``, else None.

    The file is a disposable cache: one that is empty, cut short or otherwise unreadable
    (any failure of numpy's reader: a bad zip, EOF, a wrong shape) is None as well, and the
    caller rebuilds it from the store.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            vecs, ids = data["vectors"], data["ids"]
            if str(data["token"]) != token or vecs.ndim != 2 or vecs.shape[1:] != (dim,):
                return None
            if ids.shape != (vecs.shape[0],):
                return None
            matrix = VectorMatrix(dim)
            matrix.add([str(i) for i in ids], vecs)
            return matrix
    except Exception:  # a damaged cache of any kind is rebuilt, never fatal
        return None
