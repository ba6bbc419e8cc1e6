"""A follow-up's prompt starts with the previous turn's prompt and answer, as they were sent.

Ollama keeps the last prompt and its answer in its cache; a follow-up whose prompt starts with
them is evaluated only from where it differs, which on a machine without a GPU is most of the
wait for the first word. Asked through the core Ask operation, on a real index, the stand-in
server recording what it was sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.answer.answering import EarlierTurn, Source, build_messages, estimate_tokens
from app.core.answer.threads import ThreadStore
from app.core.ask import Asker, AskOptions, AskRequest, Done
from app.core.types import Hit
from tests.fake_ollama import FakeOllama


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(echo=True) as fake:
        yield fake


def test_a_follow_up_prompt_begins_with_the_previous_turn_as_sent(
    tmp_path: Path, make_engine, server: FakeOllama
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tomatoes.txt").write_text(
        "Tomatoes need six hours of direct sun and deep watering twice a week. "
        "Mulch keeps the soil moist between waterings.",
        encoding="utf-8",
    )
    (docs / "compost.txt").write_text(
        "Compost is ready when it is dark and crumbly and smells of earth, after three to six "
        "months of turning.",
        encoding="utf-8",
    )
    engine = make_engine()
    engine.index([str(docs)])
    store = ThreadStore(tmp_path / "threads.sqlite3")
    asker = Asker(
        lambda q, k, scope: engine.search(q, k, scope=scope),
        store,
        AskOptions(host=server.url, model="llama3.2", rewrite_followups=False),
    )

    def ask(question: str, thread_id: str | None = None) -> Done:
        events = list(asker.ask(AskRequest(question, thread_id=thread_id)))
        assert isinstance(events[-1], Done)
        return events[-1]

    first = ask("How much sun do tomatoes need?")
    assert first.outcome.thread_id and first.outcome.answer is not None
    second = ask("And when is compost ready?", first.outcome.thread_id)
    assert second.outcome.answer is not None and second.outcome.answer.text

    one, two = (c.body["messages"] for c in server.chats()[-2:])
    said = {"role": "assistant", "content": first.outcome.answer.text}
    assert two[: len(one) + 1] == [*one, said]  # the whole first turn, then its answer
    assert "six hours of direct sun" in two[1]["content"]  # its sources as they were sent
    assert "compost" in two[-1]["content"] and two[-1] != one[-1]


def hit(rank: int, text: str) -> Hit:
    return Hit(rank, f"/notes/{rank}.txt", None, 0, len(text), text, 1.0, f"c{rank}")


def test_earlier_turns_are_replayed_oldest_first_while_the_budget_holds() -> None:
    """Past the budget, a turn falls back to its question and answer without citations; the
    replayed turns stay a prefix of the history, so the cached start still matches."""
    long = "Soil notes. " + "Loam holds water and air in balance. " * 150
    turns = [
        EarlierTurn(f"question {i}?", f"Answer {i} [1].", [hit(1, long if i else "Short.")])
        for i in range(3)
    ]
    messages, _ = build_messages("and compost?", [hit(1, "Compost.")], history=turns)
    earlier = [m["content"] for m in messages[1:-1]]
    assert earlier[0].startswith("Sources") and "Short." in earlier[0]  # turn 0, as sent
    assert earlier[1] == "Answer 0 [1]."
    assert "Loam" in earlier[2]  # turn 1 fits too
    assert earlier[4:] == ["Question: question 2?", "Answer 2."]  # turn 2 would not
    budget = 4096 - 768
    assert sum(estimate_tokens(m["content"]) + 4 for m in messages) <= budget


def test_a_replayed_turn_keeps_its_own_source_numbers() -> None:
    sources = [hit(1, "Tomatoes need sun."), hit(2, "Compost needs turning.")]
    turns = [EarlierTurn("What do plants need?", "Sun [1] and turning [2].", sources)]
    first, _ = build_messages("What do plants need?", sources)
    again, now = build_messages("and water?", [hit(1, "Water twice a week.")], history=turns)
    assert again[1] == first[1]  # the same user message as the first turn sent
    assert now == [Source(1, hit(1, "Water twice a week."))]
