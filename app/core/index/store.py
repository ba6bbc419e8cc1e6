"""The vector store: the only module that imports chromadb (embedded or a Chroma server).

One collection per embedding model, cosine space, one record per distinct chunk text keyed by
its text hash. Embeddings are always passed explicitly: Chroma's default embedding function
would try to download a model.

Server mode (``--chroma-url``) keeps only the vectors on the server; the manifest and the
full-text index stay in the local data directory. Record ids are text hashes, so two data
directories writing into one server collection share vectors: a text that one of them no
longer references may still be referenced by the other, and only the manifests know. Hence
the rule for who may delete what: with a ``namespace`` (a random id kept in the data
directory, see ``data_dir_namespace``) the collection belongs to that data directory alone and
garbage collection deletes as in the embedded store; without one the collection is shared
(``shared``) and ``delete`` keeps everything — an orphaned vector costs only space, while
deleting a vector another machine references would silently cost that machine its results.
"""

from __future__ import annotations

import contextlib
import errno
import re
import shutil
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

import numpy as np

from app.core.diskfull import disk_full_message
from app.core.errors import NotOnDiskYet, StoreError
from app.core.index.matrix_cache import MatrixCache
from app.core.index.vectors import VectorMatrix
from app.core.locking import held

CONNECT_TIMEOUT_S = 10.0
REQUEST_TIMEOUT_S = 300.0  # one request; large batches on a busy server take a while
LOW_SPACE_BYTES = 8 * 1024 * 1024
OPEN_LOCK = ".open-lock"  # beside the store: taken while it is opened (``_local_client``)
EXACT_LIMIT = 500_000  # vectors searched exactly in memory (~750 MB); beyond, the HNSW graph
T = TypeVar("T")


NOT_ON_DISK = "Nothing found on disk"  # Chroma's words for a segment not yet written
# Chroma's words when a read meets segments another process is rewriting at that moment: the
# read is tried again (a few times, briefly), then answered from what is consistent: nothing.
IN_FLUX = ("Error finding id",)
READ_RETRIES_S = (0.05, 0.2, 0.5)


@dataclass(frozen=True)
class DenseHit:
    """A vector found by similarity: the text hash and its cosine similarity."""

    text_hash: str
    similarity: float


def collection_name(model_id: str, dim: int, namespace: str | None = None) -> str:
    """``footnotes_<model>_<dim>``, plus ``_<namespace>`` for a data directory's own one."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", model_id).strip("-_")[:48] or "model"
    tail = re.sub(r"[^A-Za-z0-9]+", "", namespace or "")[:32]
    return f"footnotes_{slug}_{dim}" + (f"_{tail}" if tail else "")


def _one_line(exc: BaseException, limit: int = 200) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _server_down(url: str, why: str) -> str:
    return (
        f"The Chroma server at {url} is not answering ({why}). Start it "
        "(`chroma run --path DIR --host HOST --port PORT`) and run the command again, "
        "or leave out --chroma-url to use the local store; nothing indexed so far is lost."
    )


def _parse_url(url: str) -> tuple[str, str, int, bool]:
    parsed = urlparse(url if "://" in url else f"http://{url}")
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise StoreError(f"{url!r} is not a Chroma server address; use http://HOST:PORT.")
    try:
        port = parsed.port or (443 if parsed.scheme == "https" else 8000)
    except ValueError:
        raise StoreError(f"{url!r} has an invalid port; use http://HOST:PORT.") from None
    base = f"{parsed.scheme}://{parsed.netloc}"
    return base, parsed.hostname, port, parsed.scheme == "https"


def check_server(url: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Raise StoreError with an actionable message unless a Chroma 1.x server answers at url."""
    import httpx

    base = _parse_url(url)[0]
    try:
        resp = httpx.get(f"{base}/api/v2/heartbeat", timeout=timeout)
    except httpx.TimeoutException:
        raise StoreError(_server_down(url, f"no answer within {timeout:g} s")) from None
    except httpx.HTTPError as exc:
        raise StoreError(_server_down(url, _one_line(exc, 80))) from None
    try:
        body = resp.json()
        ok = resp.status_code == 200 and isinstance(body, dict) and "nanosecond heartbeat" in body
    except ValueError:
        ok = False
    if ok:
        return
    if resp.status_code in (401, 403):
        raise StoreError(
            f"The Chroma server at {url} refused access (HTTP {resp.status_code}); Footnotes "
            "does not send credentials, so use a server without authentication."
        )
    old = False
    if resp.status_code == 404:
        with contextlib.suppress(httpx.HTTPError):
            old = httpx.get(f"{base}/api/v1/heartbeat", timeout=timeout).status_code == 200
    what = "an older Chroma server (before 1.0)" if old else "not a Chroma server"
    raise StoreError(
        f"{url} answers, but it is {what} (HTTP {resp.status_code} on /api/v2/heartbeat). "
        "Check the address and port given to --chroma-url; Footnotes needs Chroma 1.x."
    )


