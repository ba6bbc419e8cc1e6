"""Questions an index asks itself to calibrate its support flag (see ``calibration``).

Drawn questions: a few content words of a sentence of a passage, in order (as a person
types a question about something they read), sampled with a fixed seed across files. Asked
twice: as is (answerable; kept only when the passage comes back in the top five, as for the
labelled sets) and with the passage's file left out of both retrievers' candidates (not
answerable: the case the flag exists for). Off-topic questions are shipped with the app.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from app.core.index.indexer import Embedder
from app.core.index.manifest import Manifest
from app.core.index.records import ChunkRow
from app.core.index.schema import INDEX_FORMAT
from app.core.index.store import VectorStore
from app.core.search import calibration, regions, support
from app.core.search.calibration import Calibration
from app.core.search.retrieval import Retriever
from app.core.search.termstats import LexicalStats
from app.core.text import query_terms, sentence_spans
from app.core.types import Hit

DRAWN = 80  # questions drawn from the index's passages
TOP = 5
SEED = 7
Exclude = Callable[[ChunkRow], bool]


def offtopic_questions() -> list[str]:
    """The shipped off-topic questions (general knowledge), one a line."""
    text = resources.files("app").joinpath("data/offtopic_questions.json").read_text("utf-8")
    return [str(q) for q in json.loads(text)["questions"]]


def drawn_questions(
    manifest: Manifest, count: int = DRAWN, seed: int = SEED, under: str | None = None
) -> list[ChunkRow]:
    """Passages to draw questions from: one per file for as many files as possible (of the
    files at or below the folder ``under``, if given)."""
    rng = random.Random(seed)
    files = sorted(manifest.files_under(under))
    rng.shuffle(files)
    chunks = [manifest.chunks_of(path) for path in files[: count * 3]]
    picked = [rng.choice(rows) for rows in chunks if rows]
    if len(picked) < count * 2:  # few files: more passages of each
        every = [r for rows in chunks for r in rows]
        picked += rng.sample(every, min(len(every), count * 3))
    return list({r.row_id: r for r in picked}.values())


def question_from(row: ChunkRow, rng: random.Random, other: ChunkRow | None = None) -> str | None:
    """Four to seven content words of one sentence of the passage, in order, and one word of
    ``other`` passage: a real question shares only part of its words with its answer."""
    spans = [(s, e) for s, e in sentence_spans(row.text) if len(row.text[s:e].split()) >= 8]
    if not spans:
        return None
    start, end = rng.choice(spans)
    words = query_terms(row.text[start:end])
    if len(words) < 4:
        return None
    n = min(len(words), rng.randint(4, 7))
    first = rng.randint(0, len(words) - n)
    picked = words[first : first + n]
    foreign = [w for w in query_terms(other.text) if w not in words] if other else []
    if foreign:
        picked.insert(rng.randint(0, len(picked)), rng.choice(foreign))
    return " ".join(picked)


@dataclass
class Measured:
    """The support features of an index's probe questions (independent of the parameters)."""

    answerable: list[dict[str, float]]  # drawn questions whose passage came back
    removed: list[dict[str, float]]  # the same questions with their file left out
    offtopic: list[dict[str, float]]
    passages: int
    # Each region's own (``regions``): drawn from its passages, with the off-topic questions
    # whose best passage is in it.
    regions: dict[str, Measured] = field(default_factory=dict)


