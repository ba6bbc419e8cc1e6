"""Hybrid search: dense top-k from the vector store and BM25 top-k from FTS5, fused by score.

A ``Scope`` narrows both retrievers before they rank (the dense search to the vectors of
chunks in scope, the lexical search to their rows), so a scoped search still gets k hits.
Files the question names by their file name (``named``) are searched within as well, and
their passages ranked ahead of other files' (``fusion.NAMED_BONUS``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.core.index import lexical, pending
from app.core.index.indexer import Embedder
from app.core.index.manifest import ChunkRow, Manifest
from app.core.index.store import DenseHit, VectorStore
from app.core.search import pages, support
from app.core.search.fusion import fuse
from app.core.search.index_cache import IndexCache
from app.core.search.named import NamedFiles
from app.core.search.query import checked_query
from app.core.search.scope import Scope, ScopeMembers
from app.core.text import is_toc_like
from app.core.types import Hit, Support

# A scope's own vectors are ranked when reading their ids (one chunk row each) costs less than
# ranking the whole index and reading the rows of ~2n/share texts: chunks * share <= 5n.
READ_HASHES_BELOW = 5
BUILDING = "The index is still being built — answers may miss passages."
# Verbatim holders of a pasted sentence put first: a few, so that copies of the same text in
# other files (a manual as PDF and HTML) do not push the rest of the evidence out of sight.
PINNED = 3
# Word-for-word holders looked at before the exact ones are picked (boilerplate such as a
# filing's cover page sits in dozens of files, nearly identical).
PHRASE_POOL = 50


@dataclass
class SearchResult:
    """Hits for a query, with the support verdict."""

    query: str
    hits: list[Hit]
    support: Support
    scope: Scope | None = None
    index_empty: bool = False  # no hits because nothing is indexed at all

    def to_json(self) -> dict[str, Any]:
        out = {
            "query": self.query,
            "hits": [h.to_json() for h in self.hits],
            "support": self.support.to_json(),
        }
        if self.scope is not None and not self.scope.everything:
            out["scope"] = self.scope.to_json()
        return out


@dataclass
class Candidates:
    """One query's dense and lexical candidate lists, fused on demand (``hits``)."""

    dense: list[tuple[ChunkRow, float]]
    lexical: list[tuple[ChunkRow, float]]
    exact: list[tuple[ChunkRow, float]] = dataclasses.field(default_factory=list)  # verbatim
    named: frozenset[str] = frozenset()  # files the question names
    lead: tuple[str, ...] = ()  # of those, the reports of the kind it asks for (``reports``)

    def without(self, exclude: Callable[[ChunkRow], bool]) -> Candidates:
        """The same candidates, less the passages ``exclude`` picks."""
        return Candidates(
            [(r, s) for r, s in self.dense if not exclude(r)],
            [(r, s) for r, s in self.lexical if not exclude(r)],
            [(r, s) for r, s in self.exact if not exclude(r)],
            self.named,
            self.lead,
        )

    def hits(self, k: int, mode: str = "hybrid", depth: int | None = None) -> list[Hit]:
        """Fused hits from each retriever's top ``depth`` candidates (default: all)."""
        first = [row for row, _ in self.exact] if mode != "dense" else []
        return fuse(self.dense[:depth], self.lexical[:depth], k, mode, first, self.named)

    def ranked(
        self,
        k: int,
        mode: str,
        depth: int | None,
        read_pages: Callable[[list[Hit], Sequence[str]], list[Hit]] | None,
    ) -> list[Hit]:
        """The shipped order: fused hits, then (hybrid, no verbatim holder of the query) the
        pages of the leading paged files (and of the named reports of the kind the question
        asks for) ranked again (``pages``), cut to ``k``."""
        if read_pages is None or mode != "hybrid" or self.exact:
            return self.hits(k, mode, depth)
        # the pages are read against as many hits as one retriever's candidates (as tuned)
        wide = self.hits(max(k, depth or max(len(self.dense), len(self.lexical))), mode, depth)
        return read_pages(wide, self.lead)[:k]