def _http_client(url: str) -> Any:
    import chromadb
    import httpx
    from chromadb.config import Settings

    base, host, port, ssl = _parse_url(url)
    check_server(base)
    try:
        client = chromadb.HttpClient(
            host=host, port=port, ssl=ssl, settings=Settings(anonymized_telemetry=False)
        )
    except Exception as exc:
        raise StoreError(_server_down(url, _one_line(exc, 80))) from exc
    # chromadb's HTTP session never times out; a server that vanishes mid-request must not
    # hang the indexer forever.
    session = getattr(getattr(client, "_server", None), "_session", None)
    if isinstance(session, httpx.Client):
        session.timeout = httpx.Timeout(REQUEST_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
    return client


def _local_client(path: Path) -> Any:
    import chromadb
    from chromadb.config import Settings

    try:
        path.mkdir(parents=True, exist_ok=True)
        # Chroma creates its tables on the first open; two processes opening a new store at
        # once (the window and a command) raced there: "table collections already exists".
        with held(path.with_name(path.name + OPEN_LOCK)):
            return chromadb.PersistentClient(
                path=str(path), settings=Settings(anonymized_telemetry=False)
            )
    except Exception as exc:
        raise StoreError(_local_failure(path, "open", exc)) from exc


def _local_failure(path: Path, what: str, exc: BaseException) -> str:
    """Say why the embedded store failed: read-only, disk full, locked, or the raw reason."""
    text = str(exc).lower()
    code = exc.errno if isinstance(exc, OSError) else None
    try:
        low_space = shutil.disk_usage(path).free < LOW_SPACE_BYTES
    except OSError:
        low_space = False
    if code in (errno.ENOSPC, errno.EDQUOT) or "disk is full" in text or "no space" in text:
        low_space = True
    read_only = "readonly" in text or "read-only" in text
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or read_only:
        return (
            f"The vector store folder {path} is read-only, so Footnotes cannot {what} it "
            f"({_one_line(exc, 120)}). Make the folder writable (its permissions, or the disk "
            "it is on) and run the command again; nothing indexed so far is lost."
        )
    if low_space:
        return disk_full_message(path, "the vector store ")
    if "locked" in text or "busy" in text:
        return (
            f"The vector store in {path} is in use by another program ({_one_line(exc, 80)}); "
            "close it (another Footnotes?) and run the command again."
        )
    return f"The vector store in {path} failed to {what}: {_one_line(exc)}"


class VectorStore:
    """Vectors of distinct chunk texts for one embedding model."""

    def __init__(
        self,
        model_id: str,
        dim: int,
        *,
        path: Path | None = None,
        url: str | None = None,
        namespace: str | None = None,
    ):
        self.model_id = model_id
        self.dim = dim
        self.url = url
        self.path = Path(path) if path is not None else None
        self.location = url or str(path)
        # Server collection without a namespace: other data dirs may reference its vectors.
        self.shared = bool(url) and not namespace
        if not url and self.path is None:
            raise StoreError("The vector store needs a folder or a Chroma server address.")
        self.name = collection_name(model_id, dim, namespace if url else None)
        self._client: Any = None
        self._collection: Any = None
        self._batch_size = 0
        self._matrix: VectorMatrix | None = None
        self._cache = MatrixCache(self.path.parent, dim) if self.path is not None else None
        if url:  # a server that is down, or refuses, is reported at once
            self._open()

    def _open(self) -> Any:
        """The Chroma collection, opened on first use: a search answered from the saved
        matrix (``matrix_cache``) never imports chromadb nor opens its files."""
        if self._collection is None:
            if self.url:
                self._client = _http_client(self.url)
            else:
                assert self.path is not None
                self._client = _local_client(self.path)
            self._collection = self._call(
                "open the vector collection",
                self._client.get_or_create_collection,
                self.name,
                metadata={"hnsw:space": "cosine", "model": self.model_id, "dim": self.dim},
                embedding_function=None,
            )
            get_batch = self._client.get_max_batch_size
            self._batch_size = int(self._call("open the vector collection", get_batch))
        return self._collection

    @property
    def _col(self) -> Any:
        return self._open()

    @_col.setter
    def _col(self, collection: Any) -> None:
        """Put another collection object in (a wrapper, as the fault-injection tests do)."""
        self._open()
        self._collection = collection

    @property
    def _batch(self) -> int:
        self._open()
        return self._batch_size

    def _call(self, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return fn(*args, **kwargs)
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(self._explain(what, exc)) from exc

    def _explain(self, what: str, exc: Exception) -> str:
        if self.url is None:
            assert self.path is not None
            return _local_failure(self.path, what, exc)
        import httpx

        if isinstance(exc, httpx.TimeoutException):
            return _server_down(self.url, f"no answer within {REQUEST_TIMEOUT_S:g} s")
        if isinstance(exc, httpx.TransportError) or "could not connect" in str(exc).lower():
            return _server_down(self.url, f"lost the connection while trying to {what}")
        return f"The Chroma server at {self.url} failed to {what}: {_one_line(exc)}"

    def close(self) -> None:
        """Release the client (an embedded store's files are closed when nobody else uses them).

        A writer that kept its matrix in step saves it for the next process."""
        if self._matrix is not None and self._cache is not None and self._cache.dirty:
            self._cache.save(self._matrix)
        close = getattr(self._client, "close", None) if self._client is not None else None
        if callable(close):
            with contextlib.suppress(Exception):  # must never mask the error that led here
                close()

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
        if self._cache is not None:
            self._cache.bump()
        for i in range(0, len(ids), self._batch):
            self._call(
                "store vectors",
                self._col.upsert,
                ids=list(ids[i : i + self._batch]),
                embeddings=vectors[i : i + self._batch],
            )
        if self._matrix is not None:
            self._matrix.add(ids, vectors)

    def delete(self, ids: Iterable[str]) -> None:
        """Drop vectors; a shared server collection keeps them (another machine may use them)."""
        if self.shared:
            return
        ids = list(ids)
        if self._cache is not None:
            self._cache.bump()
        for i in range(0, len(ids), self._batch):
            self._call("delete vectors", self._col.delete, ids=ids[i : i + self._batch])
        if self._matrix is not None:
            self._matrix.remove(ids)

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
        """Stored vectors by text hash (those that exist): from the loaded matrix when it
        holds them (no request to the store), else read."""
        asked = list(ids)
        out: dict[str, np.ndarray] = self._matrix.get(asked) if self._matrix is not None else {}
        wanted = [i for i in asked if i not in out]
        for i in range(0, len(wanted), self._batch):
            try:
                res = self._read(ids=wanted[i : i + self._batch])
            except NotOnDiskYet:
                return out  # (the caller encodes what it needs from the text)
            for id_, vec in zip(res["ids"], res["embeddings"], strict=True):
                out[id_] = np.asarray(vec, dtype=np.float32)
        return out

    def nearest(
        self, vector: np.ndarray, k: int, allowed: Collection[str] | None = None
    ) -> list[DenseHit]:
        """The exact cosine top-k over every stored vector (or those ``allowed``), best first.

        The first call reads all vectors into memory (about 1.5 KB each); this store's own
        writes keep that copy current. A collection too large for that uses the HNSW graph.
        """
        if self._matrix is None and self._cache is not None:
            self._matrix = self._cache.cached()  # the saved copy: no need to open Chroma
        if self._matrix is None:
            if self.count() > EXACT_LIMIT:
                return self._approximate(vector, k, allowed)
            read = self._load_matrix
            try:
                self._matrix = self._cache.load(read) if self._cache is not None else read()
            except NotOnDiskYet:
                return []  # another process is storing its first vectors: none to rank yet
        return [DenseHit(i, s) for i, s in self._matrix.nearest(vector, k, allowed)]

    def _approximate(
        self, vector: np.ndarray, k: int, allowed: Collection[str] | None
    ) -> list[DenseHit]:
        if allowed is None:
            return self.query(vector, k)
        found = self.vectors(allowed)  # a scope: exact over its vectors
        matrix = VectorMatrix(self.dim)
        matrix.add(list(found), np.array(list(found.values()), np.float32))
        return [DenseHit(i, s) for i, s in matrix.nearest(vector, k)]

    def _load_matrix(self) -> VectorMatrix:
        """Every stored vector, read page by page and added at once (a matrix of their size)."""
        ids: list[str] = []
        parts: list[np.ndarray] = []
        offset = 0
        while True:
            res = self._read(limit=self._batch, offset=offset)
            if res["ids"]:
                ids += res["ids"]
                parts.append(np.asarray(res["embeddings"], dtype=np.float32))
            if len(res["ids"]) < self._batch:
                break
            offset += self._batch
        matrix = VectorMatrix(self.dim)
        if ids:
            matrix.add(ids, np.concatenate(parts))
        return matrix

    def _read(self, **kwargs: Any) -> Any:
        """``get`` with embeddings; NotOnDiskYet while another process (the writer) has
        counted its first vectors but not yet written their index segment, or, after a few
        short tries, while it keeps rewriting the segments being read (``IN_FLUX``)."""
        for pause in (*READ_RETRIES_S, None):
            try:
                return self._call("read vectors", self._col.get, include=["embeddings"], **kwargs)
            except StoreError as exc:
                if NOT_ON_DISK in str(exc):
                    raise NotOnDiskYet(str(exc)) from exc
                if not any(words in str(exc) for words in IN_FLUX):
                    raise
                if pause is None:  # a writer keeps rewriting: rank by words this time
                    raise NotOnDiskYet(str(exc)) from exc
                time.sleep(pause)
        raise AssertionError("unreachable")  # pragma: no cover

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
