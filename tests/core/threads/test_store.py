"""The conversation store on real SQLite, and the follow-up rewrite through the stand-in Ollama
server (the rewrite's validation and the merge are tested fast in ``test_followup.py``, the
Markdown export in ``test_export.py``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.errors import HistoryError
from app.core.prompt.answering import build_messages
from app.core.text import text_hash
from app.core.threads.followup import merge_query, standalone_query
from app.core.threads.store import StoredSource, ThreadStore, Turn
from tests.fake_ollama import FakeOllama

FIRST_Q = "How often should the chain on a road bicycle be replaced?"
FIRST_A = "The chain should be replaced every three thousand kilometres [1]."


def turn(path: str, text: str, *, question: str = FIRST_Q, answer: str = FIRST_A) -> Turn:
    source = StoredSource(1, path, None, 0, len(text), text, text_hash(text))
    end = answer.index("[1]") + len("[1].")
    marks = [
        {
            "text": answer[:end],
            "start": 0,
            "end": end,
            "supported": True,
            "sources": [1],
            "spans": [{"n": 1, "start": 0, "end": len(text)}],
            "kind": "claim",
        }
    ]
    return Turn(
        question=question,
        search_query=question,
        answer=answer,
        sources=[source],
        verdict={"level": "supported", "reason": "every claim is backed"},
        sentences=marks,
        model="llama3.2",
        created=time.time(),
    )


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(echo=True) as fake:
        yield fake


def test_threads_persist_across_a_restart_with_every_field(tmp_path: Path) -> None:
    db = tmp_path / "threads.sqlite3"
    text = "The chain on a road bicycle should be replaced every three thousand kilometres."
    store = ThreadStore(db)
    tid = store.create(FIRST_Q)
    assert store.add_turn(tid, turn("/docs/bikes.txt", text)) == 1
    follow = turn("/docs/bikes.txt", text, question="Why?", answer="Wear stretches it [1].")
    assert store.add_turn(tid, follow) == 2
    store.close()

    again = ThreadStore(db)  # a new process would open it the same way
    [info] = again.list_threads()
    assert (info.id, info.turns, info.title) == (tid, 2, FIRST_Q)
    turns = again.turns(tid)
    assert [t.n for t in turns] == [1, 2] and turns[1].question == "Why?"
    src = turns[0].sources[0]
    assert (src.path, src.text, src.text_hash) == ("/docs/bikes.txt", text, text_hash(text))
    assert turns[0].verdict["level"] == "supported" and turns[0].sentences[0]["sources"] == [1]
    assert again.turns(tid, last=1)[0].n == 2
    assert again.list_threads("why")[0].id == tid and again.list_threads("sourdough") == []
    assert set(info.to_json()) == {"id", "title", "turns", "updated"}
    assert again.delete(tid) and again.get(tid) is None and not again.delete(tid)
    again.close()


def test_which_part_of_a_source_the_model_read_is_kept_and_an_older_history_still_opens(
    tmp_path: Path,
) -> None:
    """A turn whose second source was read in part says so when reopened; a history written
    before sources were excerpted (no such column) opens, its sources read as whole."""
    import sqlite3

    text = "The chain on a road bicycle should be replaced every three thousand kilometres."
    db = tmp_path / "old.sqlite3"
    old = ThreadStore(db)
    tid = old.create(FIRST_Q)
    old.add_turn(tid, turn("/docs/bikes.txt", text))
    old.close()
    with sqlite3.connect(db) as conn:  # as the store before this change made it
        conn.execute("ALTER TABLE sources DROP COLUMN sent")
    store = ThreadStore(db)
    assert store.turns(tid)[0].sources[0].sent is None
    cut = turn("/docs/bikes.txt", text, question="Why?", answer="Wear stretches it [1].")
    cut.sources[0].sent = [[4, 40], [52, len(text)]]
    store.add_turn(tid, cut)
    store.close()
    again = ThreadStore(db)
    assert [t.sources[0].sent for t in again.turns(tid)] == [None, [[4, 40], [52, len(text)]]]
    again.close()


def test_clear_says_how_many(tmp_path: Path) -> None:
    store = ThreadStore(tmp_path / "t.sqlite3")
    for q in ("one?", "two?", "three?"):
        store.create(q)
    assert store.clear() == 3 and store.list_threads() == []


def test_a_corrupt_database_is_one_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "threads.sqlite3"
    db.write_bytes(b"this is not a database at all " * 200)
    with pytest.raises(HistoryError, match="damaged"):
        ThreadStore(db).list_threads()


def test_rewrite_prompt_carries_the_previous_turn_and_its_reply_is_used(
    server: FakeOllama,
) -> None:
    server.rewrite_reply = "Why should a road bicycle chain be replaced so often"
    history = [turn("/d/bikes.txt", "x")]
    rewrite = standalone_query("Why?", history, host=server.url, model="llama3.2")
    assert rewrite.method == "model" and rewrite.query == server.rewrite_reply
    [request] = server.rewrites()
    prompt = request.body["messages"][-1]["content"]
    assert FIRST_Q in prompt and "three thousand kilometres" in prompt and "Why?" in prompt
    assert "[1]" not in prompt  # citation numbers belong to their own turn


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "I'm sorry, but I cannot help with that.",
        "The chain should be replaced every three thousand kilometres [1].",
        "Yes. It wears out. Then it damages the cassette.",
    ],
)
def test_a_junk_rewrite_falls_back_to_the_merged_query(server: FakeOllama, junk: str) -> None:
    server.rewrite_reply = junk
    rewrite = standalone_query("Why?", [turn("/d/b.txt", "x")], host=server.url, model="llama3.2")
    assert rewrite.method == "fallback" and rewrite.note
    assert rewrite.query == merge_query("Why?", [turn("/d/b.txt", "x")])
    assert {"chain", "road", "bicycle", "replaced"} <= set(rewrite.query.split())


def test_a_slow_rewrite_falls_back_within_its_time_limit(server: FakeOllama) -> None:
    server.rewrite_reply, server.rewrite_delay = "bicycle chain wear", 30.0
    rewrite = standalone_query(
        "Why?", [turn("/d/b.txt", "x")], host=server.url, model="llama3.2", timeout_s=0.5
    )
    assert rewrite.method == "fallback" and "0.5 s" in rewrite.note
    # Had the limit not held, the server's rewrite would have arrived and been used.
    assert "chain" in rewrite.query and "wear" not in rewrite.query


def test_a_first_turn_searches_as_typed_and_asks_no_model(server: FakeOllama) -> None:
    rewrite = standalone_query("  What is compost?  ", [], host=server.url, model="llama3.2")
    assert (rewrite.query, rewrite.method) == ("What is compost?", "as_typed")
    assert server.chats() == []


def test_answer_prompt_carries_the_last_turns_within_a_budget() -> None:
    history = [(f"question {i} about tomatoes?", f"answer {i} [1]. " * 40) for i in range(10)]
    messages, _ = build_messages("and compost?", [], context_tokens=2048, history=history)
    user = messages[-1]["content"]
    earlier = user[user.index("Earlier in this conversation") : user.index("Question: and")]
    assert "Earlier question: question 9 about tomatoes?" in earlier  # newest kept
    assert "question 0 " not in earlier  # oldest dropped for the budget
    assert "[1]" not in earlier and "answer 9." in earlier  # no citations: they were per turn
    assert len(earlier) // 4 <= 2048 // 4 + 50


def test_a_first_turn_that_cannot_be_written_leaves_no_empty_thread(tmp_path: Path) -> None:
    """The thread and its first turn are one transaction: a write that fails at the turn (a
    kill, a full disk; here a trigger of SQLite's own) keeps neither."""
    import sqlite3

    db = tmp_path / "threads.sqlite3"
    store = ThreadStore(db)
    store.list_threads()  # the tables exist
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TRIGGER fail BEFORE INSERT ON turns BEGIN SELECT RAISE(ABORT, 'disk I/O'); END"
        )
    with pytest.raises((HistoryError, sqlite3.DatabaseError)):
        store.start(FIRST_Q, turn("/docs/bike.txt", "The chain lasts 3,000 km."))
    assert store.list_threads() == []
    store.close()
