"""Answer-side figures on real generations (``footnotes eval answers``): verdicts and sentence
marks per set, question kind and half.

Every question is asked through the core's :class:`~app.core.ask.Asker`, as ``ask --batch``
asks it, of whatever Ollama server the settings name, so the figures are the app's own:

- ``squad``: SQuAD 2.0 dev questions over its 646 paragraphs indexed one file each
  (answerable / unanswerable_in_corpus / out_of_corpus);
- ``notes``: a note's title asked over the ``corpus/notes`` index (answerable when the note is
  among the passages the model read, evidence_missed otherwise), and Wikipedia questions as
  out_of_corpus ones;
- ``finance``: FinanceBench questions over ``corpus/filings`` (answerable when an evidence
  page is among the passages, evidence_missed otherwise; out_of_corpus when its filing is not
  indexed).

An answer is *correct* when it contains a gold answer: SQuAD's normalised containment
(lowercase, punctuation and articles dropped); FinanceBench's answer string or its key number;
for a note, a sentence drawn from the note (most of its words are the note's) that says more
than the question's own words. Questions are split into a dev half and a held-out half by a
stable hash of their id: tune on dev, report held-out.
"""

from __future__ import annotations

import dataclasses
import random
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.ask import Asker, AskOptions, AskOutcome, AskRequest, Ending
from app.core.config import DataDir
from app.core.engine import Engine
from app.core.errors import AnswerFailure
from app.core.index.indexer import ProgressFn
from app.core.prompt.answering import Answer
from app.core.search.retrieval import SearchResult
from app.core.search.scope import Scope
from app.core.text import query_terms, stem, strip_citations
from app.core.types import Hit
from app.core.verdict.judge import Level
from app.evaluation.claims import TUNE_HALF
from app.evaluation.datasets import (
    EvalDataError,
    load_financebench_all,
    load_squad2,
    safe_name,
    write_docs,
)
from app.evaluation.retrieval import index_summary
from app.evaluation.support_data import half, note_title_probes, off_topic_probes

SETS = ("squad", "notes", "finance")
ANSWERABLE = "answerable"
NEGATIVE_KINDS = ("unanswerable_in_corpus", "out_of_corpus", "evidence_missed")
KINDS = (ANSWERABLE, *NEGATIVE_KINDS)
LEVELS = ("supported", "partly_supported", "unsupported", "no_answer", "failed")
HALVES = ("dev", "held_out")
EXAMPLES = 5  # of each error kind, per half
SEED = 29  # which questions a --limit keeps
# Failures every later question would meet too: the run stops with the outcome's sentence.
FATAL = frozenset(
    {
        AnswerFailure.NOT_RUNNING,
        AnswerFailure.UNKNOWN_HOST,
        AnswerFailure.CONNECT_TIMEOUT,
        AnswerFailure.REDIRECT,
        AnswerFailure.HTTP,
        AnswerFailure.MODEL_MISSING,
        AnswerFailure.MODEL_CANNOT_CHAT,
        AnswerFailure.PULL_FAILED,
    }
)
Each = Callable[[int, int], None]


class AskFailed(Exception):
    """Ollama cannot answer at all (not running, model missing...): the outcome's sentence."""


# -- gold answers ----------------------------------------------------------------------------
_PUNCT = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_YEAR = re.compile(r"(?:19|20)\d\d")


