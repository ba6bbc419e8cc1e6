"""Evaluation on labelled sets: SciFact (BEIR) and FinanceBench retrieval, SQuAD 2.0 support.

Each set gets its own index in ``<data dir>/eval/<set>`` (so evaluation never mixes with a
person's own index, and a second run reuses the first one's index). Metrics are the standard
ones: nDCG@10 with graded gains, Recall@k, and AUROC (Mann-Whitney, ties counted half).
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.core.engine import Engine
from app.core.index.indexer import ProgressFn
from app.core.search import support
from app.core.search.retrieval import dense_rows, fuse, lexical_rows
from app.core.search.support import SupportModel
from app.core.types import Hit

MODES = ("dense", "lexical", "hybrid")


class EvalDataError(Exception):
    """The evaluation data is missing or unreadable; the message names the file."""


def default_data_dir() -> Path:
    """``../shared/data`` beside the project checkout."""
    return Path(__file__).resolve().parents[3] / "shared" / "data"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        with path.open(encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    except (OSError, ValueError) as exc:
        raise EvalDataError(f"cannot read {path}: {exc}") from None


# -- metrics ---------------------------------------------------------------------------------
def ndcg_at_k(ranked: Sequence[str], gains: Mapping[str, float], k: int = 10) -> float:
    """nDCG@k with linear gains (the BEIR/trec_eval definition): DCG / ideal DCG."""
    dcg = sum(gains.get(d, 0.0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((g for g in gains.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int) -> float:
    rel = set(relevant)
    return len(rel & set(ranked[:k])) / len(rel) if rel else 0.0


def auroc(positive: Sequence[float] | np.ndarray, negative: Sequence[float] | np.ndarray) -> float:
    """P(score of a random positive > score of a random negative), ties counted half."""
    n_pos, n_neg = len(positive), len(negative)
    if not n_pos or not n_neg:
        return float("nan")
    ranks = average_ranks(
        np.concatenate([np.asarray(positive, float), np.asarray(negative, float)])
    )
    return float((ranks[:n_pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, tied values sharing the mean of their ranks."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    upper = np.cumsum(counts)
    return ((upper - counts + 1 + upper) / 2.0)[inverse]


def unique_docs(hits: Iterable[Hit], doc_of: Callable[[Hit], str]) -> list[str]:
    """Documents in the order of their best-ranked hit."""
    return list(dict.fromkeys(doc_of(h) for h in hits))


def file_stem(hit: Hit) -> str:
    return Path(hit.path).stem


# -- writing sets out as files and indexing them ---------------------------------------------
def safe_name(doc_id: str) -> str:
    return re.sub(r"[^\w.#-]", "_", doc_id)


def write_docs(docs: Mapping[str, str], folder: Path) -> Path:
    """One ``<id>.txt`` per document; files whose text is unchanged are left alone (mtime kept)."""
    folder.mkdir(parents=True, exist_ok=True)
    for doc_id, text in docs.items():
        path = folder / f"{safe_name(doc_id)}.txt"
        try:
            if path.read_text(encoding="utf-8") == text:
                continue
        except OSError:
            pass
        path.write_text(text, encoding="utf-8")
    return folder


def eval_engine(parent: Engine, name: str) -> Engine:
    """An engine over ``<data dir>/eval/<name>`` sharing the parent's embedding model."""
    settings = dataclasses.replace(parent.settings, chroma_url=None)
    return Engine(parent.data.root / "eval" / name, settings=settings, embedder=parent.embedder())


# -- retrieval: SciFact (BEIR layout) --------------------------------------------------------
@dataclass
class BeirSet:
    corpus: dict[str, str]  # id -> title + blank line + text
    queries: dict[str, str]
    qrels: dict[str, dict[str, float]]


def load_beir(folder: Path, split: str = "dev", limit: int | None = None) -> BeirSet:
    """A BEIR folder; only queries with judgements in ``qrels/<split>.tsv`` are kept."""
    corpus = {
        str(d["_id"]): f"{d.get('title', '').strip()}\n\n{d['text']}".strip() + "\n"
        for d in read_jsonl(folder / "corpus.jsonl")
    }
    qrels: dict[str, dict[str, float]] = {}
    try:
        lines = (folder / "qrels" / f"{split}.tsv").read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EvalDataError(f"cannot read qrels: {exc}") from None
    for line in lines[1:]:
        qid, did, score = line.split("\t")[:3]
        qrels.setdefault(qid, {})[did] = float(score)
    queries = {str(q["_id"]): q["text"] for q in read_jsonl(folder / "queries.jsonl")}
    kept = [q for q in queries if q in qrels][:limit]
    return BeirSet(corpus, {q: queries[q] for q in kept}, {q: qrels[q] for q in kept})


