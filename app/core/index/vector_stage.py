"""The second stage of every sync, and the vector store's upkeep.

Files are written first (``Indexer``): their passages are searchable by their words at once,
and the texts no stored vector covers are listed (``pending``). This stage drains the list in
batches, oldest first — vectors to the store, then the list forgets them — all at once for
``footnotes index``, or a slice at a time between the watcher's other work. It also keeps the
store equal to the manifest: texts the store lost are listed again (``repair``), vectors no
passage references are deleted (``forget``, ``collect_garbage``), and a store found complete
is marked with its fingerprint so an unchanged rescan need not compare every id.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import numpy as np

from app.core.faults import NO_FAULTS, Faults
from app.core.index import meta, pending
from app.core.index.embedding import Embedder
from app.core.index.manifest import Manifest
from app.core.index.report import Cancelled, Progress, ProgressFn

EMBED_BATCH = 256  # waiting texts encoded in one call to the model


class Store(Protocol):
    """One vector per distinct passage text, keyed by its hash (``store.VectorStore``)."""

    def existing(self, ids: Iterable[str]) -> set[str]:
        """Those of ``ids`` that have a vector (they need no embedding)."""
        ...

    def add(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        """Store one vector per id (row i of ``vectors`` for ``ids[i]``)."""
        ...

    def delete(self, ids: Iterable[str]) -> None:
        """Drop these ids' vectors."""
        ...

    def all_ids(self) -> set[str]:
        """Every id with a vector."""
        ...


class VectorStage:
    """Computes waiting vectors and keeps the store consistent; shares the indexer's lock."""

    def __init__(
        self,
        manifest: Manifest,
        embedder: Callable[[], Embedder],
        store: Callable[[], Store],
        lock: threading.RLock,
        fingerprint: Callable[[], str | None] | None = None,
        faults: Faults = NO_FAULTS,
    ) -> None:
        self.manifest = manifest
        self.faults = faults
        self._embedder = embedder
        self._store = store
        self.lock = lock
        # The store's state without opening it (embedded store only): unchanged since it was
        # last found to match the manifest means no id comparison is needed.
        self._fingerprint = fingerprint or (lambda: None)
        self.progress: ProgressFn = lambda p: None
        self._stage_done = 0  # texts done in the current stage, across slices

    def waiting(self) -> int:
        """How many texts wait for their vector."""
        return pending.count(self.manifest.conn)

    def embed_pending(
        self, cancel: threading.Event | None = None, max_batches: int | None = None
    ) -> int:
        """Compute the vectors of listed texts, oldest first, all of them or ``max_batches``
        batches; returns how many were encoded (texts that had a vector already cost nothing).

        Progress ('embedded') counts the whole stage: texts done of done plus still waiting.
        """
        with self.lock:
            encoded = batches = 0
            conn = self.manifest.conn
            while max_batches is None or batches < max_batches:
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                batch = pending.take(conn, EMBED_BATCH)
                if not batch:
                    self._stage_done = 0
                    break
                texts = self.manifest.texts_for_hashes(batch)  # gone from every file: skipped
                have = self._store().existing(texts) if texts else set()
                missing = [h for h in texts if h not in have]
                if missing:
                    vectors = self._embedder().encode([texts[h] for h in missing])
                    self._store().add(missing, vectors)
                    self.faults.wrote("vectors")
                pending.clear(conn, batch)
                self.faults.wrote("pending")
                encoded += len(missing)
                batches += 1
                self._stage_done += len(batch)
                left = pending.count(conn)
                done = self._stage_done
                self.progress(Progress("embedded", "", done, done + left, len(missing)))
                if not left:
                    self._stage_done = 0
                    break
            return encoded

    def repair(self) -> int:
        """List texts the manifest references but the store lacks (store lost, model changed)
        for the embedding stage; returns how many. Their files are not read again.

        A store untouched since it was last found complete is not compared id by id (an
        unchanged rescan opens neither the store nor the model).
        """
        with self.lock:
            if self.verified():
                return 0
            hashes = self.manifest.all_hashes()
            if not hashes:
                return 0
            missing = hashes - self._store().all_ids()
            if missing:
                pending.add(self.manifest.conn, missing)
                self.faults.wrote("listed")
            return len(missing)

    def collect_garbage(self) -> int:
        """Delete vectors no chunk references (left by a crash between the two writes), and
        mark the store as checked when it holds exactly what the manifest references."""
        with self.lock:
            if self.verified():
                return 0
            ids = self._store().all_ids()
            hashes = self.manifest.all_hashes()
            orphans = ids - hashes
            if orphans:
                self._store().delete(orphans)
                self.faults.wrote("deleted")
            if hashes <= ids and not pending.count(self.manifest.conn):
                meta.put(self.manifest.conn, meta.STORE_VERIFIED, self._fingerprint())
            return len(orphans)

    def forget(self, candidates: list[str]) -> None:
        """Delete the vectors of those texts that no chunk references any more."""
        unused = self.manifest.unreferenced(candidates) if candidates else []
        if unused:
            self._store().delete(unused)
            self.faults.wrote("deleted")

    def verified(self) -> bool:
        """The store is as it was when it last matched the manifest, and nothing waits."""
        now = self._fingerprint()
        if now is None or pending.count(self.manifest.conn):
            return False
        return meta.get(self.manifest.conn, meta.STORE_VERIFIED) == now

    def unverify(self) -> None:
        """Before a write that may leave vectors unreferenced: a kill before their clean-up
        must not leave a store that looks checked (the next full sync compares every id)."""
        if meta.get(self.manifest.conn, meta.STORE_VERIFIED) is not None:
            meta.put(self.manifest.conn, meta.STORE_VERIFIED, None)
