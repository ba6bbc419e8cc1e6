"""Development rows for the support flag: questions from several domains, run through search.

Each row keeps what the flag sees (the question, its hits, and the index's document counts
for the question's words) with its label, so features can be recomputed and the model refit
offline without searching again. Domains and their kinds:

- ``answerable``: the question's evidence is in the index; ``retrieved`` says whether an
  evidence passage is among the top five hits (the flag should pass it only then);
- ``evidence_removed``: the same question searched as if its evidence were not indexed (the
  evidence's file, or page, is left out of both retrievers' candidates): the failure the flag
  exists to mark, built on purpose;
- ``unanswerable``: in-domain questions the index does not answer (SQuAD 2.0's adversarial
  questions, FinanceBench questions about filings that are not in the corpus);
- ``off_topic``: questions about something else entirely.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.core.engine import Engine
from app.core.index.records import ChunkRow
from app.core.search import support
from app.core.search.termstats import LexicalStats
from app.core.text import sentence_spans
from app.core.types import Hit
from app.evaluation.datasets import read_jsonl, safe_name

TOP = 5  # evidence "retrieved" means among this many hits

Exclude = Callable[[ChunkRow], bool]
Evidence = Callable[[Hit], bool]


@dataclass
class Probe:
    """A question to search, with how to recognise its evidence and what to leave out."""

    domain: str
    group: str  # article or document: the unit of the held-out halves
    question: str
    kind: str
    evidence: Evidence | None = None
    exclude: Exclude | None = None


@dataclass
class DevRow:
    """One searched question: what the flag sees, and the label."""

    domain: str
    group: str
    question: str
    kind: str
    retrieved: bool | None
    hits: list[Hit]
    n: int  # passages in the index
    df: dict[str, int] = field(default_factory=dict)  # passages holding each question word

    @property
    def positive(self) -> bool:
        """The flag should pass this question: answerable and its evidence retrieved."""
        return self.kind == "answerable" and bool(self.retrieved)

    def to_json(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "group": self.group,
            "question": self.question,
            "kind": self.kind,
            "retrieved": self.retrieved,
            "n": self.n,
            "df": self.df,
            "hits": [h.to_json() for h in self.hits],
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> DevRow:
        hits = [
            Hit(
                h["rank"],
                h["path"],
                h["page"],
                h["start"],
                h["end"],
                h["text"],
                h["score"],
                h["chunk_id"],
                h.get("heading"),
                h.get("dense_score"),
                h.get("lexical_score"),
                h.get("dense_rank"),
                h.get("lexical_rank"),
            )
            for h in raw["hits"]
        ]
        return cls(
            raw["domain"],
            raw["group"],
            raw["question"],
            raw["kind"],
            raw["retrieved"],
            hits,
            int(raw["n"]),
            {k: int(v) for k, v in raw.get("df", {}).items()},
        )


DEV_HALF = 0  # the half of every labelled set that is tuned on; the other is reported


def half(group: str) -> int:
    """A deterministic split by group (article, document), so each half holds unseen groups."""
    return int(hashlib.blake2b(group.encode("utf-8"), digest_size=4).hexdigest(), 16) % 2


class Searcher:
    """The shipped search's hits for a query, optionally as if some passages were not indexed."""

    def __init__(self, engine: Engine, k: int | None = None) -> None:
        self.engine = engine
        self.k = k or support.HITS  # what the app's verdict reads, whatever top_k is
        self.retriever = engine.retriever
        self.depth = self.retriever.candidates
        self.stats = LexicalStats(engine.manifest.conn)

    def hits(self, qvec: np.ndarray, query: str, exclude: Exclude | None = None) -> list[Hit]:
        return self.retriever.ranked(query, qvec, self.k, exclude=exclude, depth=self.depth)

    def run(self, probes: Sequence[Probe]) -> Iterator[DevRow]:
        """Each probe searched (queries embedded in batches of 64)."""
        embedder = self.engine.embedder()
        n = self.stats.size()
        for i in range(0, len(probes), 64):
            part = probes[i : i + 64]
            vectors = embedder.encode([p.question for p in part])
            for p, vec in zip(part, vectors, strict=True):
                hits = self.hits(vec, p.question, p.exclude)
                retrieved = None
                if p.evidence is not None:
                    retrieved = any(p.evidence(h) for h in hits[:TOP])
                recorder = _Recorder(self.stats)
                support.features(p.question, hits, recorder)
                yield DevRow(
                    p.domain, p.group, p.question, p.kind, retrieved, hits, n, recorder.seen
                )


class _Recorder:
    """Term counts, keeping every count the features asked for (stored with the row)."""

    def __init__(self, stats: LexicalStats) -> None:
        self.stats = stats
        self.seen: dict[str, int] = {}

    def size(self) -> int:
        return self.stats.size()

    def doc_freqs(self, words: Iterable[str]) -> dict[str, int]:
        found = self.stats.doc_freqs(words)
        self.seen.update(found)
        return found


def save_rows(rows: Iterable[DevRow], path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r.to_json(), ensure_ascii=False) + "\n")
            count += 1
    return count


def load_rows(path: Path) -> list[DevRow]:
    with path.open(encoding="utf-8") as fh:
        return [DevRow.from_json(json.loads(line)) for line in fh if line.strip()]


# -- probes built from an index's own files --------------------------------------------------
_TITLE = re.compile(r"^#\s+(.+)$", re.MULTILINE)


