"""One answer sentence's mark (``SentenceMark``: what backs it, or why nothing does) and the
JSON form a stored turn keeps it in.

``marks.mark_sentences`` makes the marks; ``judge`` reads them into the answer's verdict; the
window draws them; ``to_json_sentences`` is the ``"sentences"`` list of ``ask --json`` and of a
stored turn, which ``from_json_sentences`` reads back whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SentenceMark:
    """One answer sentence: its offsets in the answer and the passage spans that support it."""

    text: str
    start: int
    end: int
    supported: bool
    sources: list[int]  # the source numbers the sentence cites (valid ones)
    support_spans: list[tuple[int, int, int]] = field(default_factory=list)  # (n, start, end)
    score: float = 0.0
    kind: str = "claim"  # "claim" or "meta"
    reason: str = ""
    bad_citations: list[int] = field(default_factory=list)
    planted: bool = False  # repeats an instruction addressed to the model, not a fact
    declines: bool = False  # says the sources do not answer the question (a gap statement)
    checks: list[str] = field(default_factory=list)  # the checks that decided it (checks.py)

    @property
    def backed_by(self) -> list[int]:
        """The sources whose spans back the sentence, in order."""
        return sorted({n for n, _, _ in self.support_spans})

    @property
    def miscited(self) -> bool:
        """Backed, but by a source it does not cite: its citation points at the wrong passage."""
        return self.supported and bool(self.sources) and not set(self.backed_by) & set(self.sources)

    def unback(self, check: str, reason: str) -> None:
        """Flag a sentence its spans seemed to back: ``check`` found why they do not."""
        self.supported, self.support_spans, self.checks = False, [], [check]
        self.reason = reason


def to_json_sentences(marks: Sequence[SentenceMark]) -> list[dict[str, object]]:
    """The ``"sentences"`` list of ``ask --json``."""
    return [
        {
            "text": m.text,
            "start": m.start,
            "end": m.end,
            "supported": m.supported,
            "sources": m.sources,
            "spans": [{"n": n, "start": s, "end": e} for n, s, e in m.support_spans],
            "score": m.score,
            "kind": m.kind,
            "reason": m.reason,
            "bad_citations": m.bad_citations,
            "planted": m.planted,
            "declines": m.declines,
            "checks": m.checks,
        }
        for m in marks
    ]


def from_json_sentences(raw: Sequence[Mapping[str, Any]]) -> list[SentenceMark]:
    """The marks ``to_json_sentences`` wrote (a stored turn's), whole: planted instructions and
    declines included."""
    return [
        SentenceMark(
            text=str(m.get("text", "")),
            start=int(m.get("start", 0)),
            end=int(m.get("end", 0)),
            supported=bool(m.get("supported", False)),
            sources=[int(n) for n in m.get("sources", [])],
            support_spans=[
                (int(s["n"]), int(s["start"]), int(s["end"])) for s in m.get("spans", [])
            ],
            score=float(m.get("score", 0.0)),
            kind=str(m.get("kind", "claim")),
            reason=str(m.get("reason", "")),
            bad_citations=[int(n) for n in m.get("bad_citations", [])],
            planted=bool(m.get("planted", False)),
            declines=bool(m.get("declines", False)),
            checks=[str(c) for c in m.get("checks", [])],
        )
        for m in raw
    ]
