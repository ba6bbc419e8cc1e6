"""Retrieval figures: SciFact nDCG@10 / Recall@100 and FinanceBench evidence page in the top k.

Each set gets its own index in ``<data dir>/eval/<set>`` (so evaluation never mixes with a
person's own index, and a second run reuses the first one's index).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from app.core.engine import Engine
from app.core.index.indexer import ProgressFn
from app.core.search.retrieval import Candidates, page_reader
from app.core.search.retrieval import candidates as gather
from app.core.text import sentence_spans
from app.core.types import Hit
from app.evaluation.datasets import (
    BeirSet,
    FinanceQuestion,
    load_beir,
    load_financebench,
    load_written_pages,
    write_docs,
)
from app.evaluation.metrics import ndcg_at_k, recall_at_k
from app.evaluation.support_data import DEV_HALF, half

MODES = ("dense", "lexical", "hybrid")


def unique_docs(hits: Iterable[Hit], doc_of: Callable[[Hit], str]) -> list[str]:
    """Documents in the order of their best-ranked hit."""
    return list(dict.fromkeys(doc_of(h) for h in hits))


def file_stem(hit: Hit) -> str:
    return Path(hit.path).stem


def eval_engine(parent: Engine, name: str) -> Engine:
    """An engine over ``<data dir>/eval/<name>`` sharing the parent's embedding model."""
    settings = dataclasses.replace(parent.settings, chroma_url=None)
    return Engine(parent.data.root / "eval" / name, settings=settings, embedder=parent.embedder())


def candidates(engine: Engine, queries: Sequence[str], depth: int) -> Iterable[Candidates]:
    """Each query's candidates as the shipped search gathers them, each retriever's top
    ``depth`` (queries embedded in batches)."""
    for cand, _ in ranked_candidates(engine, queries, depth):
        yield cand


def ranked_candidates(
    engine: Engine, queries: Sequence[str], depth: int
) -> Iterable[tuple[Candidates, Callable[[list[Hit], Sequence[str]], list[Hit]]]]:
    """Each query's candidates with its page reader: ``cand.ranked(k, mode, depth, reader)``
    is the shipped order (``retrieval.Candidates.ranked``)."""
    embedder, store = engine.embedder(), engine.store()
    named = engine.retriever.named
    for i in range(0, len(queries), 64):
        part = queries[i : i + 64]
        vectors = embedder.encode(list(part))
        for q, vec in zip(part, vectors, strict=True):
            cand = gather(engine.manifest, store, vec, q, depth, named=named)
            yield (
                cand,
                page_reader(engine.manifest, store, q, vec, files=engine.retriever.cache.pages),
            )


def eval_beir(engine: Engine, data: BeirSet, *, k: int = 10, depth: int = 100) -> dict[str, Any]:
    """nDCG@k (the shipped search: its candidate count per retriever) and Recall@depth (from
    ``depth`` candidates per retriever) per mode; a document counts at its best-ranked chunk."""
    ids = list(data.queries)
    shipped = engine.retriever.candidates
    sums = {m: {"ndcg@10": 0.0, f"recall@{depth}": 0.0} for m in MODES}
    for qid, cand in zip(
        ids, candidates(engine, [data.queries[q] for q in ids], max(depth, shipped)), strict=True
    ):
        gains = data.qrels[qid]
        relevant = [d for d, g in gains.items() if g > 0]
        for mode in MODES:
            top = unique_docs(cand.hits(shipped * 2, mode, shipped), file_stem)
            sums[mode]["ndcg@10"] += ndcg_at_k(top, gains, k)
            deep = unique_docs(cand.hits(depth * 2, mode, depth), file_stem)
            sums[mode][f"recall@{depth}"] += recall_at_k(deep, relevant, depth)
    n = max(1, len(ids))
    return {
        "queries": len(ids),
        "candidates_per_retriever": shipped,
        "modes": {m: {name: round(v / n, 4) for name, v in s.items()} for m, s in sums.items()},
    }


