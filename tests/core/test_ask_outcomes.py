"""The core Ask turns a search that cannot run into an outcome a front end can show."""

from __future__ import annotations

from app.core.ask import Asker, AskOptions, AskRequest, Done, Ending
from app.core.errors import QueryError


def test_a_question_past_the_query_cap_ends_with_the_sentence_not_an_exception() -> None:
    said = "The question is longer than 2,000 characters: shorten it."

    def search(query: str, k: int, scope: object) -> object:
        raise QueryError(said)

    asker = Asker(search, None, AskOptions(rewrite_followups=False))  # type: ignore[arg-type]
    events = list(asker.ask(AskRequest("word " * 500)))
    assert isinstance(events[-1], Done)
    outcome = events[-1].outcome
    assert outcome.ending is Ending.SEARCH_FAILED and outcome.error == said
    assert outcome.verdict is not None and not outcome.verdict.supported
