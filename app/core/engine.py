"""The engine a front end talks to: one data directory, its settings, index and search."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sqlite3
import threading
import weakref
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from app.core.config import DataDir, Settings
from app.core.diskfull import (
    FULL_BELOW_BYTES,
    disk_full_error,
    disk_full_message,
    free_bytes,
    is_disk_full,
)
from app.core.errors import DamagedError, NamespaceError, StoreError
from app.core.faults import NO_FAULTS, Faults
from app.core.index import damage, meta
from app.core.index.indexer import Embedder, Indexer, IndexReport, ProgressFn
from app.core.index.manifest import Manifest
from app.core.index.matrix_cache import CACHE_FILE, store_fingerprint
from app.core.index.meta import ModelRecord
from app.core.index.namespace import data_dir_namespace
from app.core.index.roots import RootsFile, salvage
from app.core.index.store import VectorStore, check_server
from app.core.ingest.parsing import ParseLimits
from app.core.ingest.scanning import IgnoreRules, normalize
from app.core.locking import WriterLock
from app.core.search import calibration, probes
from app.core.search.calibration import Calibration
from app.core.search.index_cache import IndexCache
from app.core.search.retrieval import Retriever, SearchResult
from app.core.search.scope import Scope
from app.core.text import counted

log = logging.getLogger(__name__)


class Engine:
    """Owns the manifest, the (lazily loaded) embedding model and vector store."""

    def __init__(
        self,
        data_dir: Path,
        *,
        settings: Settings | None = None,
        chroma_url: str | None = None,
        ollama_host: str | None = None,
        embedder: Embedder | None = None,
        faults: Faults = NO_FAULTS,
    ) -> None:
        self.data = DataDir(data_dir).ensure()
        self.faults = faults  # the indexer's fault plan: none, except in a fault test
        self.settings = (settings or self.data.load_settings()).with_overrides(
            ollama_host=ollama_host, chroma_url=chroma_url
        )
        self._lock = threading.Lock()
        self._manifest: Manifest | None = None
        self._embedder: Embedder | None = embedder
        self._store: VectorStore | None = None
        self._indexer: Indexer | None = None
        self._writer: WriterLock | None = None
        self._seen_versions: dict[int, int] = {}  # a read connection's last data_version
        self.disk_full = False  # the manifest is read as last written: no room to write
        # what searches of each open manifest connection reuse (named files, term counts...)
        self._caches: weakref.WeakKeyDictionary[Manifest, IndexCache] = weakref.WeakKeyDictionary()

    # -- lazily built parts ----------------------------------------------------------------
    @property
    def manifest(self) -> Manifest:
        if self._manifest is None:
            self._manifest = self._open_manifest()
        return self._manifest

    def _open_manifest(self) -> Manifest:
        """The manifest, or a ``DamagedError`` once a damaged one is set aside: one that is
        cut short, not SQLite, malformed, or empty beside other state is never taken for a
        new index."""
        why = damage.manifest_problem(self.data, creating=self._writer is not None)
        if why is None:
            try:
                return Manifest(
                    self.data.manifest_path, busy_timeout_s=self.settings.busy_timeout_s
                )
            except sqlite3.OperationalError as exc:
                if self._writer is None and disk_full(self.data.root, exc):
                    # a reading command on a full disk: the index as it was last written
                    log.warning(
                        "the disk holding %s is full: the index is read as last written; "
                        "free some space to index again",
                        self.data.root,
                    )
                    self.disk_full = True
                    return Manifest(self.data.manifest_path, frozen=True)
                raise  # locked, read-only, a writer on a full disk: not damage (the caller says)
            except sqlite3.DatabaseError as exc:  # "file is not a database", "malformed"
                why = f"SQLite reports: {exc}"
        raise damage.refuse_manifest(self.data, why)

    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                from app.core.index.embedding import load_embedder

                self._embedder = load_embedder(
                    self.settings.embedding_model,
                    self.settings.embedding_backend,
                    models_dir=self.data.models_path,
                )
                self._remember_model(self._embedder)
            return self._embedder

    def _remember_model(self, embedder: Embedder) -> None:
        """Record what the configured model loaded as; a store opened from an older record
        (another model id) is closed, so the next use opens the model's own collection.

        Written through a connection of its own: this runs on whichever thread asked first
        (a question), while the writer thread may be inside a transaction on the manifest's.
        """
        loaded = ModelRecord(embedder.model_id, embedder.dim)
        name, backend = self.settings.embedding_model, self.settings.embedding_backend
        if meta.model(self.manifest.conn, name, backend) != loaded and not self.disk_full:
            with contextlib.closing(
                sqlite3.connect(self.data.manifest_path, timeout=self.settings.busy_timeout_s)
            ) as conn:
                conn.isolation_level = None
                meta.remember_model(conn, name, backend, loaded)
                meta.put(conn, meta.STORE_VERIFIED, None)  # another collection: check it
        if self._store is not None and (self._store.model_id, self._store.dim) != (
            loaded.model_id,
            loaded.dim,
        ):
            self._store.close()
            self._store = None

    def _model(self) -> ModelRecord:
        """The model's id and dimension: from the manifest's record without loading it when
        one exists (a rescan that embeds nothing loads no model)."""
        if self._embedder is None:
            name, backend = self.settings.embedding_model, self.settings.embedding_backend
            known = meta.model(self.manifest.conn, name, backend)
            if known is not None:
                return known
        embedder = self.embedder()
        return ModelRecord(embedder.model_id, embedder.dim)

    def store(self) -> VectorStore:
        url = self.settings.chroma_url
        if url and self._store is None:
            check_server(url)  # a server that is down is reported before the model loads
        model = self._model()
        with self._lock:
            if self._store is None:
                self._store = VectorStore(
                    model.model_id,
                    model.dim,
                    path=None if url else self.data.chroma_path,
                    url=url,
                    namespace=self._namespace() if url else None,
                )
            return self._store

    def _namespace(self) -> str:
        """This data directory's own collection on the Chroma server."""
        try:
            return data_dir_namespace(self.data.root)
        except NamespaceError as exc:
            raise StoreError(str(exc)) from None

    def refresh_store(self) -> None:
        """Reopen the vector store on next use: an embedded Chroma client keeps the vector
        index it loaded, so it misses vectors another process (a running watcher) added since."""
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def indexer(self, progress: ProgressFn | None = None) -> Indexer:
        if self._indexer is None:
            s = self.settings
            self._indexer = Indexer(
                self.manifest,
                self.embedder,
                self.store,
                ignore=IgnoreRules(s.ignore_patterns),
                limits=ParseLimits(
                    timeout_s=s.parse_timeout_s,
                    max_pages=s.max_pages,
                    max_chunks=s.max_chunks_per_file,
                    ocr=s.ocr_enabled,
                    ocr_cache=str(self.data.ocr_cache_path),
                    excluded=(str(self.data.root),),  # never indexed, even in a watched folder
                ),
                max_file_bytes=int(s.max_file_mb * 1_000_000),
                fingerprint=self._store_fingerprint,
                faults=self.faults,
            )
        if progress is not None:
            self._indexer.progress = progress
        return self._indexer

    def _store_fingerprint(self) -> str | None:
        """The embedded store's state without opening it; None for a Chroma server."""
        if self.settings.chroma_url:
            return None
        fp = store_fingerprint(self.data.root, self.data.chroma_path)
        name, backend = self.settings.embedding_model, self.settings.embedding_backend
        return None if fp is None else f"{backend}:{name}:{fp}"

    @property
    def retriever(self) -> Retriever:
        return self._retriever(self.manifest)

    def _retriever(self, manifest: Manifest) -> Retriever:
        """A retriever over ``manifest`` with the derived state its earlier searches kept."""
        with self._lock:
            cache = self._caches.get(manifest)
            if cache is None:
                cache = self._caches[manifest] = IndexCache(manifest, self.data.root)
        return Retriever(manifest, self.embedder, self.store, cache=cache)

    def apply_settings(self, new: Settings) -> None:
        """Use ``new`` from now on, as a whole: what was built from the old settings (the
        indexer, with its ignore rules, limits and OCR) is built again from the new ones on
        next use."""
        old, self.settings = self.settings, new
        if self._indexer is not None and _reading(old) != _reading(new):
            self._indexer.close()
            self._indexer = None

    # -- writing ---------------------------------------------------------------------------
    def acquire_writer(self, what: str) -> None:
        """Take the data directory's writer lock (raises LockedError naming the holder)."""
        if self._writer is None:
            self._writer = WriterLock(self.data.lock_path, what).acquire()

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Around a write of the index: a full disk, wherever it stopped the write (SQLite,
        the vector store, the lock's note, a cache), is raised as ``DiskFullError``, whose
        sentence says how much room is left and that nothing was lost (every write is one
        transaction, rolled back; vectors not stored wait in the manifest's list)."""
        try:
            yield
        except (OSError, sqlite3.Error) as exc:
            full = disk_full_error(self.data.root, exc)
            if full is None:
                raise
            raise full from None

    def index(
        self,
        paths: Iterable[str],
        *,
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> IndexReport:
        """Bring the index up to date for these files and folders."""
        with self.writing():
            self.acquire_writer("footnotes index")
            indexer = self.indexer(progress)
            indexer.vectors.repair()
            report = indexer.sync(paths, cancel=cancel)
        if cancel is None or not cancel.is_set():
            self.refresh_calibration()
        return report

    def repair(self, progress: ProgressFn | None = None) -> list[str]:
        """Set damaged files aside and rebuild what can be rebuilt: a damaged manifest from
        the files themselves (every folder it indexed, from ``roots.json``; every vector the
        store holds is reused), the vector cache (deleted, rebuilt by the next search), the
        FTS rows, and the vector store (a damaged one is set aside and every passage embedded
        again). One line per action."""
        with self.writing():
            return self._repair(progress)

    def _repair(self, progress: ProgressFn | None) -> list[str]:
        self.acquire_writer("footnotes repair")
        done: list[str] = []
        if damage.sqlite_problem(self.data.threads_path, deep=True):
            aside = damage.set_aside(self.data.threads_path)
            done.append(f"history: damaged, set aside as {aside.name}; a new one starts")
        cache = self.data.root / CACHE_FILE
        if cache.exists():
            cache.unlink()
            done.append(f"vector cache: {CACHE_FILE} removed; the next search rebuilds it")
        if why := damage.manifest_problem(self.data, creating=False):
            done += self._rebuild_manifest(why, progress)
        with self.manifest.transaction() as c:
            c.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
        done.append("full-text rows: rebuilt from the manifest's passages")
        chroma = self.data.chroma_path / "chroma.sqlite3"
        if not self.settings.chroma_url and damage.sqlite_problem(chroma, deep=True):
            self.refresh_store()
            aside = damage.set_aside(self.data.chroma_path)
            meta.put(self.manifest.conn, meta.STORE_VERIFIED, None)
            done.append(f"vector store: damaged, set aside as {aside.name}")
        vectors = self.indexer().vectors
        vectors.repair()  # lists the texts whose vector the store lacks
        encoded = vectors.embed_pending()
        vectors.collect_garbage()
        done.append(f"vector store: {encoded:,} passages embedded; it holds every passage")
        return done

    def _rebuild_manifest(self, why: str, progress: ProgressFn | None) -> list[str]:
        """Set the damaged manifest aside and build a new one from the files: the folders
        ``roots.json`` remembers (or, without it, what can still be read of the damaged one),
        read again with their vectors reused. Raises ``DamagedError`` when nothing says which
        folders it indexed."""
        if self._indexer is not None:  # built on the damaged manifest's connection
            self._indexer.close()
            self._indexer = None
        if self._manifest is not None:
            self._manifest.close()
            self._manifest = None
        if self.data.manifest_path.exists():
            aside = damage.set_aside(self.data.manifest_path)
        else:
            aside = damage.set_aside_manifests(self.data)[-1]
        roots = RootsFile(self.data.root).load() or salvage(aside)
        if not roots:
            raise DamagedError(
                f"the index database {self.data.manifest_path} was damaged ({why}) and is kept "
                f"as {aside.name}, but nothing records which folders it indexed; index them "
                "again with `footnotes index FOLDER...` (passages already embedded are reused)."
            )
        lines = [f"index database: damaged ({why}), set aside as {aside.name}"]
        manifest = self.manifest  # a new one, with the watched folders roots.json remembers
        for folder in roots.watched:
            manifest.add_folder(folder)
        present = [p for p in roots.all() if os.path.lexists(p)]
        report = self.indexer(progress).sync(present)
        missing = len(roots.all()) - len(present)
        gone = f"; {counted(missing, 'folder')} no longer there" if missing else ""
        lines.append(
            "index database: rebuilt from your files: "
            f"{counted(len(roots.watched), 'watched folder')} and "
            f"{counted(len(roots.indexed), 'other path')} read again{gone}; "
            f"{counted(report.files_indexed, 'file')} indexed, "
            f"{counted(report.chunks_total, 'passage')} ({report.chunks_reused:,} vectors reused, "
            f"{report.chunks_embedded:,} embedded)"
        )
        return lines

    def refresh_calibration(self, *, force: bool = False) -> Calibration | None:
        """Measure the support flag on this index again if it has grown (see ``probes``);
        a failure leaves the previous calibration (or the shipped threshold) in place."""
        try:
            return probes.refresh(
                self.manifest, self.embedder, self.store, self.data.root, force=force
            )
        except Exception as exc:
            if is_disk_full(self.data.root, exc):  # the index is written; this is derived
                log.warning(
                    "the support flag was not measured again: %s", disk_full_message(self.data.root)
                )
            else:
                log.exception("calibrating the support flag failed")
            return calibration.load(self.data.root)

    # -- reading ---------------------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int | None = None,
        mode: str = "hybrid",
        scope: Scope | None = None,
        *,
        reader: Manifest | None = None,
    ) -> SearchResult:
        """The one search entrance (the command line, the engine process, evaluation): the k
        best passages for ``query``, from within ``scope`` when one is given.

        ``reader`` is the caller's own read connection (the engine process searches on
        another thread than it writes on). An engine that does not hold the writer lock first
        catches up with the vectors another process added since it last looked.
        """
        manifest = reader or self.manifest
        if self._writer is None:
            self.catch_up(manifest)
        return self._retriever(manifest).search(query, k or self.settings.top_k, mode, scope)

    def catch_up(self, manifest: Manifest) -> None:
        """Reopen the vector store when another connection committed since this one last
        looked (SQLite's ``data_version``): an embedded Chroma client keeps the index it
        loaded."""
        version = int(manifest.conn.execute("PRAGMA data_version").fetchone()[0])
        seen = self._seen_versions.get(id(manifest.conn))
        if seen is not None and seen != version:
            self.refresh_store()
        self._seen_versions[id(manifest.conn)] = version

    def status(self) -> dict[str, Any]:
        counts = self.manifest.counts()
        failures = self.manifest.failures()
        usage = shutil.disk_usage(self.data.root)
        return {
            "data_dir": str(self.data.root),
            "folders": self.manifest.folders(),
            **counts,
            "embedding_model": self.settings.embedding_model,
            "chroma": self.settings.chroma_url or str(self.data.chroma_path),
            "disk_free_bytes": usage.free,
            "failures": [{"path": p, "reason": r} for p, r in failures],
        }

    def add_folder(self, path: str) -> str:
        folder = normalize(path)
        if not os.path.exists(folder):
            raise FileNotFoundError(f"{path} does not exist")
        if not os.path.isdir(folder):
            raise NotADirectoryError(f"{path} is a file, not a folder (index it with `index`)")
        with self.writing():
            self.manifest.add_folder(folder)
        return folder

    def close(self) -> None:
        if self._indexer is not None:
            self._indexer.close()
        if self._store is not None:
            self._store.close()
            self._store = None
        if self._manifest is not None:
            self._manifest.close()
        if self._writer is not None:
            self._writer.release()
            self._writer = None


def _reading(s: Settings) -> tuple[Any, ...]:
    """The settings the indexer is built from: a change means a new indexer."""
    return (
        s.ignore_patterns,
        s.parse_timeout_s,
        s.max_pages,
        s.max_chunks_per_file,
        s.ocr_enabled,
        s.max_file_mb,
    )


def disk_full(root: Path, exc: BaseException) -> bool:
    """Whether ``exc`` (from opening the manifest) comes of the disk under ``root`` being full:
    SQLite's words for it, and less than ``FULL_BELOW_BYTES`` left."""
    free = free_bytes(root)
    return is_disk_full(root, exc) and free is not None and free < FULL_BELOW_BYTES
