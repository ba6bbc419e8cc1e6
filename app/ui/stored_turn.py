"""A stored turn shown again as if just answered: the window's state for the core's outcome."""

from __future__ import annotations

from app.core.api import AskOutcome, Turn
from app.ui.ask_session import AskState


def outcome_from_turn(
    turn: Turn, thread_id: str, states: dict[tuple[int, int], str] | None = None
) -> AskState:
    """The outcome the window shows for a stored turn (``AskOutcome.from_turn`` rebuilds it
    in the core); ``states`` says which sources' files changed or vanished since."""
    o = AskOutcome.from_turn(turn, thread_id, states)
    return AskState(
        o.question,
        o.result,
        text=turn.answer,
        answer=o.answer,
        error=o.error,
        done=True,
        verdict=o.verdict,
        search_query=o.search_query,
        search_method=o.search_method,
        thread_id=thread_id,
        turn=o.turn,
        ending=o.ending,
    )