def run_scifact(
    parent: Engine, data_dir: Path, *, limit: int | None = None, progress: ProgressFn | None = None
) -> dict[str, Any]:
    beir = load_beir(data_dir / "scifact", limit=limit)
    engine = eval_engine(parent, "scifact")
    try:
        docs = write_docs(beir.corpus, parent.data.root / "eval" / "scifact-docs")
        report = engine.index([str(docs)], progress=progress)
        return {"set": "scifact", "index": index_summary(report), **eval_beir(engine, beir)}
    finally:
        engine.close()


HALVES = ("dev", "held_out")


def half_of(key: str) -> str:
    """The half a question (or a group) falls in, as every ``eval`` splits them: tune on
    "dev", report "held_out"."""
    return "dev" if half(key) == DEV_HALF else "held_out"


def eval_financebench(
    engine: Engine,
    questions: Sequence[FinanceQuestion],
    cuts: Sequence[int] = (5, 10),
    split: bool = True,
) -> dict[str, Any]:
    """Share of questions with an evidence page among the top-n hits (chunks), per mode (the
    shipped order: hybrid reads the pages of the leading filings again), on all questions
    and (``split``) on each half."""
    groups = ("all", *HALVES)
    found = {g: {m: dict.fromkeys(cuts, 0) for m in MODES} for g in groups}
    counts = dict.fromkeys(groups, 0)
    depth = max(engine.retriever.candidates, max(cuts))
    shipped = engine.retriever.candidates  # each retriever's top n, as the search fuses them
    ranked = ranked_candidates(engine, [q.question for q in questions], depth)
    for q, (cand, reader) in zip(questions, ranked, strict=True):
        where_half = half_of(q.id)
        counts["all"] += 1
        counts[where_half] += 1
        for mode in MODES:
            hits = cand.ranked(max(cuts), mode, shipped, reader)
            where = [(file_stem(h), h.page) for h in hits]
            for n in cuts:
                got = any(w in q.pages for w in where[:n])
                found["all"][mode][n] += got
                found[where_half][mode][n] += got

    def shares(group: str) -> dict[str, dict[str, float]]:
        total = max(1, counts[group])
        return {
            m: {f"page@{n}": round(c / total, 4) for n, c in f.items()}
            for m, f in found[group].items()
        }

    out: dict[str, Any] = {"questions": len(questions), "modes": shares("all")}
    if split:
        out["halves"] = {h: {"questions": counts[h], "modes": shares(h)} for h in HALVES}
    return out


def run_financebench(
    parent: Engine, data_dir: Path, *, limit: int | None = None, progress: ProgressFn | None = None
) -> dict[str, Any]:
    questions = load_financebench(data_dir / "financebench", limit)
    engine = eval_engine(parent, "financebench")
    try:
        report = engine.index([str(data_dir / "corpus" / "filings")], progress=progress)
        return {
            "set": "financebench",
            "index": index_summary(report),
            **eval_financebench(engine, questions),
        }
    finally:
        engine.close()


def index_summary(report: Any) -> dict[str, Any]:
    j = report.to_json()
    return {
        k: j[k]
        for k in ("files_seen", "files_failed", "chunks_total", "chunks_embedded", "seconds")
    }


KnownItem = tuple[str, str, int | None]  # a sentence, the path and page it was taken from


def known_items(engine: Engine, count: int, seed: int = 13) -> list[KnownItem]:
    """(sentence, path, page) for ``count`` passages drawn with a fixed seed: the sentence is
    the passage's longest one, as a person would paste it to find its source again."""
    rows = engine.manifest.conn.execute("SELECT id FROM chunks ORDER BY id").fetchall()
    rng = random.Random(seed)
    picked = rng.sample([r[0] for r in rows], min(len(rows), count * 3))
    out: list[KnownItem] = []
    for row in engine.manifest.chunks_by_rowid(picked).values():
        spans = sentence_spans(row.text)
        if not spans:
            continue
        start, end = max(spans, key=lambda s: s[1] - s[0])
        sentence = " ".join(row.text[start:end].split())
        if len(sentence.split()) >= 12:
            out.append((sentence, row.path, row.page))
        if len(out) == count:
            break
    return out


