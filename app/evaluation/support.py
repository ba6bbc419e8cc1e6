"""The "unsupported" verdict on SQuAD 2.0, and the refit of its parameters on held-out halves.

Answerable questions are the positives; questions an indexed paragraph does not answer and
questions about articles that are not indexed are the two negative kinds, reported apart.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.core.engine import Engine
from app.core.index.indexer import ProgressFn
from app.core.search import support
from app.core.search.support import SupportModel
from app.core.types import Hit
from app.evaluation.datasets import KINDS, SquadQuestion, load_squad2, safe_name, write_docs
from app.evaluation.metrics import auroc
from app.evaluation.retrieval import eval_engine, file_stem, index_summary


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
        summary = index_summary(engine.index([str(docs)], progress=progress))
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
