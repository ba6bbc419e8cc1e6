"""A follow-up's prompt starts as its previous turn's did, up to the first passage that differs.

Ollama keeps the last prompt in its cache, and a prompt that starts the same way is read only
from where it differs: on a machine without a GPU that reading is most of the wait for the
first word. A follow-up usually finds the passages its previous turn found, so the prompt puts
this turn's sources first and the conversation so far after them. Asked through the core Ask
operation on a real index, the stand-in server recording what it was sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.ask import Asker, AskOptions, AskRequest, Done
from app.core.threads.store import ThreadStore
from tests.fake_ollama import FakeOllama


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(echo=True) as fake:
        yield fake


def test_a_follow_up_prompt_starts_as_the_previous_one_did(
    tmp_path: Path, make_engine, server: FakeOllama
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tomatoes.txt").write_text(
        "Tomatoes need six hours of direct sun and deep watering twice a week. "
        "Mulch keeps the soil moist between waterings of the tomatoes.",
        encoding="utf-8",
    )
    (docs / "compost.txt").write_text(
        "Compost is ready when it is dark and crumbly and smells of earth.", encoding="utf-8"
    )
    engine = make_engine()
    engine.index([str(docs)])
    asker = Asker(
        lambda q, k, scope: engine.search(q, k, scope=scope),
        ThreadStore(tmp_path / "threads.sqlite3"),
        AskOptions(host=server.url, model="llama3.2", rewrite_followups=False),
    )

    def ask(question: str, thread_id: str | None = None) -> Done:
        events = list(asker.ask(AskRequest(question, thread_id=thread_id)))
        assert isinstance(events[-1], Done)
        return events[-1]

    first = ask("How much sun do tomatoes need?")
    assert first.outcome.thread_id is not None
    second = ask("And how often should tomatoes be watered?", first.outcome.thread_id)
    assert second.outcome.answer is not None and second.outcome.answer.text

    one, two = (c.body["messages"] for c in server.chats()[-2:])
    assert two[0] == one[0]  # the same system prompt
    sources = one[1]["content"].split("</sources>")[0] + "</sources>"
    assert "six hours of direct sun" in sources
    assert two[1]["content"].startswith(sources)  # the same passages, read from the cache
    rest = two[1]["content"][len(sources) :]
    # then what was said before (context, not a source), then the question
    assert rest.index("Earlier question: How much sun do tomatoes need?") < rest.index(
        "Question: And how often"
    )
    assert "[1]" not in rest.split("Question: And how often")[0]
