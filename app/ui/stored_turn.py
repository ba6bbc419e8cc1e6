"""A stored turn shown again as if just answered: its answer, marks, verdict and sources."""

from __future__ import annotations

from typing import Any

from app.core.prompt.answering import Answer, Source
from app.core.search.retrieval import SearchResult
from app.core.threads.store import Turn
from app.core.types import Hit, Support
from app.core.verdict.judge import Verdict
from app.core.verdict.marks import SentenceMark
from app.ui.ask_session import AskState


def _mark(m: dict[str, Any]) -> SentenceMark:
    return SentenceMark(
        text=str(m.get("text", "")),
        start=int(m.get("start", 0)),
        end=int(m.get("end", 0)),
        supported=bool(m.get("supported", False)),
        sources=[int(n) for n in m.get("sources", [])],
        support_spans=[(int(s["n"]), int(s["start"]), int(s["end"])) for s in m.get("spans", [])],
        score=float(m.get("score", 0.0)),
        kind=str(m.get("kind", "claim")),
        reason=str(m.get("reason", "")),
        bad_citations=[int(n) for n in m.get("bad_citations", [])],
    )


def outcome_from_turn(
    turn: Turn, thread_id: str, states: dict[tuple[int, int], str] | None = None
) -> AskState:
    """The outcome the window shows for a stored turn; ``states`` says which sources' files
    changed or vanished since (their heading says so; the quote is the text as it was)."""
    states = states or {}
    hits = []
    for s in turn.sources:
        state = states.get((turn.n, s.n))
        heading = f"{state} · {s.heading}" if state and s.heading else (state or s.heading)
        hits.append(
            Hit(
                rank=s.n,
                path=s.path,
                page=s.page,
                start=s.start,
                end=s.end,
                text=s.text,
                score=0.0,
                chunk_id=f"thread:{thread_id}:{turn.n}:{s.n}",
                heading=heading,
                text_hash=s.text_hash,
            )
        )
    verdict = Verdict.from_json(turn.verdict)
    answer = Answer(
        turn.answer,
        turn.model,
        [
            Source(h.rank, h, tuple((a, b) for a, b in s.sent) if s.sent is not None else None)
            for h, s in zip(hits, turn.sources, strict=True)
        ],
        [_mark(m) for m in turn.sentences],
        error=turn.error,
        verdict=verdict,
    )
    supported = verdict is not None and verdict.supported
    support = Support(supported, 0.0, verdict.reason if verdict else "")
    return AskState(
        turn.question,
        SearchResult(turn.search_query, hits, support),
        text=turn.answer,
        answer=answer,
        error=turn.error,
        done=True,
        verdict=verdict,
        search_query=turn.search_query,
        search_method="stored",
        thread_id=thread_id,
        turn=turn.n,
    )