def page_reader(
    manifest: Manifest,
    store: VectorStore,
    query: str,
    qvec: np.ndarray,
    exclude: Callable[[ChunkRow], bool] | None = None,
    files: Callable[[str], pages.FileView] | None = None,
) -> Callable[[list[Hit], Sequence[str]], list[Hit]]:
    """``pages.rerank`` for one query over this index (passages ``exclude`` picks left out;
    ``files`` reads a file's passages, ``IndexCache.pages`` to keep them between queries)."""

    def pages_of(path: str) -> pages.FileView:
        view = files(path) if files is not None else pages.FileView(manifest.chunks_of(path))
        if exclude is None:
            return view
        rows = [r for r in view.rows if not exclude(r)]
        return view if len(rows) == len(view.rows) else pages.FileView(rows)

    def read(hits: list[Hit], lead: Sequence[str] = ()) -> list[Hit]:
        return pages.rerank(query, qvec, hits, pages_of, store.vectors, lead)

    return read


def candidates(
    manifest: Manifest,
    store: VectorStore,
    qvec: np.ndarray,
    query: str,
    n: int,
    *,
    scope: Scope | None = None,
    members: ScopeMembers | None = None,
    named: NamedFiles | None = None,
) -> Candidates:
    """Each retriever's ``n`` best within the scope (if any), the passages holding the query
    word for word, and, unscoped, the ``n`` best of each file the question names."""
    dense = dense_rows(manifest, store, qvec, n, members)
    lex = lexical_rows(manifest, query, n, scope)
    exact = phrase_rows(manifest, query, PINNED, scope)
    files = named.named(query) if named is not None and members is None else []
    lead = tuple(named.asked(query, files)) if named is not None and files else ()
    if files:
        within = Scope(paths=tuple(files))
        dense = _union(dense, dense_rows(manifest, store, qvec, n, within.members(manifest.conn)))
        lex = _union(lex, lexical_rows(manifest, query, n, within))
    return Candidates(dense, lex, exact, frozenset(files), lead)


def _union(
    a: list[tuple[ChunkRow, float]], b: list[tuple[ChunkRow, float]]
) -> list[tuple[ChunkRow, float]]:
    """Two lists of the same retriever (same scores) as one, best first."""
    rows = {row.row_id: (row, score) for row, score in [*b, *a]}
    return sorted(rows.values(), key=lambda rs: -rs[1])


def dense_rows(
    manifest: Manifest,
    store: VectorStore,
    qvec: np.ndarray,
    n: int,
    members: ScopeMembers | None = None,
) -> list[tuple[ChunkRow, float]]:
    """Chunk rows in order of their text's similarity (duplicate texts share a score).

    With ``members``, the ``n`` best rows within that scope. One vector serves every file
    holding its text, so a text's rows outside the scope are dropped. A small scope ranks only
    its own vectors; a large one costs less as the exact ranking of the whole index, filtered,
    which is the same order, widened until ``n`` rows are in the scope.
    """
    if members is None:
        return _rows(manifest, store.nearest(qvec, n), n)
    if members.chunks * members.share <= READ_HASHES_BELOW * n:
        allowed = members.scope.hashes(manifest.conn)
        return _rows(manifest, store.nearest(qvec, n, allowed), n, members.paths)
    want = n + int(2 * n / members.share)
    while True:
        found = store.nearest(qvec, want)
        rows = _rows(manifest, found, n, members.paths)
        if len(rows) >= n or len(found) < want:
            return rows
        want *= 4


def _rows(
    manifest: Manifest, found: list[DenseHit], n: int, paths: frozenset[str] | None = None
) -> list[tuple[ChunkRow, float]]:
    """The chunk rows of the texts found, best first, only those of ``paths`` if given."""
    rows = manifest.chunks_for_hashes([d.text_hash for d in found])
    out: list[tuple[ChunkRow, float]] = []
    for d in found:
        for row in rows.get(d.text_hash, []):
            if paths is None or row.path in paths:
                out.append((row, d.similarity))
        if len(out) >= n:
            break
    return out[:n]