def note_title_probes(
    engine: Engine, folder: str, count: int, domain: str, seed: int = 19
) -> list[Probe]:
    """A note's title as the question (how a person asks for a note they remember), answered
    by that note; and the same question with the note left out of the index."""
    files = sorted(p for p in engine.manifest.files_under(folder) if p.endswith(".md"))
    rng = random.Random(seed)
    rng.shuffle(files)
    out: list[Probe] = []
    for path in files:
        rows = engine.manifest.chunks_of(path)
        if not rows:
            continue
        m = _TITLE.search(rows[0].text)
        if not m or len(m.group(1).split()) < 3:
            continue
        q = m.group(1).strip().strip("`")
        group = Path(path).name
        own = _Path(path)
        out.append(Probe(domain, group, q, "answerable", own))
        out.append(Probe(domain, group, q, "evidence_removed", own, own))
        if len(out) >= 2 * count:
            break
    return out


def known_item_probes(
    engine: Engine, folder: str, count: int, domain: str, seed: int = 23
) -> list[Probe]:
    """A sentence of 8-40 words sampled from a passage (pasted to find its source), and the
    same sentence with its file left out."""
    conn = engine.manifest.conn
    like = folder.rstrip("/") + "/%"
    ids = [
        r[0]
        for r in conn.execute(
            "SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path LIKE ? "
            "ORDER BY c.id",
            (like,),
        )
    ]
    rng = random.Random(seed)
    picked = rng.sample(ids, min(len(ids), count * 4))
    out: list[Probe] = []
    rows = engine.manifest.chunks_by_rowid(picked)
    for rid in picked:
        row = rows.get(rid)
        if row is None:
            continue
        spans = [
            (s, e) for s, e in sentence_spans(row.text) if 8 <= len(row.text[s:e].split()) <= 40
        ]
        if not spans:
            continue
        s, e = rng.choice(spans)
        q = " ".join(row.text[s:e].split())
        group = Path(row.path).name
        # Manuals come as PDF and HTML: every passage holding the sentence is left out too.
        own = _Sentence(q, row.path)
        out.append(Probe(domain, group, q, "answerable", own))
        out.append(Probe(domain, group, q, "evidence_removed", own, own))
        if len(out) >= 2 * count:
            break
    return out


@dataclass(frozen=True)
class _Path:
    """Passages of one file."""

    path: str

    def __call__(self, h: Hit | ChunkRow) -> bool:
        return h.path == self.path


@dataclass(frozen=True)
class _Sentence:
    """Passages holding a sentence (an identical copy elsewhere counts), or of its file."""

    sentence: str
    path: str

    def __call__(self, h: Hit | ChunkRow) -> bool:
        return h.path == self.path or self.sentence in " ".join(h.text.split())


# -- the labelled sets -----------------------------------------------------------------------
def squad_probes(questions: Sequence[Any], leave_out: bool = True) -> list[Probe]:
    """SQuAD 2.0 dev questions over the index of its passages (one file per passage)."""
    kinds = {"unanswerable_in_corpus": "unanswerable", "out_of_corpus": "off_topic"}
    out: list[Probe] = []
    for q in questions:
        if q.kind != "answerable":
            out.append(Probe("squad2", q.title, q.question, kinds[q.kind]))
            continue
        own = _Stems(frozenset([safe_name(q.passage_id or "")]))
        out.append(Probe("squad2", q.title, q.question, "answerable", own))
        if leave_out:
            out.append(Probe("squad2", q.title, q.question, "evidence_removed", own, own))
    return out


def off_topic_probes(questions: Sequence[Any], domain: str, count: int, seed: int) -> list[Probe]:
    """SQuAD 2.0 questions (Wikipedia trivia) as off-topic questions for another index."""
    rng = random.Random(seed)
    picked = rng.sample(list(questions), min(count, len(questions)))
    return [Probe(domain, q.title, q.question, "off_topic") for q in picked]


def scifact_probes(beir: Any) -> list[Probe]:
    """SciFact dev claims over the index of its abstracts (one file per abstract)."""
    out: list[Probe] = []
    for qid, text in beir.queries.items():
        relevant = sorted(d for d, g in beir.qrels[qid].items() if g > 0)
        if not relevant:
            continue
        stems = _Stems(frozenset(safe_name(d) for d in relevant))
        group = relevant[0]
        out.append(Probe("scifact", group, text, "answerable", stems))
        out.append(Probe("scifact", group, text, "evidence_removed", stems, stems))
    return out


def financebench_probes(folder: Path, present: Sequence[str]) -> list[Probe]:
    """FinanceBench dev questions over the corpus index: with their filing present (evidence
    = the evidence page; and the same question with those pages left out), and about filings
    the corpus does not hold (unanswerable)."""
    out: list[Probe] = []
    stems = set(present)
    for q in read_jsonl(folder / "questions.jsonl"):
        pages = {(e["doc_name"], int(e["evidence_page_num"]) + 1) for e in q["evidence"]}
        company = str(q.get("company", q["doc_name"].split("_")[0])).lower()
        if not any(doc in stems for doc, _ in pages):
            out.append(Probe("financebench", company, q["question"], "unanswerable"))
            continue
        on = _Pages(frozenset(pages))
        out.append(Probe("financebench", company, q["question"], "answerable", on))
        out.append(Probe("financebench", company, q["question"], "evidence_removed", on, on))
    return out


@dataclass(frozen=True)
class _Stems:
    """Passages of the files with these names (without extension)."""

    stems: frozenset[str]

    def __call__(self, h: Hit | ChunkRow) -> bool:
        return Path(h.path).stem in self.stems


@dataclass(frozen=True)
class _Pages:
    """Passages on these (file name without extension, 1-based page) pages."""

    pages: frozenset[tuple[str, int]]

    def __call__(self, h: Hit | ChunkRow) -> bool:
        return (Path(h.path).stem, h.page or 0) in self.pages
