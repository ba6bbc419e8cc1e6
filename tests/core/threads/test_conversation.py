"""One turn of a thread without a model: what it searches for, which earlier turns it carries,
and what is stored after it (real SQLite); a history database that cannot be used never stops
an answer."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.config import DataDir, Settings
from app.core.errors import UnknownThread
from app.core.prompt.answering import Answer
from app.core.threads.conversation import PROMPT_TURNS, open_store, plan_turn, record_turn
from app.core.threads.store import ThreadStore

NOWHERE = "http://127.0.0.1:9"  # no model is asked: rewriting is off or not needed


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ThreadStore]:
    s = ThreadStore(tmp_path / "threads.sqlite3")
    yield s
    s.close()


def answer(text: str) -> Answer:
    return Answer(text, "llama3.2", [])


def ask(store: ThreadStore, question: str, thread_id: str | None = None, text: str = "It is."):
    plan = plan_turn(store, thread_id, question, host=NOWHERE, model="m", rewrite_followups=False)
    return plan, record_turn(store, plan, question, answer(text))


def test_a_first_turn_starts_a_thread_and_a_follow_up_continues_it(store: ThreadStore) -> None:
    plan, saved = ask(store, "How often should a bicycle chain be replaced?")
    assert (plan.thread_id, plan.turn, plan.rewrite.method) == (None, 1, "as_typed")
    assert plan.history == [] and plan.warning is None
    assert saved.thread_id is not None and saved.turn == 1
    follow, again = ask(store, "Why?", saved.thread_id, "It stretches.")
    assert follow.turn == 2 and follow.rewrite.method == "fallback"
    assert {"bicycle", "chain"} <= set(follow.search_query.split())  # the merge, no model
    assert follow.prompt_history == [("How often should a bicycle chain be replaced?", "It is.")]
    assert (again.thread_id, again.turn) == (saved.thread_id, 2)
    assert [t.search_query for t in store.turns(saved.thread_id)] == [
        "How often should a bicycle chain be replaced?",
        follow.search_query,
    ]


def test_the_prompt_carries_only_the_last_few_turns(store: ThreadStore) -> None:
    _, saved = ask(store, "question 0?")
    for i in range(1, PROMPT_TURNS + 2):
        ask(store, f"question {i}?", saved.thread_id)
    plan = plan_turn(store, saved.thread_id, "and now?", host=NOWHERE, model="m",
                     rewrite_followups=False)  # fmt: skip
    assert plan.turn == PROMPT_TURNS + 3
    assert [q for q, _ in plan.prompt_history] == [
        f"question {i}?" for i in range(2, PROMPT_TURNS + 2)
    ]


def test_a_query_the_person_edited_is_searched_as_given(store: ThreadStore) -> None:
    _, saved = ask(store, "How often should a bicycle chain be replaced?")
    plan = plan_turn(store, saved.thread_id, "Why?", host=NOWHERE, model="m",
                     search_query="  chain stretch wear  ")  # fmt: skip
    assert (plan.search_query, plan.rewrite.method) == ("chain stretch wear", "edited")


def test_an_unknown_thread_is_refused(store: ThreadStore) -> None:
    with pytest.raises(UnknownThread) as refused:
        plan_turn(store, "no-such-id", "Why?", host=NOWHERE, model="m")
    assert refused.value.thread_id == "no-such-id"


def test_a_question_without_an_answer_leaves_no_thread_or_turn(store: ThreadStore) -> None:
    _, saved = ask(store, "Is it raining?", text="")  # Ollama down, say
    assert saved.thread_id is None and saved.turn == 1
    assert store.list_threads() == []


def test_history_off_keeps_nothing(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    assert open_store(data, Settings(history_enabled=False)) is None
    plan = plan_turn(None, None, "Is it raining?", host=NOWHERE, model="m")
    saved = record_turn(None, plan, "Is it raining?", answer("It is."))
    assert saved.thread_id is None and not data.threads_path.exists()
    kept = open_store(data, Settings())
    assert isinstance(kept, ThreadStore)
    kept.close()


def test_a_locked_database_does_not_stop_an_answer(tmp_path: Path) -> None:

    from app.core.config import Settings
    from app.core.prompt.answering import Answer
    from app.core.threads.conversation import plan_turn, record_turn

    db = tmp_path / "threads.sqlite3"
    store = ThreadStore(db, busy_timeout_s=0.2)
    tid = store.create("an earlier question?")
    holder = sqlite3.connect(db)
    holder.execute("BEGIN EXCLUSIVE")  # another program holds the file
    try:
        plan = plan_turn(store, tid, "and now?", host=Settings().ollama_host, model="llama3.2")
        assert plan.warning and "locked" in plan.warning
        assert (plan.turn, plan.search_query) == (1, "and now?")  # answered as a first turn
        saved = record_turn(store, plan, "and now?", Answer("It is [1].", "llama3.2", []))
        assert saved.thread_id is None and saved.warning and "locked" in saved.warning
    finally:
        holder.rollback()
        holder.close()
    saved = record_turn(store, plan, "and now?", Answer("It is.", "llama3.2", []))
    assert saved.thread_id == tid and saved.turn == 1  # once free, the store works again
    store.close()