def lexical_rows(
    manifest: Manifest, query: str, n: int, scope: Scope | None = None
) -> list[tuple[ChunkRow, float]]:
    within = None if scope is None or scope.everything else scope.files_where("f")
    return _lexical_rows(manifest, lexical.search(manifest.conn, query, n, within))


def phrase_rows(
    manifest: Manifest, query: str, n: int, scope: Scope | None = None
) -> list[tuple[ChunkRow, float]]:
    """Passages holding the whole of a long query, or a quoted phrase of it, word for word.

    Among them, those that hold the query character for character (case and punctuation
    too; runs of spaces aside) come first: near-identical boilerplate in other files (a
    filing's cover page) matches word for word but not to the letter.
    """
    within = None if scope is None or scope.everything else scope.files_where("f")
    found = lexical.phrase_search(manifest.conn, query, max(n, PHRASE_POOL), within)
    exact = " ".join(query.split())
    rows = sorted(
        _lexical_rows(manifest, found), key=lambda r: exact not in " ".join(r[0].text.split())
    )
    return rows[:n]


def _lexical_rows(
    manifest: Manifest, found: list[lexical.LexicalHit]
) -> list[tuple[ChunkRow, float]]:
    rows = manifest.chunks_by_rowid([h.row_id for h in found])
    return [(rows[h.row_id], h.score) for h in found if h.row_id in rows]