@dataclass
class Candidates:
    """Dense and lexical candidate lists of one query, fused on demand per mode."""

    dense: list[Any]
    lexical: list[Any]

    def hits(self, k: int, mode: str, depth: int | None = None) -> list[Hit]:
        """Fused hits from each retriever's top ``depth`` candidates (default: all)."""
        return fuse(self.dense[:depth], self.lexical[:depth], k, mode)


def candidates(engine: Engine, queries: Sequence[str], depth: int) -> Iterable[Candidates]:
    """Each query's dense and BM25 top-``depth`` lists (queries embedded in batches)."""
    embedder, store = engine.embedder(), engine.store()
    for i in range(0, len(queries), 64):
        part = queries[i : i + 64]
        vectors = embedder.encode(list(part))
        for q, vec in zip(part, vectors, strict=True):
            yield Candidates(
                dense_rows(engine.manifest, store, vec, depth),
                lexical_rows(engine.manifest, q, depth),
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
        return {"set": "scifact", "index": _index_summary(report), **eval_beir(engine, beir)}
    finally:
        engine.close()


# -- retrieval: FinanceBench evidence pages --------------------------------------------------
@dataclass
class FinanceQuestion:
    id: str
    question: str
    pages: set[tuple[str, int]] = field(default_factory=set)  # (doc name, 1-based page)


def load_financebench(folder: Path, limit: int | None = None) -> list[FinanceQuestion]:
    """Questions whose PDFs are present; evidence pages converted to 1-based."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EvalDataError(f"cannot read {folder / 'manifest.json'}: {exc}") from None
    present = {q["financebench_id"] for q in manifest["questions"] if q.get("pdf_included")}
    out = []
    for q in read_jsonl(folder / "questions.jsonl"):
        if q["financebench_id"] in present:
            pages = {(e["doc_name"], int(e["evidence_page_num"]) + 1) for e in q["evidence"]}
            out.append(FinanceQuestion(q["financebench_id"], q["question"], pages))
    return out[:limit]


def eval_financebench(
    engine: Engine, questions: Sequence[FinanceQuestion], cuts: Sequence[int] = (5, 10)
) -> dict[str, Any]:
    """Share of questions with an evidence page among the top-n hits (chunks), per mode."""
    found = {m: dict.fromkeys(cuts, 0) for m in MODES}
    depth = max(engine.retriever.candidates, max(cuts))
    for q, cand in zip(
        questions, candidates(engine, [q.question for q in questions], depth), strict=True
    ):
        for mode in MODES:
            where = [(file_stem(h), h.page) for h in cand.hits(max(cuts), mode)]
            for n in cuts:
                found[mode][n] += any(w in q.pages for w in where[:n])
    total = max(1, len(questions))
    return {
        "questions": len(questions),
        "modes": {
            m: {f"page@{n}": round(c / total, 4) for n, c in f.items()} for m, f in found.items()
        },
    }


def run_financebench(
    parent: Engine, data_dir: Path, *, limit: int | None = None, progress: ProgressFn | None = None
) -> dict[str, Any]:
    questions = load_financebench(data_dir / "financebench", limit)
    engine = eval_engine(parent, "financebench")
    try:
        report = engine.index([str(data_dir / "corpus" / "filings")], progress=progress)
        return {
            "set": "financebench",
            "index": _index_summary(report),
            **eval_financebench(engine, questions),
        }
    finally:
        engine.close()


def _index_summary(report: Any) -> dict[str, Any]:
    j = report.to_json()
    return {
        k: j[k]
        for k in ("files_seen", "files_failed", "chunks_total", "chunks_embedded", "seconds")
    }


# -- support: SQuAD 2.0 ----------------------------------------------------------------------
KINDS = ("answerable", "unanswerable_in_corpus", "out_of_corpus")


@dataclass
class SquadQuestion:
    id: str
    question: str
    kind: str
    title: str
    passage_id: str | None


def load_squad2(
    folder: Path, limit: int | None = None
) -> tuple[dict[str, str], list[SquadQuestion]]:
    """Passages (id -> text) and the development questions (``limit`` per kind)."""
    passages = {
        str(p["_id"]): p["text"].strip() + "\n" for p in read_jsonl(folder / "passages.jsonl")
    }
    taken = dict.fromkeys(KINDS, 0)
    questions = []
    for q in read_jsonl(folder / "questions.jsonl"):
        kind = q.get("kind", "")
        if kind not in taken or (limit is not None and taken[kind] >= limit):
            continue
        taken[kind] += 1
        questions.append(
            SquadQuestion(q["id"], q["question"], kind, q.get("title", ""), q.get("passage_id"))
        )
    return passages, questions


@dataclass
class SupportSample:
    """One question's retrieval evidence, as the shipped search produces it."""

    question: SquadQuestion
    hits: list[Hit]
    found_passage: bool  # the question's own passage is among the hits


def search_squad2(
    parent: Engine,
    data_dir: Path,
    *,
    limit: int | None = None,
    progress: ProgressFn | None = None,
    each: Callable[[int, int], None] | None = None,
) -> tuple[dict[str, Any], list[SupportSample]]:
    """Index the passages (one file each) and run every question through the shipped search."""
    passages, questions = load_squad2(data_dir / "squad2", limit)
    engine = eval_engine(parent, "squad2")
    try:
        docs = write_docs(passages, parent.data.root / "eval" / "squad2-docs")
        summary = _index_summary(engine.index([str(docs)], progress=progress))
        k = engine.settings.top_k
        samples = []
        for i, q in enumerate(questions):
            hits = engine.search(q.question, k).hits
            own = safe_name(q.passage_id or "")
            samples.append(SupportSample(q, hits, any(file_stem(h) == own for h in hits)))
            if each is not None:
                each(i + 1, len(questions))
        return summary, samples
    finally:
        engine.close()


def title_half(title: str) -> int:
    """A deterministic split by article, so both halves hold unseen articles for the other."""
    return int(hashlib.blake2b(title.encode("utf-8"), digest_size=4).hexdigest(), 16) % 2


def verdict_figures(
    kinds: Sequence[str], scores: Sequence[float], flagged: Sequence[bool]
) -> dict[str, Any]:
    """AUROC of answerable vs each negative kind, and the share of each kind flagged."""
    by_kind: dict[str, list[int]] = {k: [] for k in KINDS}
    for i, kind in enumerate(kinds):
        by_kind[kind].append(i)
    s, f = np.asarray(scores, float), np.asarray(flagged, bool)
    pos = s[by_kind["answerable"]]
    out: dict[str, Any] = {
        "auroc_vs_out_of_corpus": round(auroc(pos, s[by_kind["out_of_corpus"]]), 4),
        "auroc_vs_unanswerable_in_corpus": round(
            auroc(pos, s[by_kind["unanswerable_in_corpus"]]), 4
        ),
    }
    for kind, idx in by_kind.items():
        out[f"flagged_{kind}"] = round(float(f[idx].mean()), 4) if idx else float("nan")
    out["n"] = {k: len(v) for k, v in by_kind.items()}
    return out


def support_report(
    samples: Sequence[SupportSample],
    rows: Sequence[dict[str, float]],
    model: SupportModel,
    cosine_cut: float = 0.25,
) -> dict[str, Any]:
    """The shipped model's figures and, on the same questions, a fixed cosine cut-off's."""
    kinds = [s.question.kind for s in samples]
    probs = [model.probability(r) for r in rows]
    dense = [r["dense_top"] for r in rows]
    return {
        "model": {
            "threshold": model.threshold,
            **verdict_figures(kinds, probs, [p < model.threshold for p in probs]),
        },
        f"cosine_{cosine_cut:g}": verdict_figures(kinds, dense, [d < cosine_cut for d in dense]),
    }


def refit_support(
    samples: Sequence[SupportSample],
    *,
    l2: float = 1.0,
    flag_rate: float = 0.04,
    cosine_cut: float = 0.25,
) -> tuple[SupportModel, dict[str, Any]]:
    """Fit on one half of the articles and report on the other (both ways); then fit on all."""
    rows = [support.features(s.question.question, s.hits) for s in samples]
    halves = [title_half(s.question.title) for s in samples]
    labels = [s.question.kind == "answerable" for s in samples]
    held_out: dict[str, dict[str, Any] | None] = {}
    for half in (0, 1):
        fit = [i for i, h in enumerate(halves) if h != half]
        test = [i for i, h in enumerate(halves) if h == half]
        name = f"fit_on_half_{1 - half}_report_on_half_{half}"
        if len({labels[i] for i in fit}) < 2 or not test:
            held_out[name] = None  # too few questions for this split (tiny test sets)
            continue
        model = support.fit_model(
            [rows[i] for i in fit], [labels[i] for i in fit], l2=l2, flag_rate=flag_rate
        )
        held_out[name] = support_report(
            [samples[i] for i in test], [rows[i] for i in test], model, cosine_cut
        )
    final = support.fit_model(rows, labels, l2=l2, flag_rate=flag_rate)
    in_sample = support_report(samples, rows, final, cosine_cut)
    final = dataclasses.replace(
        final,
        fitted_on=f"SQuAD 2.0 dev questions ({len(samples)}), squad2/passages.jsonl indexed",
        provenance={
            "date": datetime.date.today().isoformat(),
            "data": "squad2/questions.jsonl (answerable = positive; unanswerable_in_corpus and "
            "out_of_corpus = negative), one file per passage of squad2/passages.jsonl",
            "method": f"L2 logistic regression (lambda={l2}) on standardised features, balanced "
            f"class weights; threshold at the {flag_rate:.0%} quantile of answerable",
            "n": {k: sum(s.question.kind == k for s in samples) for k in KINDS},
            "held_out_halves": held_out,
            "in_sample": in_sample,
        },
    )
    return final, {"held_out": held_out, "in_sample": in_sample}
