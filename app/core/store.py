"""The vector store: the only module that imports chromadb (embedded or a Chroma server).

One collection per embedding model, cosine space, one record per distinct chunk text keyed by
its text hash. Embeddings are always passed explicitly: Chroma's default embedding function
would try to download a model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import numpy as np


class StoreError(Exception):
    """The vector store cannot be reached or written; the message says what to do."""


@dataclass(frozen=True)
class DenseHit:
    """A vector found by similarity: the text hash and its cosine similarity."""

    text_hash: str
    similarity: float


def collection_name(model_id: str, dim: int) -> str:
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", model_id).strip("-_")[:48] or "model"
    return f"footnotes_{slug}_{dim}"


def _client(path: Path | None, url: str | None):  # type: ignore[no-untyped-def]
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False)
    if url:
        parsed = urlparse(url if "://" in url else f"http://{url}")
        try:
            return chromadb.HttpClient(
                host=parsed.hostname or "127.0.0.1",
                port=parsed.port or (443 if parsed.scheme == "https" else 8000),
                ssl=parsed.scheme == "https",
                settings=settings,
            )
        except Exception as exc:
            raise StoreError(
                f"Cannot reach the Chroma server at {url} ({exc}); "
                "check that it is running or drop --chroma-url."
            ) from exc
    assert path is not None
    path.mkdir(parents=True, exist_ok=True)
    try:
        return chromadb.PersistentClient(path=str(path), settings=settings)
    except Exception as exc:
        raise StoreError(f"Cannot open the vector store in {path}: {exc}") from exc


class VectorStore:
    """Vectors of distinct chunk texts for one embedding model."""

    def __init__(
        self, model_id: str, dim: int, *, path: Path | None = None, url: str | None = None
    ):
        self.model_id = model_id
        self.dim = dim
        self.location = url or str(path)
        self._client = _client(path, url)
        self.name = collection_name(model_id, dim)
        try:
            self._col = self._client.get_or_create_collection(
                self.name,
                metadata={"hnsw:space": "cosine", "model": model_id, "dim": dim},
                embedding_function=None,
            )
            self._batch = int(self._client.get_max_batch_size())
        except Exception as exc:
            raise StoreError(
                f"Cannot open the vector collection at {self.location}: {exc}"
            ) from exc

    def _call(self, what: str, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            return fn(*args, **kwargs)
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(
                f"The vector store at {self.location} failed to {what}: {exc}"
            ) from exc

    def existing(self, ids: Iterable[str]) -> set[str]:
        """Which of these text hashes already have a vector."""
        wanted = list(dict.fromkeys(ids))
        found: set[str] = set()
        for i in range(0, len(wanted), self._batch):
            part = wanted[i : i + self._batch]
            res = self._call("look up vectors", self._col.get, ids=part, include=[])
            found.update(res["ids"])
        return found

    def add(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        for i in range(0, len(ids), self._batch):
            self._call(
                "store vectors",
                self._col.upsert,
                ids=list(ids[i : i + self._batch]),
                embeddings=vectors[i : i + self._batch],
            )

    def delete(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        for i in range(0, len(ids), self._batch):
            self._call("delete vectors", self._col.delete, ids=ids[i : i + self._batch])

    def all_ids(self) -> set[str]:
        out: set[str] = set()
        offset = 0
        while True:
            res = self._call(
                "list vectors", self._col.get, include=[], limit=self._batch, offset=offset
            )
            out.update(res["ids"])
            if len(res["ids"]) < self._batch:
                return out
            offset += self._batch

    def vectors(self, ids: Iterable[str]) -> dict[str, np.ndarray]:
        """Stored vectors by text hash (those that exist)."""
        wanted = list(ids)
        out: dict[str, np.ndarray] = {}
        for i in range(0, len(wanted), self._batch):
            res = self._call(
                "read vectors",
                self._col.get,
                ids=wanted[i : i + self._batch],
                include=["embeddings"],
            )
            for id_, vec in zip(res["ids"], res["embeddings"], strict=True):
                out[id_] = np.asarray(vec, dtype=np.float32)
        return out

    def count(self) -> int:
        return int(self._call("count vectors", self._col.count))

    def query(self, vector: np.ndarray, k: int) -> list[DenseHit]:
        """Nearest texts by cosine similarity, best first."""
        n = min(k, self.count())
        if n <= 0:
            return []
        res = self._call(
            "search",
            self._col.query,
            query_embeddings=vector.reshape(1, -1),
            n_results=n,
            include=["distances"],
        )
        ids, dists = res["ids"][0], (res["distances"] or [[]])[0]
        return [DenseHit(i, 1.0 - float(d)) for i, d in zip(ids, dists, strict=True)]
