"""A thread starts where a topic does: asked in a thread, a question of its own starts a new
one, searched as typed and answered without the earlier turns; a follow-up continues it.

Asked through the core Ask operation (the command line, the window and quick ask all ask
through it) on a real index, with the stand-in server recording what the model was sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.ask import Asker, AskOptions, AskOutcome, AskRequest, Done, Planned
from app.core.threads.store import ThreadStore
from tests.fake_ollama import FakeOllama

CURL = "What licence is curl distributed under?"
ULTA = "What were Ulta Beauty's net sales for fiscal 2022?"


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(echo=True) as fake:
        yield fake


@pytest.fixture
def asker(tmp_path: Path, make_engine, server: FakeOllama) -> Iterator[Asker]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "curl-copyright").write_text(
        "COPYRIGHT AND PERMISSION NOTICE. curl is distributed under a licence derived from "
        "the MIT/X licence: permission to use, copy, modify, and distribute this software "
        "for any purpose with or without fee is hereby granted.",
        encoding="utf-8",
    )
    (docs / "ulta.txt").write_text(
        "Ulta Beauty net sales increased 18.3% to 10.2 billion dollars in fiscal 2022. "
        "Ulta Beauty net sales were 11.2 billion dollars in fiscal 2023. Net income was "
        "1.3 billion dollars in fiscal 2023.",
        encoding="utf-8",
    )
    engine = make_engine()
    engine.index([str(docs)])
    store = ThreadStore(tmp_path / "threads.sqlite3")
    yield Asker(
        lambda q, k, scope: engine.search(q, k, scope=scope),
        store,
        AskOptions(host=server.url, model="llama3.2"),
    )
    store.close()


def ask(asker: Asker, question: str, thread_id: str | None = None, **kw: object) -> AskOutcome:
    events = list(asker.ask(AskRequest(question, thread_id=thread_id, **kw)))  # type: ignore[arg-type]
    planned = next(e for e in events if isinstance(e, Planned))
    done = events[-1]
    assert isinstance(done, Done)
    assert planned.new_topic_from == done.outcome.new_topic_from  # said before the search
    return done.outcome


def test_an_unrelated_question_starts_a_new_thread_without_the_earlier_turns(
    asker: Asker, server: FakeOllama
) -> None:
    first = ask(asker, CURL)
    assert first.thread_id is not None and first.answer is not None
    second = ask(asker, ULTA, first.thread_id)
    assert second.thread_id not in (None, first.thread_id) and second.turn == 1
    assert second.new_topic_from == first.thread_id
    assert CURL[:30] in second.new_topic_note  # the line names the thread it left
    assert (second.search_query, second.search_method) == (ULTA, "as_typed")
    assert server.rewrites() == []  # nothing to rewrite: it is not a follow-up
    prompt = server.answers()[-1].body["messages"][-1]["content"]
    assert "Earlier question" not in prompt and "curl" not in prompt.lower()
    assert second.answer is not None and "curl" not in second.answer.text.lower()
    assert asker.store is not None
    assert asker.store.get(first.thread_id).turns == 1  # type: ignore[union-attr]


@pytest.mark.parametrize("follow_up", ["and in 2023?", "What about net income?"])
def test_a_follow_up_stays_in_its_thread_with_the_earlier_turns(
    asker: Asker, server: FakeOllama, follow_up: str
) -> None:
    first = ask(asker, ULTA)
    second = ask(asker, follow_up, first.thread_id)
    assert (second.thread_id, second.turn) == (first.thread_id, 2)
    assert second.new_topic_from is None and second.new_topic_note == ""
    prompt = server.answers()[-1].body["messages"][-1]["content"]
    assert f"Earlier question: {ULTA}" in prompt


def test_the_same_topic_asked_again_stays_in_its_thread(asker: Asker) -> None:
    first = ask(asker, ULTA)
    again = ask(asker, "What were Ulta Beauty's net sales for fiscal 2023?", first.thread_id)
    assert (again.thread_id, again.turn, again.new_topic_from) == (first.thread_id, 2, None)


def test_continuing_the_last_thread_instead_keeps_a_new_topic_in_it(
    asker: Asker, server: FakeOllama
) -> None:
    first = ask(asker, CURL)
    kept = ask(asker, ULTA, first.thread_id, follow_up=True)
    assert (kept.thread_id, kept.turn, kept.new_topic_from) == (first.thread_id, 2, None)
    prompt = server.answers()[-1].body["messages"][-1]["content"]
    assert f"Earlier question: {CURL}" in prompt  # a follow-up carries its thread