def measure(
    manifest: Manifest,
    embedder: Embedder,
    store: VectorStore,
    *,
    count: int = DRAWN,
    seed: int = SEED,
) -> Measured:
    """Ask the index its drawn questions (as is and with their file left out) and the
    shipped off-topic questions; and each region (``regions``) its own drawn questions."""
    stats = LexicalStats(manifest.conn)
    retriever = Retriever(manifest, lambda: embedder, lambda: store)

    def ask(questions: Sequence[str], excludes: Sequence[Exclude | None]) -> list[list[Hit]]:
        if not questions:
            return []
        vectors = embedder.encode(list(questions))
        return [
            retriever.ranked(q, vec, support.HITS, exclude=ex)
            for q, vec, ex in zip(questions, vectors, excludes, strict=True)
        ]

    def drawn(rows: list[ChunkRow], rng: random.Random) -> Measured:
        pairs: list[tuple[str, ChunkRow]] = []
        for i, row in enumerate(rows):
            q = question_from(row, rng, rows[(i + len(rows) // 2) % len(rows)])
            if q:
                pairs.append((q, row))
            if len(pairs) >= count:
                break
        qs = [q for q, _ in pairs]
        out = Measured([], [], [], stats.size())
        found = ask(qs, [None] * len(qs))
        gone = ask(qs, [_File(r.path) for _, r in pairs])
        for (q, row), hits, left in zip(pairs, found, gone, strict=True):
            if any(h.path == row.path for h in hits[:TOP]):
                out.answerable.append(support.features(q, hits, stats))
                out.removed.append(support.features(q, left, stats))
        return out

    out = drawn(drawn_questions(manifest, count, seed), random.Random(seed))
    parts = regions.regions(manifest, calibration.MIN_PASSAGES)
    for folder, n in parts:
        part = drawn(drawn_questions(manifest, count, seed, under=folder), random.Random(seed))
        out.regions[folder] = dataclasses.replace(part, passages=n)
    offtopic = offtopic_questions()
    folders = list(out.regions)
    for q, hits in zip(offtopic, ask(offtopic, [None] * len(offtopic)), strict=True):
        f = support.features(q, hits, stats)
        out.offtopic.append(f)
        where = regions.folder_of(hits[0].path, folders) if hits else None
        if where is not None:
            out.regions[where].offtopic.append(f)
    return out


def calibration_for(measured: Measured, model: support.SupportModel) -> Calibration:
    """The threshold for these parameters on the measured index (and on each region)."""
    answerable, removed, off = _probabilities(measured, model)
    t = calibration.choose_threshold(answerable, removed, off, model.threshold)
    parts = []
    for folder, part in measured.regions.items():
        a, r, o = _probabilities(part, model)
        if a:  # no drawn question of the region came back: the index-wide threshold holds
            own = calibration.choose_threshold(
                a, r, o, model.threshold, calibration.REGION_ANSWERABLE_FLAGGED
            )
            lookalike = (
                bool(r) and _mean(p < own for p in r) < calibration.LOOKALIKE_REMOVED_FLAGGED
            )
            summary = _summary_of(own, part, a, r, o)
            parts.append({"folder": folder, "offtopic": len(o), **summary, "lookalike": lookalike})
    return Calibration(
        shipped_threshold=model.threshold,
        model=model.key,
        date=datetime.date.today().isoformat(),
        offtopic=len(off),
        index_format=INDEX_FORMAT,
        regions=tuple(parts),
        **_summary_of(t, measured, answerable, removed, off),
    )


def _probabilities(
    m: Measured, model: support.SupportModel
) -> tuple[list[float], list[float], list[float]]:
    return (
        [model.probability(f) for f in m.answerable],
        [model.probability(f) for f in m.removed],
        [model.probability(f) for f in m.offtopic],
    )


def _summary_of(
    t: float,
    measured: Measured,
    answerable: Sequence[float],
    removed: Sequence[float],
    off: Sequence[float],
) -> dict[str, Any]:
    return {
        "threshold": round(t, 6),
        "passages": measured.passages,
        "probes": len(answerable),
        "probes_passed": round(_mean(p >= t for p in answerable), 4),
        "removed_flagged": round(_mean(p < t for p in removed), 4),
        "offtopic_flagged": round(_mean(p < t for p in off), 4),
    }


def calibrate(
    manifest: Manifest,
    embedder: Embedder,
    store: VectorStore,
    model: support.SupportModel | None = None,
    *,
    count: int = DRAWN,
    seed: int = SEED,
) -> Calibration:
    """Ask the index its probe questions and choose its threshold for ``model``."""
    measured = measure(manifest, embedder, store, count=count, seed=seed)
    return calibration_for(measured, model or support.SupportModel.load())


def refresh(
    manifest: Manifest,
    embedder: Callable[[], Embedder],
    store: Callable[[], VectorStore],
    root: Path,
    *,
    force: bool = False,
) -> Calibration | None:
    """Recalibrate the index in ``root`` when it has changed enough (or ``force``)."""
    model = support.SupportModel.load()
    passages = LexicalStats(manifest.conn).size()
    current = calibration.load(root)
    if passages < calibration.MIN_PASSAGES:
        return current
    if not force:
        folders = [folder for folder, _ in regions.regions(manifest, calibration.MIN_PASSAGES)]
        if not calibration.stale(current, passages, model.key, folders):
            return current
    cal = calibrate(manifest, embedder(), store(), model, count=DRAWN)
    calibration.save(root, cal)
    return cal


class _File:
    """Passages of one file (left out)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __call__(self, row: ChunkRow) -> bool:
        return row.path == self.path


def _mean(flags: Iterable[bool]) -> float:
    values = list(flags)
    return sum(values) / len(values) if values else 0.0


def status(manifest: Manifest, root: Path) -> str:
    """How the support flag is calibrated for the index in ``root``, in one line."""
    model = support.SupportModel.load()
    cal = calibration.load(root)
    passages = LexicalStats(manifest.conn).size()
    shipped = (
        f"the shipped threshold {model.threshold:.2f} (parameters fitted on {model.fitted_on})"
    )
    if cal is not None and cal.model == model.key:
        return cal.describe()
    if passages < calibration.MIN_PASSAGES:
        return (
            f"{shipped}; this index is too small to calibrate "
            f"({passages} passages, at least {calibration.MIN_PASSAGES} needed)"
        )
    if cal is not None:
        return f"{shipped}; this index's calibration was made for older parameters and is " + (
            "redone by the next `footnotes index`"
        )
    return f"{shipped}; not calibrated for this index yet (the next `footnotes index` does it)"
