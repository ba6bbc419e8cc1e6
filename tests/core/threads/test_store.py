"""The conversation store, the follow-up rewrite and the Markdown export, on real SQLite and the
stand-in Ollama server."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from app.core.errors import HistoryError
from app.core.prompt.answering import build_messages
from app.core.text import text_hash
from app.core.threads.export import thread_markdown
from app.core.threads.followup import merge_query, standalone_query, validate
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


def test_validate_keeps_a_query_and_strips_its_label() -> None:
    assert validate('Standalone query: "road bicycle chain wear"', "why?") == (
        "road bicycle chain wear"
    )
    assert validate("According to the sources, 3000 km.", "why?") is None


def test_answer_prompt_carries_the_last_turns_within_a_budget() -> None:
    history = [(f"question {i} about tomatoes?", f"answer {i} [1]. " * 40) for i in range(10)]
    messages, _ = build_messages("and compost?", [], context_tokens=2048, history=history)
    user = messages[-1]["content"]
    earlier = user[user.index("Earlier in this conversation") : user.index("Question: and")]
    assert "Earlier question: question 9 about tomatoes?" in earlier  # newest kept
    assert "question 0 " not in earlier  # oldest dropped for the budget
    assert "[1]" not in earlier and "answer 9." in earlier  # no citations: they were per turn
    assert len(earlier) // 4 <= 2048 // 4 + 50


def _footnotes(markdown: str) -> tuple[list[str], dict[str, str]]:
    refs = re.findall(r"\[\^(\d+)\](?!:)", markdown)
    defs = dict(re.findall(r"^\[\^(\d+)\]: (.*)$", markdown, re.MULTILINE))
    return refs, defs


def test_export_has_real_footnotes_and_marks_unsupported_sentences(tmp_path: Path) -> None:
    doc = tmp_path / "bikes.txt"
    text = "The chain on a road bicycle should be replaced every three thousand kilometres."
    doc.write_text(text)
    one = turn(str(doc), text)
    one.n = 1
    two = turn(str(doc), text, question="Why?", answer="It stretches [1]. Cats like it [1].")
    two.n, two.search_query = 2, "Why? chain road bicycle replaced"
    two.sentences[0]["end"] = len("It stretches [1].")
    two.sentences.append(
        {"text": " Cats like it [1].", "start": 17, "end": 35, "supported": False, "kind": "claim"}
    )
    md = thread_markdown(FIRST_Q, [one, two], thread_id="abcd1234")
    MarkdownIt("commonmark").parse(md)  # it parses
    refs, defs = _footnotes(md)
    assert refs and set(refs) == set(defs)  # every reference has its definition, and back
    for definition in defs.values():
        quote = re.search(r"“(.*)”", definition)
        assert quote and quote.group(1).rstrip("…") in text
        assert f"file://{doc}" in definition
    assert "It stretches[^2]. Cats like it[^2]. ⚠" in md
    assert "*Searched for: Why? chain road bicycle replaced*" in md


def test_an_exported_sentence_that_cited_the_wrong_source_points_at_the_right_one(
    tmp_path: Path,
) -> None:
    """The model wrote [2] (a lease) for a fact the checks found in [1] (the bike notes): the
    footnote must quote the bike notes, not the lease."""
    bikes, lease = tmp_path / "bikes.txt", tmp_path / "lease.txt"
    bikes.write_text(text := "The front tyre takes 80 psi and the rear 85 psi.")
    lease.write_text(other := "The lease runs until 30 June and renews for a year.")
    t = turn(str(bikes), text, answer="The front tyre takes 80 psi [1].")
    t.answer = t.answer.replace("[1]", "[2]")
    t.sources.append(StoredSource(2, str(lease), None, 0, len(other), other, text_hash(other)))
    t.sentences[0] |= {"text": t.answer, "sources": [2], "reason": "found in [1], not in [2]"}
    t.n = 1
    md = thread_markdown("tyre pressure?", [t])
    _, defs = _footnotes(md)
    assert "The front tyre takes 80 psi[^1]." in md
    assert len(defs) == 1 and "bikes.txt" in defs["1"] and "lease.txt" not in defs["1"]
    # the lease was read all the same: listed as read, not as the sentence's footnote
    assert "*Also read by the model, not cited:*\n\n- \\[2\\] [" in md and "30 June" in md


def test_an_export_of_an_answer_without_citations_lists_every_source_read(
    tmp_path: Path,
) -> None:
    """An answer with no [n] exported with no sources at all, though its verdict said
    "closest: [2]" and the model read eight passages."""
    texts = [f"Passage {i} says the warranty lasts {i} years." for i in range(1, 9)]
    t = turn(str(tmp_path / "w1.txt"), texts[0], answer="The warranty is long [1].")
    t.answer, t.sentences, t.n = "The warranty is long.", [], 1
    t.verdict = {"level": "unsupported", "reason": "No sentence cites a passage; closest: [2]."}
    t.sources += [
        StoredSource(i, str(tmp_path / f"w{i}.txt"), i, 0, len(x), x, text_hash(x))
        for i, x in enumerate(texts[1:], start=2)
    ]
    t.sources[2].sent = [[0, 9]]  # the model read only the start of [3]
    md = thread_markdown("warranty?", [t])
    MarkdownIt("commonmark").parse(md)
    assert "*Read by the model (the answer cites none of them):*" in md
    listed = re.findall(r"^- \\\[(\d+)\\\] \[.*\]\(file://[^)]*\)(.*)$", md, re.MULTILINE)
    assert [int(n) for n, _ in listed] == list(range(1, 9))
    for (n, rest), text in zip(listed, texts, strict=True):
        if n == "3":
            assert "“Passage 3”" in rest and "read in part" in rest
        else:
            assert f"“{text}”" in rest and (n == "1" or f", p. {n}" in rest)


def test_export_of_a_non_utf8_path_is_legible(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9-notes.txt")  # Latin-1 bytes: not valid UTF-8
    text = "Espresso is brewed at nine bars of pressure."
    store = ThreadStore(tmp_path / "t.sqlite3")
    tid = store.create("espresso?")
    store.add_turn(tid, turn(f"/docs/{name}", text, answer="Nine bars [1]."))
    [stored] = store.turns(tid)
    assert stored.sources[0].path == f"/docs/{name}"  # the same bytes come back
    md = thread_markdown("espresso?", [stored])
    md.encode("utf-8")  # no lone surrogates
    assert "caf\ufffd\\-notes.txt" in md or "caf\ufffd-notes.txt" in md
    assert "file:///docs/caf%E9-notes.txt" in md
    assert "removed since this answer" in md


def test_a_locked_database_does_not_stop_an_answer(tmp_path: Path) -> None:
    import sqlite3

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


@pytest.mark.parametrize(
    ("question", "leans"),
    [
        ("Why?", True),
        ("Why does it matter?", True),
        ("And in 2022?", True),
        ("What about the rear derailleur?", True),
        ("Who painted the ceiling of the Sistine Chapel?", False),
    ],
)
def test_the_merge_adds_earlier_terms_only_to_a_follow_up_that_leans_on_them(
    question: str, leans: bool
) -> None:
    merged = merge_query(question, [turn("/d/b.txt", "x")])
    assert (merged != question) == leans
    if leans:
        assert {"chain", "bicycle"} <= set(merged.split())


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
