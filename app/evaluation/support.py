"""The "unsupported" flag per domain on held-out halves, and the refit of its parameters.

Three indexes: SQuAD 2.0's passages, SciFact's abstracts, and the whole ``corpus/`` folder
(notes, manuals, filings) with FinanceBench's questions, probes drawn from the notes and
manuals, and Wikipedia questions as off-topic ones (see ``support_data``). Every figure is
held out: the groups (articles, documents, companies) are split in two halves by a hash, the
model is fitted on one half and scored on the other, both ways. Per-index calibration is
measured the same way: the held-out model's threshold is calibrated on each index.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.core.engine import Engine
from app.core.index.indexer import ProgressFn
from app.core.search import probes, support
from app.core.search.calibration import Calibration
from app.core.search.support import SupportModel
from app.core.search.termstats import FixedStats
from app.evaluation.datasets import load_beir, load_squad2, write_docs
from app.evaluation.metrics import auroc
from app.evaluation.retrieval import eval_engine, index_summary
from app.evaluation.support_data import (
    DevRow,
    Searcher,
    financebench_probes,
    half,
    known_item_probes,
    note_title_probes,
    off_topic_probes,
    scifact_probes,
    squad_probes,
)

SETS = ("squad2", "scifact", "corpus")
FLAG_RATE = 0.06  # in-sample share of each domain's answerable, retrieved questions flagged
L2 = 1.0
Each = Callable[[int, int], None]


@dataclass
class DevSet:
    """One index and the development rows searched in it."""

    name: str
    engine: Engine
    rows: list[DevRow]
    summary: dict[str, Any]


def _search(engine: Engine, probes_: Sequence[Any], each: Each | None) -> list[DevRow]:
    rows = []
    for i, row in enumerate(Searcher(engine).run(probes_)):
        rows.append(row)
        if each is not None:
            each(i + 1, len(probes_))
    return rows


def squad_set(
    parent: Engine, data: Path, limit: int | None, progress: ProgressFn | None, each: Each | None
) -> DevSet:
    passages, questions = load_squad2(data / "squad2", limit)
    engine = eval_engine(parent, "squad2")
    docs = write_docs(passages, parent.data.root / "eval" / "squad2-docs")
    summary = index_summary(engine.index([str(docs)], progress=progress))
    return DevSet("squad2", engine, _search(engine, squad_probes(questions), each), summary)


def scifact_set(
    parent: Engine, data: Path, limit: int | None, progress: ProgressFn | None, each: Each | None
) -> DevSet:
    beir = load_beir(data / "scifact", limit=limit)
    _, questions = load_squad2(data / "squad2")
    engine = eval_engine(parent, "scifact")
    docs = write_docs(beir.corpus, parent.data.root / "eval" / "scifact-docs")
    summary = index_summary(engine.index([str(docs)], progress=progress))
    found = scifact_probes(beir) + off_topic_probes(questions, "scifact", limit or 300, 5)
    return DevSet("scifact", engine, _search(engine, found, each), summary)


def corpus_set(
    parent: Engine,
    data: Path,
    limit: int | None,
    progress: ProgressFn | None,
    each: Each | None,
    index_dir: Path | None = None,
) -> DevSet:
    """The corpus/ index: ``index_dir`` names a data directory that already holds one (made
    by ``footnotes index``), else it is built in ``<data dir>/eval/corpus`` (long)."""
    corpus = (data / "corpus").resolve()
    if index_dir is not None:
        settings = dataclasses.replace(parent.settings, chroma_url=None)
        engine = Engine(index_dir, settings=settings, embedder=parent.embedder())
        summary: dict[str, Any] = {"data_dir": str(index_dir)}
    else:
        engine = eval_engine(parent, "corpus")
        summary = index_summary(engine.index([str(corpus)], progress=progress))
    summary["chunks_total"] = engine.manifest.counts()["chunks"]
    filings = [Path(p).stem for p in engine.manifest.files_under(str(corpus / "filings"))]
    _, questions = load_squad2(data / "squad2")
    n = limit or 150
    found = financebench_probes(data / "financebench", filings)
    found += note_title_probes(engine, str(corpus / "notes"), n, "notes")
    found += known_item_probes(engine, str(corpus / "notes"), n // 2, "notes")
    found += known_item_probes(engine, str(corpus / "manuals"), n, "manuals")
    found += off_topic_probes(questions, "corpus", (limit or 200) * 2, 11)
    return DevSet("corpus", engine, _search(engine, found, each), summary)


def title_half(title: str) -> int:
    """A deterministic split by article (the claim checks' halves use it too)."""
    return half(title)


# -- figures ---------------------------------------------------------------------------------
def feature_rows(rows: Sequence[DevRow]) -> list[dict[str, float]]:
    """The flag's features of each row, with the term counts recorded when it was searched."""
    return [support.features(r.question, r.hits, FixedStats(r.n, r.df)) for r in rows]


def category(row: DevRow) -> str:
    """retrieved / not_retrieved (missed by search, or evidence left out) / unanswerable /
    off_topic."""
    if row.kind == "answerable":
        return "retrieved" if row.retrieved else "not_retrieved"
    if row.kind == "evidence_removed":
        return "not_retrieved"
    return row.kind


CATEGORIES = ("off_topic", "retrieved", "not_retrieved", "unanswerable")


def figures(rows: Sequence[DevRow], probs: Sequence[float], thresholds: Sequence[float]) -> dict:
    """AUROC (answerable with evidence retrieved against every other row, and against the
    off-topic ones) and the share of each category flagged (``p < threshold``)."""
    cats = [category(r) for r in rows]
    p = np.asarray(probs, float)
    flagged = p < np.asarray(thresholds, float)
    pos = [i for i, c in enumerate(cats) if c == "retrieved"]
    neg = [i for i, c in enumerate(cats) if c != "retrieved"]
    off = [i for i, c in enumerate(cats) if c == "off_topic"]
    out: dict[str, Any] = {
        "auroc": _round(auroc(p[pos], p[neg])) if pos and neg else None,
        "auroc_vs_off_topic": _round(auroc(p[pos], p[off])) if pos and off else None,
    }
    for c in CATEGORIES:
        idx = [i for i, k in enumerate(cats) if k == c]
        out[f"flagged_{c}"] = round(float(flagged[idx].mean()), 4) if idx else None
    missed = [i for i, r in enumerate(rows) if r.kind == "answerable" and not r.retrieved]
    out["flagged_missed_by_search"] = round(float(flagged[missed].mean()), 4) if missed else None
    out["n"] = {c: cats.count(c) for c in CATEGORIES if c in cats}
    return out


def table(
    sets: Sequence[DevSet], probs: Sequence[float], thresholds: Sequence[float]
) -> dict[str, dict]:
    """Figures per domain, and per index over all its rows."""
    rows = [r for s in sets for r in s.rows]
    out: dict[str, dict] = {}
    for domain in dict.fromkeys(r.domain for r in rows):
        idx = [i for i, r in enumerate(rows) if r.domain == domain]
        out[domain] = _figures_at(rows, probs, thresholds, idx)
    start = 0
    for s in sets:
        idx = list(range(start, start + len(s.rows)))
        start += len(s.rows)
        if len({r.domain for r in s.rows}) > 1:
            out[f"{s.name} index, all"] = _figures_at(rows, probs, thresholds, idx)
    return out


def _figures_at(
    rows: Sequence[DevRow], probs: Sequence[float], thresholds: Sequence[float], idx: list[int]
) -> dict:
    return figures([rows[i] for i in idx], [probs[i] for i in idx], [thresholds[i] for i in idx])


def fit(
    rows: Sequence[DevRow],
    feats: Sequence[dict[str, float]],
    *,
    l2: float = L2,
    flag_rate: float = FLAG_RATE,
) -> SupportModel:
    return support.fit_model(
        feats,
        [r.positive for r in rows],
        l2=l2,
        flag_rate=flag_rate,
        names=support.MODEL_FEATURES,
        domains=[r.domain for r in rows],
    )


def held_out(
    sets: Sequence[DevSet],
    *,
    l2: float = L2,
    flag_rate: float = FLAG_RATE,
    calibrate: bool = True,
) -> dict[str, Any]:
    """Each row scored by the model fitted on the other half of the groups; the threshold as
    fitted, and as calibrated on each index for that model."""
    rows = [r for s in sets for r in s.rows]
    feats = feature_rows(rows)
    halves = [half(r.group) for r in rows]
    probs = [0.0] * len(rows)
    fitted = [0.0] * len(rows)
    calibrated = [0.0] * len(rows)
    calibrations: dict[str, Any] = {}
    owner = [s for s in sets for _ in s.rows]
    measured = {}
    if calibrate:
        for s in sets:
            e = s.engine
            measured[s.name] = probes.measure(e.manifest, e.embedder(), e.store())
    for h in (0, 1):
        train = [i for i, x in enumerate(halves) if x != h]
        test = [i for i, x in enumerate(halves) if x == h]
        if not test or len({rows[i].positive for i in train}) < 2:
            continue
        model = fit([rows[i] for i in train], [feats[i] for i in train], l2=l2, flag_rate=flag_rate)
        per_index: dict[str, Calibration] = {}
        for s in sets:
            if calibrate:
                per_index[s.name] = cal = probes.calibration_for(measured[s.name], model)
                calibrations[f"{s.name}, model fitted without half {h}"] = cal.to_json()
        for i in test:
            probs[i] = model.probability(feats[i])
            fitted[i] = calibrated[i] = model.threshold
            if calibrate:  # the threshold of the region holding the best passage
                top = rows[i].hits[0].path if rows[i].hits else None
                calibrated[i] = per_index[owner[i].name].threshold_at(top)
    out: dict[str, Any] = {"shipped_threshold": table(sets, probs, fitted)}
    if calibrate:
        out["calibrated_per_index"] = table(sets, probs, calibrated)
        out["calibrations"] = calibrations
    return out


def refit(
    sets: Sequence[DevSet], *, l2: float = L2, flag_rate: float = FLAG_RATE
) -> tuple[SupportModel, dict[str, Any]]:
    """Held-out figures, then the parameters fitted on every row, with their provenance."""
    report = held_out(sets, l2=l2, flag_rate=flag_rate)
    rows = [r for s in sets for r in s.rows]
    feats = feature_rows(rows)
    model = fit(rows, feats, l2=l2, flag_rate=flag_rate)
    counts: dict[str, dict[str, int]] = {}
    for r in rows:
        cell = counts.setdefault(r.domain, {})
        cell[category(r)] = cell.get(category(r), 0) + 1
    model = dataclasses.replace(
        model,
        fitted_on="SQuAD 2.0 dev, SciFact dev, FinanceBench dev and probes of the corpus notes "
        f"and manuals ({len(rows)} searches over {len(sets)} indexes)",
        provenance={
            "date": datetime.date.today().isoformat(),
            "data": {s.name: {"index": s.summary, "rows": len(s.rows)} for s in sets},
            "rows": counts,
            "positive": "answerable and an evidence passage among the top 5 hits; every other "
            "row (evidence not retrieved or left out, unanswerable, off-topic) is negative",
            "method": f"L2 logistic regression (lambda={l2}) on standardised features; each "
            "domain weighs the same with its classes balanced; threshold at the lowest of the "
            f"domains' {flag_rate:.0%} quantiles of positives",
            "held_out_halves": report,
        },
    )
    return model, report


def shipped_figures(sets: Sequence[DevSet], model: SupportModel) -> dict[str, Any]:
    """The shipped parameters on these rows (in-sample when they were fitted on them)."""
    rows = [r for s in sets for r in s.rows]
    probs = [model.probability(f) for f in feature_rows(rows)]
    return table(sets, probs, [model.threshold] * len(rows))


def close(sets: Sequence[DevSet]) -> None:
    for s in sets:
        s.engine.close()


def _round(x: float) -> float | None:
    return None if np.isnan(x) else round(float(x), 4)


def ship(model: SupportModel) -> Path:
    """Write ``model`` as the parameters the app ships, and make this process use them."""
    path = support.shipped_path()
    model.save(path)
    support.reload_shipped()
    return path


def shipped_model() -> SupportModel:
    """The parameters the app ships with."""
    return SupportModel.load()
