"""Given answers judged as ``ask`` judges them (``footnotes eval answers --replay FILE``).

Any set of answers — written by a person in the style of a capable model, or logged from any
model — is measured in seconds, with no model running: each line's question is searched as
``ask`` searches it, the sources are chosen and numbered as ``ask`` numbers them, and the given
answer takes the model's place (the Asker's ``reply``), so its sentence marks and verdict are
the app's own. A line is one JSON object::

    {"id": "5726…", "set": "squad", "question": "…", "answer": "… [[file:Normans_0]].",
     "label": "faithful", "note": "what is right or wrong in it"}

``question`` may be left out when ``id`` names a question of the labelled sets (SQuAD 2.0,
FinanceBench, a note: ``notes:<file name>``), so the repository keeps answers and labels while
the questions stay in the shared data. Citations name files, ``[[file:NAME]]`` (with or without
the extension), because numbers are per prompt: each becomes the numbers of the sources sent
from that file, or a number past the last source when none was sent (a citation of a passage
the model never read). ``--write-prompts FILE`` writes, per question, the sources ``ask``
sends, for a writer to answer against.

Labels say what the verdict should make of an answer (``LABELS``): faithful answers green,
contradicting, misread, false-premise and invented ones never green, an invented detail amber
at most, a decline grey. Figures are printed per half (the question id's hash), dev and
held-out apart.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from app.core.ask import Asker, AskOptions, AskOutcome, AskRequest
from app.core.engine import Engine
from app.core.index.indexer import ProgressFn
from app.core.prompt.answering import Source
from app.core.text import display_path
from app.core.verdict.judge import Level
from app.core.verdict.marks import mark_sentences
from app.evaluation import answers as ans
from app.evaluation.datasets import EvalDataError


@dataclass(frozen=True)
class Label:
    """What a kind of answer is, and what the verdict should make of it."""

    name: str
    what: str
    want: str  # "green", "not_green" or "grey"


_GREEN, _NOT_GREEN, _GREY = "green", "not_green", "grey"
LABELS = {
    label.name: label
    for label in (
        Label("faithful", "a faithful answer, 1-2 sentences", _GREEN),
        Label("faithful_long", "faithful, 3-5 sentences of context, Markdown, [1][2]", _GREEN),
        Label("invented_detail", "a correct sentence plus one invented detail", _NOT_GREEN),
        Label(
            "contradicts", "contradicts its source (a swapped role, date, negation…)", _NOT_GREEN
        ),
        Label("misread_figure", "a figure misread (year, line item, scale, trend)", _NOT_GREEN),
        Label("false_premise", "answers a false premise with a nearby entity", _NOT_GREEN),
        Label(
            "invented", "invented from world knowledge, cited to an unrelated source", _NOT_GREEN
        ),
        Label("declines", "says the files do not answer (maybe what they cover)", _GREY),
    )
}
LEVELS = ("supported", "partly_supported", "unsupported", "no_answer", "failed")
_FILE_CITE = re.compile(r"\[\[\s*file\s*:\s*([^\]\n]+?)\s*\]\]", re.IGNORECASE)


@dataclass(frozen=True)
class ReplayLine:
    """One given answer, with its question and label."""

    n: int  # the line number in the file
    id: str
    set: str
    question: str
    answer: str
    label: str
    note: str = ""

    @property
    def half(self) -> str:
        return ans.Question(self.set, self.id, self.question, "").half


@dataclass
class ReplayRow:
    """What the verdict made of one given answer."""

    line: ReplayLine
    level: str
    reason: str
    answer: str  # with the citations as numbers
    sentences: list[dict[str, Any]] = field(default_factory=list)
    unmapped: list[str] = field(default_factory=list)  # cited files no source came from
    sources: list[dict[str, Any]] = field(default_factory=list)  # what the answer was judged on
    support: dict[str, object] = field(default_factory=dict)  # the retrieval evidence

    @property
    def right(self) -> bool:
        want = LABELS[self.line.label].want if self.line.label in LABELS else ""
        if want == "green":
            return self.level == Level.SUPPORTED
        if want == "grey":
            return self.level == Level.NO_ANSWER
        return self.level != Level.SUPPORTED

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line.n,
            "id": self.line.id,
            "set": self.line.set,
            "half": self.line.half,
            "label": self.line.label,
            "question": self.line.question,
            "answer": self.answer,
            "level": self.level,
            "reason": self.reason,
            "right": self.right,
            "note": self.line.note,
            "unmapped": self.unmapped,
            "sentences": self.sentences,
            "sources": self.sources,
            "support": self.support,
        }


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a replay file, one a line (blank lines and ``#`` lines skipped)."""
    out = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EvalDataError(f"cannot read {path}: {exc.strerror or exc}") from None
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise EvalDataError(f"{path}:{n}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("answer"), str):
            raise EvalDataError(f'{path}:{n}: a line needs an "answer" string')
        obj["_n"] = n
        out.append(obj)
    return out


def set_of(obj: dict[str, Any]) -> str:
    """The labelled set a line's question belongs to (``set``, else read off its id)."""
    name = str(obj.get("set") or "")
    if name:
        return name
    ident = str(obj.get("id") or "")
    if ident.startswith(("notes:", "off:")):
        return "notes"
    return "finance" if ident.startswith("financebench_id") else "squad"


def resolve(objs: Sequence[dict[str, Any]], questions: dict[str, ans.Question]) -> list[ReplayLine]:
    """Each object as a line, its question looked up by id where it gives none."""
    out = []
    for obj in objs:
        ident = str(obj.get("id") or "")
        question = str(obj.get("question") or "")
        if not question:
            known = questions.get(ident)
            if known is None:
                raise EvalDataError(f"line {obj['_n']}: no question, and id {ident!r} is unknown")
            question = known.text
        out.append(
            ReplayLine(
                obj["_n"],
                ident or question,
                set_of(obj),
                question,
                obj["answer"],
                str(obj.get("label") or ""),
                str(obj.get("note") or ""),
            )
        )
    return out


def file_citations(answer: str, sources: Sequence[Source]) -> tuple[str, list[str]]:
    """``answer`` with each ``[[file:NAME]]`` as the numbers of the sources from that file
    (``[2][5]``), or as a number past the last source when none came from it; and the names
    no source came from."""
    unmapped: list[str] = []
    beyond = len(sources) + 1

    def numbers(m: re.Match[str]) -> str:
        name = m.group(1).strip().lower()
        found = [s.n for s in sources if name in _names(s)]
        if not found:
            unmapped.append(m.group(1).strip())
            return f"[{beyond}]"
        return "".join(f"[{n}]" for n in found)

    return _FILE_CITE.sub(numbers, answer), unmapped


def _names(source: Source) -> set[str]:
    path = PurePath(display_path(source.hit.path))
    return {path.name.lower(), path.stem.lower()}


class Replier:
    """Plays a given answer in the model's place (the Asker's ``reply``), its file citations
    turned into the prompt's source numbers; keeps what it mapped for the report."""

    def __init__(self) -> None:
        self.answer = ""
        self.text = ""
        self.unmapped: list[str] = []
        self.sources: list[Source] = []

    def play(self, answer: str) -> Replier:
        self.answer, self.text, self.unmapped, self.sources = answer, "", [], []
        return self

    def __call__(self, messages: list[dict[str, str]], sources: list[Source]) -> Iterator[str]:
        self.sources = list(sources)
        self.text, self.unmapped = file_citations(self.answer, sources)
        yield from re.findall(r"\S+\s*|\s+", self.text)  # in pieces, as a model streams


def prepare(
    engine: Engine,
    data: Path,
    root: Path,
    names: Sequence[str],
    progress: ProgressFn | None,
    index_dir: Path | None = None,
) -> list[ans.Prepared]:
    """The indexes (and every question) of these sets, as ``eval answers`` prepares them."""
    out = []
    for name in names:
        if name == "squad":
            out.append(ans.prepare_squad(engine, data, root, None, progress))
        elif name == "notes":
            out.append(ans.prepare_notes(engine, data, root, None, progress, index_dir))
        elif name == "finance":
            out.append(ans.prepare_finance(engine, data, root, None, progress, index_dir))
        else:
            raise EvalDataError(f"unknown set {name!r} (squad, notes, finance)")
    return out


def replay(
    lines: Sequence[ReplayLine],
    sets: Sequence[ans.Prepared],
    options: AskOptions,
    each: Callable[[int, int], None] | None = None,
) -> list[tuple[ReplayRow, AskOutcome]]:
    """Every line asked through the Asker with its answer in the model's place."""
    by_name = {s.name: s for s in sets}
    replier = Replier()
    askers = {s.name: Asker(ans.search_of(s.engine), None, options, reply=replier) for s in sets}
    out = []
    for i, line in enumerate(lines, 1):
        if line.set not in by_name:
            raise EvalDataError(f"line {line.n}: set {line.set!r} is not prepared")
        replier.play(line.answer)
        outcome = askers[line.set].run(AskRequest(line.question))
        out.append((row_of(line, outcome, replier), outcome))
        if each is not None:
            each(i, len(lines))
    return out


def row_of(line: ReplayLine, outcome: AskOutcome, replier: Replier) -> ReplayRow:
    v = outcome.verdict
    a = outcome.answer
    sentences = [
        {
            "text": m.text,
            "kind": m.kind,
            "supported": m.supported,
            "reason": m.reason,
            "checks": list(m.checks),
            "score": m.score,
            "cites": list(m.sources),
            "backed_by": m.backed_by,
        }
        for m in (a.sentences if a is not None else [])
    ]
    return ReplayRow(
        line,
        v.level if v is not None else "failed",
        v.reason if v is not None else (outcome.error or ""),
        replier.text,
        sentences,
        list(replier.unmapped),
        [
            {"n": s.n, "file": PurePath(display_path(s.hit.path)).name, "text": s.text}
            for s in replier.sources
        ],
        outcome.result.support.to_json() if outcome.result is not None else {},
    )


def figures(rows: Sequence[ReplayRow]) -> dict[str, Any]:
    """Per half and label: the verdict levels and the share the verdict got right."""
    out: dict[str, Any] = {}
    for half in ans.HALVES:
        mine = [r for r in rows if r.line.half == half]
        per: dict[str, Any] = {}
        for label in [*LABELS, *sorted({r.line.label for r in mine} - set(LABELS))]:
            group = [r for r in mine if r.line.label == label]
            if not group:
                continue
            levels = Counter(r.level for r in group)
            per[label] = {
                "n": len(group),
                "levels": {lv: levels.get(lv, 0) for lv in LEVELS},
                "green": levels.get("supported", 0),
                "grey": levels.get("no_answer", 0),
                "right": sum(r.right for r in group),
                "right_share": round(sum(r.right for r in group) / len(group), 4),
                "want": LABELS[label].want if label in LABELS else "",
            }
        if per:
            out[half] = per
    return out


def write_prompts(
    sets: Sequence[ans.Prepared],
    options: AskOptions,
    out: Path,
    *,
    half: str | None = "dev",
    limit: int | None = None,
    each: Callable[[int, int], None] | None = None,
) -> int:
    """Per question of ``half`` (None: both), the sources ``ask`` sends (as the model reads
    them), to write answers against; returns how many questions were written."""
    replier = Replier()
    chosen = [
        (s, q)
        for s in sets
        for q in ans.sample([q for q in s.questions if half is None or q.half == half], limit)
    ]
    with out.open("w", encoding="utf-8") as f:
        for i, (s, q) in enumerate(chosen, 1):
            asker = Asker(ans.search_of(s.engine), None, options, reply=replier.play(""))
            outcome = asker.run(AskRequest(q.text))
            hits = outcome.result.hits if outcome.result is not None else []
            retrieved = any(q.evidence(h) for h in hits) if q.evidence is not None else None
            kind = q.kind
            if q.missed_is_negative and kind == ans.ANSWERABLE and not retrieved:
                kind = "evidence_missed"
            record = {
                "id": q.id,
                "set": s.name,
                "half": q.half,
                "kind": kind,
                "question": q.text,
                "gold": [] if s.name == "notes" else list(q.gold),
                "ending": outcome.ending.value,
                "sources": [
                    {
                        "n": src.n,
                        "file": PurePath(display_path(src.hit.path)).name,
                        "page": src.hit.page,
                        "section": src.hit.heading or "",
                        "text": src.prompt_text,
                    }
                    for src in replier.sources
                ],
            }
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            if each is not None:
                each(i, len(chosen))
    return len(chosen)


def ablate(done: Sequence[tuple[ReplayRow, AskOutcome]]) -> dict[str, Any]:
    """Per check of the verdict (``checks.CHECKS``): the answers of each half it gets right
    with that check switched off alone, beside all checks on. The answers are judged again
    from the same sources (no search, no model), so only the verdict changes. Each answer is
    judged every way before the next one, while its sentences' and sources' parses are still
    cached (a pass over all answers per check would parse them all again each time)."""
    from app.core.verdict import checks

    def rejudged(row: ReplayRow, outcome: AskOutcome) -> ReplayRow:
        answer, result = outcome.answer, outcome.result
        if answer is None or not answer.text:
            return row
        answer.sentences = mark_sentences(answer.text, answer.sources, question=answer.question)
        answer.verdict = None
        verdict = answer.judge(result.support if result is not None else None)
        return dataclasses.replace(row, level=verdict.level, reason=verdict.reason)

    def right_per_half(rows: Sequence[ReplayRow]) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in rows:
            out[r.line.half] = out.get(r.line.half, 0) + r.right
        return out

    def right_per_label(rows: Sequence[ReplayRow]) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for r in rows:
            per = out.setdefault(r.line.half, {})
            per[r.line.label] = per.get(r.line.label, 0) + r.right
        return out

    ways = ["", *(check.name for check in checks.CHECKS)]  # "": every check on
    judged: dict[str, list[ReplayRow]] = {way: [] for way in ways}
    for row, outcome in done:
        for way in ways:
            with checks.off([way] if way else []):
                judged[way].append(rejudged(row, outcome))
    report: dict[str, Any] = {
        "all": right_per_half(judged[""]),
        "all_labels": right_per_label(judged[""]),
        "checks": {},
        "labels": {},
    }
    for check in checks.CHECKS:
        report["checks"][check.name] = right_per_half(judged[check.name])
        report["labels"][check.name] = right_per_label(judged[check.name])
    return report