class Retriever:
    """Search over one index; the embedder and store are created lazily by the caller."""

    def __init__(
        self,
        manifest: Manifest,
        embedder: Callable[[], Embedder],
        store: Callable[[], VectorStore],
        candidates: int = 50,
        *,
        cache: IndexCache | None = None,
    ) -> None:
        self.manifest = manifest
        self._embedder = embedder
        self._store = store
        self.candidates = candidates
        # what searches of this index reuse; the engine keeps one per open connection
        self.cache = cache if cache is not None else IndexCache(manifest)
        self.named = self.cache.named

    def search(
        self, query: str, k: int = 8, mode: str = "hybrid", scope: Scope | None = None
    ) -> SearchResult:
        """The k best passages for ``query`` (within ``scope``, if given), with the verdict;
        a query over the length cap is a ``QueryError`` (see ``query``)."""
        query = checked_query(query)
        members = None
        if scope is not None and not scope.everything:
            members = scope.members(self.manifest.conn)
            if not members.chunks:
                return SearchResult(query, [], Support(False, 0.0, scope.nothing_reason()), scope)
        if self.manifest.conn.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is None:
            # nothing indexed: no query vector to make, no model or vector store to load
            verdict = support.assess(query, [], stats=self.cache.stats)
            return SearchResult(query, [], verdict, scope, index_empty=True)
        qvec = self._embedder().encode([query])[0]
        # the verdict reads the same passages whatever k is
        hits = self.ranked(query, qvec, max(k, support.HITS), mode, scope=scope, members=members)
        hits = contents_last(query, hits)
        verdict = support.assess(
            query,
            hits[: support.HITS],
            stats=self.cache.stats,
            calibration=self.cache.calibration(),
        )
        if not verdict.supported and pending.chunks_waiting(self.manifest.conn):
            verdict = dataclasses.replace(verdict, reason=BUILDING, building=True)
        hits = hits[:k]
        self.manifest.mark_ocr(hits)  # a passage from a scanned page says so
        return SearchResult(query, hits, verdict, scope)

    def ranked(
        self,
        query: str,
        qvec: np.ndarray,
        k: int,
        mode: str = "hybrid",
        *,
        scope: Scope | None = None,
        members: ScopeMembers | None = None,
        exclude: Callable[[ChunkRow], bool] | None = None,
        depth: int | None = None,
    ) -> list[Hit]:
        """The fused hits of an embedded query, every hit with its dense score: what search,
        the calibration probes and evaluation all rank by. ``exclude`` ranks as if the passages
        it picks were not indexed (each retriever's candidates widened, filtered, then cut to
        ``depth``)."""
        n = max(depth or self.candidates, k)
        wide = n if exclude is None else n * 8
        found = candidates(
            self.manifest, self._store(), qvec, query, wide,
            scope=scope, members=members, named=self.named,
        )  # fmt: skip
        if exclude is not None:
            found = found.without(exclude)
        waiting = self._rank_waiting(found, qvec, n) if mode != "lexical" else {}
        reader = page_reader(self.manifest, self._store(), query, qvec, exclude, self.cache.pages)
        hits = found.ranked(k, mode, n, reader)
        for h in hits:
            if h.dense_score is None and h.text_hash in waiting:
                h.dense_score = waiting[h.text_hash]
        self._fill_dense_scores(hits, qvec)  # for any k
        return hits

    def _rank_waiting(self, found: Candidates, qvec: np.ndarray, n: int) -> dict[str, float]:
        """Passages read but not embedded yet join the dense list where an exact search would
        put them (their cosine computed now, for this question only), so that while vectors
        are being computed the best passage is not missing from the dense side, and a weak
        one that has its vector never ranks with it for want of a rival. Returns the cosines
        computed, by text hash."""
        if not pending.count(self.manifest.conn):
            return {}
        in_dense = {row.row_id for row, _ in found.dense}
        others = [row for row, _ in [*found.lexical, *found.exact] if row.row_id not in in_dense]
        hashes = list(dict.fromkeys(r.text_hash for r in others if r.text_hash))
        waiting = pending.among(self.manifest.conn, hashes)
        texts = self.manifest.texts_for_hashes(sorted(waiting))
        if not texts:
            return {}
        encoded = self._embedder().encode(list(texts.values()))
        cosines = {h: float(np.dot(v, qvec)) for h, v in zip(texts, encoded, strict=True)}
        floor = found.dense[n - 1][1] if len(found.dense) >= n else -1.0
        joined = [(r, cosines[r.text_hash or ""]) for r in others if r.text_hash in cosines]
        joined = [(r, c) for r, c in joined if c > floor]
        found.dense = _union(found.dense, joined)[: max(n, len(found.dense))]
        return cosines

    def _fill_dense_scores(self, hits: list[Hit], qvec: np.ndarray) -> None:
        """Hits found only lexically still get their cosine similarity (the support needs it)."""
        lacking = [h for h in hits if h.dense_score is None and h.text_hash]
        if not lacking:
            return
        wanted = {h.text_hash for h in lacking if h.text_hash}
        vectors = self._store().vectors(wanted)
        waiting = self.manifest.texts_for_hashes(wanted - set(vectors))
        if waiting:  # passages read but not embedded yet: encoded now, for this question only
            encoded = self._embedder().encode(list(waiting.values()))
            vectors.update(zip(waiting, encoded, strict=True))
        for h in lacking:
            vec = vectors.get(h.text_hash or "")
            if vec is not None:
                h.dense_score = float(np.dot(vec, qvec))


# A question about a document's layout, where a contents page or an index is the answer.
ABOUT_CONTENTS = re.compile(
    r"\b(?:contents|index|chapters?|sections?|appendix|appendices|page numbers?)\b",
    re.IGNORECASE,
)


def contents_last(query: str, hits: list[Hit]) -> list[Hit]:
    """Tables of contents, indexes and lists of page numbers after the passages of prose:
    they share a question's words with the pages they point to and often outrank them, yet
    they never answer it (unless the question is about them). Ranks are renumbered."""
    if ABOUT_CONTENTS.search(query):
        return hits
    listing = [is_toc_like(h.text) for h in hits]
    if not any(listing):
        return hits
    ordered = [h for h, toc in zip(hits, listing, strict=True) if not toc]
    ordered += [h for h, toc in zip(hits, listing, strict=True) if toc]
    return [dataclasses.replace(h, rank=n) for n, h in enumerate(ordered, start=1)]