def eval_known_items(
    engine: Engine, items: Sequence[tuple[str, str, int | None]]
) -> dict[str, Any]:
    """Share of pasted sentences whose passage comes first (identical text elsewhere counts)
    and whose page is in the top 5, per mode."""
    groups = ("all", *HALVES)
    first = {g: dict.fromkeys(MODES, 0) for g in groups}
    page5 = {g: dict.fromkeys(MODES, 0) for g in groups}
    counts = dict.fromkeys(groups, 0)
    depth = engine.retriever.candidates
    ranked = ranked_candidates(engine, [s for s, _, _ in items], depth)
    for (sentence, path, page), (cand, reader) in zip(items, ranked, strict=True):
        where_half = half_of(path)  # by file: a file's sentences fall in one half
        counts["all"] += 1
        counts[where_half] += 1
        for mode in MODES:
            hits = cand.ranked(5, mode, depth, reader)
            is_first = bool(hits) and sentence in " ".join(hits[0].text.split())
            on_page = any(h.path == path and h.page == page for h in hits)
            for g in ("all", where_half):
                first[g][mode] += is_first
                page5[g][mode] += on_page

    def shares(group: str) -> dict[str, dict[str, float]]:
        n = max(1, counts[group])
        return {
            m: {"first": round(first[group][m] / n, 4), "page@5": round(page5[group][m] / n, 4)}
            for m in MODES
        }

    return {
        "items": len(items),
        "modes": shares("all"),
        "halves": {h: {"items": counts[h], "modes": shares(h)} for h in HALVES},
    }


def dense_recall_vs_exact(engine: Engine, queries: Sequence[str], k: int = 10) -> dict[str, float]:
    """Recall@k of the HNSW graph and of the shipped dense search against an exact top k."""
    store, embedder = engine.store(), engine.embedder()
    graph = shipped = 0.0
    for vec in embedder.encode(list(queries)):
        exact = {d.text_hash for d in store.nearest(vec, k)}  # the shipped search is exact
        graph += len(exact & {d.text_hash for d in store.query(vec, k)}) / max(1, len(exact))
        shipped += 1.0
    n = max(1, len(queries))
    return {"hnsw": round(graph / n, 4), "shipped": round(shipped / n, 4)}


def run_corpus(
    parent: Engine,
    data_dir: Path,
    *,
    limit: int | None = None,
    progress: ProgressFn | None = None,
    index_dir: Path | None = None,
    held_out_pages: Sequence[FinanceQuestion] | None = None,
) -> dict[str, Any]:
    """Known-item search, FinanceBench and dense recall over one index of the whole corpus/.

    ``index_dir`` names a data directory that already holds an index of corpus/ (made by
    ``footnotes index``); otherwise one is built in ``<data dir>/eval/corpus``.
    ``held_out_pages``: questions written over the filings as the dev ones were, kept outside
    the repository so that nothing is tuned on them (``load_written_pages`` of their file),
    reported as held out.
    """
    held_out = list(held_out_pages)[:limit] if held_out_pages is not None else None
    if index_dir is not None:
        engine = Engine(index_dir, settings=dataclasses.replace(parent.settings, chroma_url=None))
        report = None
    else:
        engine = eval_engine(parent, "corpus")
        report = engine.index([str(data_dir / "corpus")], progress=progress)
    try:
        questions = load_financebench(data_dir / "financebench", limit)
        items = known_items(engine, limit or 300)
        out: dict[str, Any] = {
            "set": "corpus",
            "index": index_summary(report) if report else {"data_dir": str(index_dir)},
            "known_item": eval_known_items(engine, items),
            "financebench": eval_financebench(engine, questions),
            "written_pages": eval_financebench(engine, load_written_pages()[:limit], split=False),
        }
        if held_out is not None:
            out["written_pages_held_out"] = eval_financebench(engine, held_out, split=False)
        out["dense_recall@10_vs_exact"] = dense_recall_vs_exact(
            engine, [q.question for q in questions] + [s for s, _, _ in items[:200]]
        )
        return out
    finally:
        engine.close()