def normalize(text: str) -> str:
    """SQuAD's answer normalisation (citation markers dropped first): lowercase, punctuation
    and articles removed, whitespace collapsed."""
    text = strip_citations(text).lower()
    text = "".join(ch for ch in text if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def contains(answer: str, gold: str) -> bool:
    """Whether the normalised ``gold`` occurs in the normalised ``answer`` as whole words."""
    g = normalize(gold)
    return bool(g) and f" {g} " in f" {normalize(answer)} "


def numbers(text: str) -> list[str]:
    """The numbers in ``text`` as plain digits: thousands commas and zero decimals dropped
    ("$1,577.00" -> "1577", "14.60%" -> "14.6")."""
    out = []
    for m in _NUMBER.finditer(strip_citations(text)):
        raw = m.group().replace(",", "")
        if "." in raw:
            raw = raw.rstrip("0").rstrip(".")
        out.append(raw)
    return out


def key_number(gold: str) -> str | None:
    """The number a FinanceBench answer turns on: its first one that is not a year (or the
    first year, when it holds only years)."""
    found = numbers(gold)
    return next((n for n in found if not _YEAR.fullmatch(n)), found[0] if found else None)


def finance_contains(answer: str, gold: str) -> bool:
    """The gold answer's string, or its key number, in the answer."""
    key = key_number(gold)
    return contains(answer, gold) or (key is not None and key in numbers(answer))


def _stems(text: str) -> set[str]:
    return {stem(w) for w in query_terms(strip_citations(text))}


def drawn_from(sentence: str, note: str, question: str, *, new: int = 2) -> bool:
    """A sentence taken from ``note``: at least 80% of its content words are the note's, and
    ``new`` of them are not the question's (restating the title is not an answer)."""
    words = _stems(sentence)
    if not words:
        return False
    inside = words & _stems(note)
    return len(inside) >= 0.8 * len(words) and len(inside - _stems(question)) >= new


# -- questions -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Question:
    """One labelled question: what is asked, how to recognise its evidence and its answer."""

    set: str
    id: str  # the key of the halves' hash
    text: str
    kind: str  # as labelled; answerable questions of notes/finance turn evidence_missed when
    # their evidence is not among the passages the model read
    gold: tuple[str, ...] = ()  # gold answers (squad, finance) or the note's text (notes)
    evidence: Callable[[Hit], bool] | None = None
    missed_is_negative: bool = False  # notes, finance: evidence not read -> evidence_missed

    @property
    def half(self) -> str:
        """dev (the half the verdict is tuned on) or held_out, by a stable hash of the id."""
        return "dev" if half(self.id) == TUNE_HALF else "held_out"

    def sentence_has_gold(self, sentence: str) -> bool:
        """Whether this text holds a gold answer (the kind's rule, see the module)."""
        if self.set == "notes":
            return any(drawn_from(sentence, note, self.text) for note in self.gold)
        if self.set == "finance":
            return any(finance_contains(sentence, g) for g in self.gold)
        return any(contains(sentence, g) for g in self.gold)


@dataclass(frozen=True)
class _File:
    """Passages of the files with this name (without extension)."""

    stem: str

    def __call__(self, h: Hit) -> bool:
        return Path(h.path).stem == self.stem


@dataclass(frozen=True)
class _OnPages:
    """Passages on these (file name without extension, 1-based page) pages."""

    pages: frozenset[tuple[str, int]]

    def __call__(self, h: Hit) -> bool:
        return (Path(h.path).stem, h.page or 0) in self.pages


def sample(items: Sequence[Any], limit: int | None, seed: int = SEED) -> list[Any]:
    """At most ``limit`` of ``items``, drawn with a fixed seed, in their original order."""
    if limit is None or len(items) <= limit:
        return list(items)
    keep = set(random.Random(seed).sample(range(len(items)), limit))
    return [x for i, x in enumerate(items) if i in keep]


# -- the indexes -----------------------------------------------------------------------------
@dataclass
class Prepared:
    """One set: the engine over its index, its questions, and what the index holds."""

    name: str
    engine: Engine
    questions: list[Question]
    summary: dict[str, Any]


def _engine(parent: Engine, folder: Path) -> Engine:
    """An engine over ``folder`` sharing the parent's settings (no Chroma server) and model."""
    settings = dataclasses.replace(parent.settings, chroma_url=None)
    return Engine(folder, settings=settings, embedder=parent.embedder())


def _cached(parent: Engine, folder: Path, holding: Path) -> Engine | None:
    """The engine over ``folder`` when it already indexes files under ``holding``."""
    if not DataDir(folder).manifest_path.exists():
        return None
    engine = _engine(parent, folder)
    if engine.manifest.files_under(str(holding)):
        return engine
    engine.close()
    return None


def _corpus_engine(
    parent: Engine,
    root: Path,
    own: str,
    holding: Path,
    index_dir: Path | None,
    progress: ProgressFn | None,
) -> tuple[Engine, dict[str, Any]]:
    """An index holding ``holding``: ``index_dir``, else a cached ``eval/corpus`` (made by
    ``eval support``/``eval retrieval``), else ``eval/<own>`` brought up to date."""
    if index_dir is not None:
        engine = _engine(parent, index_dir)
        if not engine.manifest.files_under(str(holding)):
            engine.close()
            raise EvalDataError(f"the index in {index_dir} holds no file under {holding}")
        return engine, {"data_dir": str(index_dir), "cached": True}
    for name in ("corpus", own):
        cached = _cached(parent, root / "eval" / name, holding)
        if cached is not None:
            return cached, {"data_dir": str(cached.data.root), "cached": True}
    if not holding.is_dir():
        raise EvalDataError(f"{holding} not found")
    engine = _engine(parent, root / "eval" / own)
    summary = index_summary(engine.index([str(holding)], progress=progress))
    return engine, {"data_dir": str(engine.data.root), **summary}


def prepare_squad(
    parent: Engine, data: Path, root: Path, limit: int | None, progress: ProgressFn | None
) -> Prepared:
    """SQuAD 2.0 paragraphs indexed one file each (the index ``eval support`` uses)."""
    passages, found = load_squad2(data / "squad2")
    engine = _engine(parent, root / "eval" / "squad2")
    docs = write_docs(passages, root / "eval" / "squad2-docs")
    summary = index_summary(engine.index([str(docs)], progress=progress))
    questions: list[Question] = []
    for kind in ("answerable", "unanswerable_in_corpus", "out_of_corpus"):
        for q in sample([q for q in found if q.kind == kind], limit):
            own = _File(safe_name(q.passage_id)) if q.passage_id else None
            questions.append(Question("squad", q.id, q.question, kind, q.answers, own))
    return check_indexed(Prepared("squad", engine, questions, summary))


def prepare_notes(
    parent: Engine,
    data: Path,
    root: Path,
    limit: int | None,
    progress: ProgressFn | None,
    index_dir: Path | None = None,
) -> Prepared:
    """Note titles asked over the notes (the support flag's known-item probes), and Wikipedia
    questions as off-topic ones."""
    notes = (data / "corpus" / "notes").resolve()
    engine, summary = _corpus_engine(parent, root, "notes", notes, index_dir, progress)
    n = limit or 150
    questions: list[Question] = []
    for p in note_title_probes(engine, str(notes), n, "notes"):
        path = getattr(p.evidence, "path", None)
        if p.kind != "answerable" or path is None:
            continue
        text = "\n".join(r.text for r in engine.manifest.chunks_of(path))
        questions.append(
            Question("notes", f"notes:{p.group}", p.question, ANSWERABLE, (text,), p.evidence, True)
        )
    _, squad = load_squad2(data / "squad2")
    for p in off_topic_probes(squad, "notes", n, 11):
        questions.append(Question("notes", f"off:{p.question}", p.question, "out_of_corpus"))
    return check_indexed(Prepared("notes", engine, questions, summary))


def prepare_finance(
    parent: Engine,
    data: Path,
    root: Path,
    limit: int | None,
    progress: ProgressFn | None,
    index_dir: Path | None = None,
) -> Prepared:
    """FinanceBench over the filings: answerable when a filing of its evidence is indexed
    (evidence_missed once asked if no evidence page was read), out_of_corpus otherwise."""
    filings = (data / "corpus" / "filings").resolve()
    found = load_financebench_all(data / "financebench")
    engine, summary = _corpus_engine(parent, root, "financebench", filings, index_dir, progress)
    present = {Path(p).stem for p in engine.manifest.files_under(str(filings))}
    held = [q for q in found if any(doc in present for doc, _ in q.pages)]
    held_ids = {q.id for q in held}
    others = [q for q in found if q.id not in held_ids]
    questions = [
        Question(
            "finance", q.id, q.question, ANSWERABLE, (q.answer,), _OnPages(frozenset(q.pages)), True
        )
        for q in sample(held, limit)
    ]
    questions += [
        Question("finance", q.id, q.question, "out_of_corpus", (q.answer,))
        for q in sample(others, limit)
    ]
    return check_indexed(Prepared("finance", engine, questions, summary))


def check_indexed(s: Prepared) -> Prepared:
    """``s``, or EvalDataError when its index holds no passage (every file failed)."""
    if not s.engine.manifest.counts()["chunks"]:
        s.engine.close()
        raise EvalDataError(
            f"the {s.name} index in {s.engine.data.root} holds no passage: "
            f"`footnotes --data-dir {s.engine.data.root} status` says why"
        )
    return s


def close(sets: Iterable[Prepared]) -> None:
    for s in sets:
        s.engine.close()


# -- asking ----------------------------------------------------------------------------------
@dataclass
class Row:
    """One asked question: its verdict, its answer and what the gold answer says of it."""

    set: str
    id: str
    half: str
    kind: str
    question: str
    ending: str
    level: str
    reason: str
    answer: str
    correct: bool  # the answer contains a gold answer
    retrieved: bool | None  # the evidence was among the passages the model read
    gold: list[str]
    sentences: list[dict[str, Any]] = field(default_factory=list)
    model: str = ""  # the model that answered (as the server names it)
    # the passages the model read, so a person can judge each sentence against them
    sources: list[dict[str, Any]] = field(default_factory=list)

    @property
    def green(self) -> bool:
        return self.level == Level.SUPPORTED

    @property
    def negative(self) -> bool:
        return self.kind in NEGATIVE_KINDS

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        if self.set == "notes":  # the note's whole text: its first line says which note
            out["gold"] = [g.split("\n", 1)[0] for g in self.gold]
        return out


def search_of(engine: Engine) -> Callable[[str, int, Scope | None], SearchResult]:
    """The engine's one search entrance, as the command line hands it to the Asker."""

    def search(query: str, k: int, scope: Scope | None) -> SearchResult:
        return engine.search(query, k, scope=scope)

    return search


def row_of(q: Question, outcome: AskOutcome) -> Row:
    """What ``outcome`` says about ``q``, judged against its gold answer."""
    hits = outcome.result.hits if outcome.result is not None else []
    retrieved = any(q.evidence(h) for h in hits) if q.evidence is not None else None
    kind = q.kind
    if q.missed_is_negative and kind == ANSWERABLE and not retrieved:
        kind = "evidence_missed"
    answer = outcome.answer
    text = answer.text if answer is not None else ""
    sentences = (
        []
        if answer is None
        else [
            {
                "text": m.text,
                "kind": m.kind,
                "supported": m.supported,
                "gold": q.sentence_has_gold(m.text),
                "reason": m.reason,
                "cites": list(m.sources),
                "spans": [_span(answer, n, a, b) for n, a, b in m.support_spans],
            }
            for m in answer.sentences
        ]
    )
    sources = [
        {"n": s.n, "path": s.hit.path, "page": s.hit.page, "text": s.text}
        for s in (answer.sources if answer is not None and text else [])
    ]
    if q.set == "notes":
        correct = any(s["gold"] for s in sentences)
    else:
        correct = bool(text) and q.sentence_has_gold(text)
    v = outcome.verdict
    level = "failed" if outcome.ending is Ending.FAILED or v is None else v.level
    return Row(
        q.set,
        q.id,
        q.half,
        kind,
        q.text,
        outcome.ending.value,
        level,
        v.reason if v is not None else (outcome.error or ""),
        text,
        correct,
        retrieved,
        list(q.gold),
        sentences,
        answer.model if answer is not None and text else "",
        sources,
    )


def _span(answer: Answer, n: int, start: int, end: int) -> dict[str, Any]:
    """The passage span that backs a sentence: its source number and its text."""
    source = next((s for s in answer.sources if s.n == n), None)
    return {"n": n, "text": source.text[start:end] if source is not None else ""}


def ask_all(
    sets: Sequence[Prepared], options: AskOptions, each: Each | None = None
) -> tuple[list[Row], AskOptions, str | None]:
    """Every question of ``sets`` asked through the Asker (the model settled once, questions
    not kept); the rows, the options used and the note saying another model answered."""
    total = sum(len(s.questions) for s in sets)
    rows: list[Row] = []
    note: str | None = None
    settled = False
    for s in sets:
        asker = Asker(search_of(s.engine), None, options)
        if not settled:
            note = asker.settle_model()
            options, settled = asker.options, True
        for q in s.questions:
            outcome = asker.run(AskRequest(q.text))
            _stop_on_fatal(outcome)
            rows.append(row_of(q, outcome))
            if each is not None:
                each(len(rows), total)
    return rows, options, note


def _stop_on_fatal(outcome: AskOutcome) -> None:
    """Raise AskFailed when no later question could be answered either."""
    if outcome.ending is Ending.SEARCH_FAILED:
        raise AskFailed(outcome.error or "the index could not be searched")
    a = outcome.answer
    if outcome.ending is Ending.FAILED and a is not None and a.error_kind in FATAL:
        raise AskFailed(outcome.error or a.error or "Ollama did not answer")


# -- figures ---------------------------------------------------------------------------------
def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def figures(rows: Sequence[Row]) -> dict[str, Any]:
    """Verdict levels, green precision, negatives green, correct but not green, and the same
    for the sentence marks, over ``rows``."""
    levels = Counter(r.level for r in rows)
    answerable = [r for r in rows if not r.negative]
    negatives = [r for r in rows if r.negative]
    green = [r for r in answerable if r.green]
    claims = [s for r in rows for s in r.sentences if s["kind"] == "claim"]
    backed = [s for s in claims if s["supported"]]
    backed_ans = [
        s for r in answerable for s in r.sentences if s["kind"] == "claim" and s["supported"]
    ]
    neg_claims = [s for r in negatives for s in r.sentences if s["kind"] == "claim"]
    gold_claims = [s for r in answerable for s in r.sentences if s["kind"] == "claim" and s["gold"]]
    return {
        "n": len(rows),
        "levels": {level: levels.get(level, 0) for level in LEVELS},
        "answerable": len(answerable),
        "negatives": len(negatives),
        "green": len(green),
        "green_correct": sum(r.correct for r in green),
        "green_precision": _share(sum(r.correct for r in green), len(green)),
        "negatives_green": _share(sum(r.green for r in negatives), len(negatives)),
        "negatives_green_count": sum(r.green for r in negatives),
        "correct": sum(r.correct for r in answerable),
        "correct_not_green": sum(r.correct and not r.green for r in answerable),
        "retrieved": _share(
            sum(bool(r.retrieved) for r in rows), sum(r.retrieved is not None for r in rows)
        ),
        "sentences": {
            "total": sum(len(r.sentences) for r in rows),
            "claims": len(claims),
            "non_claims": sum(s["kind"] != "claim" for r in rows for s in r.sentences),
            "non_claim_kinds": dict(
                Counter(s["kind"] for r in rows for s in r.sentences if s["kind"] != "claim")
            ),
            "backed": len(backed),
            "backed_share": _share(len(backed), len(claims)),
            "backed_with_gold": _share(sum(s["gold"] for s in backed_ans), len(backed_ans)),
            "negatives_backed": _share(sum(s["supported"] for s in neg_claims), len(neg_claims)),
            "gold_not_backed": sum(not s["supported"] for s in gold_claims),
        },
    }


def _example(r: Row) -> dict[str, Any]:
    return {
        "set": r.set,
        "kind": r.kind,
        "half": r.half,
        "question": r.question,
        "answer": r.answer,
        "level": r.level,
        "reason": r.reason,
        "gold": r.to_json()["gold"][:3],
    }


def examples(rows: Sequence[Row], limit: int = EXAMPLES) -> dict[str, dict[str, list]]:
    """Up to ``limit`` of each error kind per half: green but wrong, a negative green, a
    correct answer not green (with its verdict's reason)."""
    kinds: dict[str, Callable[[Row], bool]] = {
        "green_wrong": lambda r: not r.negative and r.green and not r.correct,
        "negative_green": lambda r: r.negative and r.green,
        "correct_not_green": lambda r: not r.negative and r.correct and not r.green,
    }
    return {
        name: {h: [_example(r) for r in rows if r.half == h and test(r)][:limit] for h in HALVES}
        for name, test in kinds.items()
    }


def report(rows: Sequence[Row], sets: Sequence[Prepared], options: AskOptions) -> dict[str, Any]:
    """Figures per half, set and kind (and over all sets: answerable, negatives), the
    examples, and every row."""
    halves: dict[str, Any] = {}
    for h in HALVES:
        mine = [r for r in rows if r.half == h]
        per: dict[str, Any] = {}
        for s in sets:
            cell = {
                k: figures(g)
                for k in KINDS
                if (g := [r for r in mine if r.set == s.name and r.kind == k])
            }
            if cell:
                per[s.name] = cell
        per["all"] = {
            "answerable": figures([r for r in mine if not r.negative]),
            "negatives": figures([r for r in mine if r.negative]),
        }
        halves[h] = per
    answered = Counter(r.model for r in rows if r.model)
    return {
        "model": answered.most_common(1)[0][0] if answered else options.model,
        "model_requested": options.model,
        "host": options.host,
        "k": options.k,
        "questions": len(rows),
        "indexes": {s.name: s.summary for s in sets},
        "halves": halves,
        "examples": examples(rows),
        "rows": [r.to_json() for r in rows],
    }
