"""Prompt markup a model writes back is never shown, marked, stored or exported as its answer.

The echoes are those of a real small model (SmolLM2-135M) answering through the app: source
tags on their own lines and inside sentences (the look-alike ``‹source`` of a quoted earlier
answer), a tag's attributes in prose, and the prompt's instruction lines.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from app.core.ask import Asker, AskOptions, AskRequest, Done, Ending, Piece
from app.core.errors import AnswerFailure
from app.core.prompt.answering import INSTRUCTIONS, NO_ANSWER, clean_answer
from app.core.prompt.cleaning import AnswerCleaner
from app.core.threads.export import thread_markdown
from app.core.threads.store import ThreadStore
from tests.fake_ollama import FakeOllama

SEEN = [  # written back by SmolLM2-135M, asked "What licence is curl distributed under?"
    'The source n="1" contains the following:\n<source n="2" file="curl-copyright">\n'
    "This is a permission to use, copy, modify or distribute this software for any purpose.\n"
    'The source n="4" contains the following:\n<source n="5" file="curl-copyright">',
    'The sources n="1" and "2" contain the following: ‹source n="3" file="curl-copyright"> '
    "This is a permission to use, copy or modify this software for any purpose.",
    "Curl is distributed under the MIT licence [1]. "
    "The answer from the sources above only, citing them as [n].",
    "Answer: Tomatoes need six hours of sun [1].\nEarlier question: How much sun?\n"
    "Earlier answer: Six hours.\nQuestion: And water?\nThey need deep watering [2].",
]
MARKUP = ["<source", "‹source", "</source", 'n="', "citing them as", "Earlier answer", "[n]"]
PLAIN = [  # answers the cleaning must leave exactly as written
    "Curl is distributed under the MIT licence [1].",
    NO_ANSWER,
    "Use array[n] to index it, as page 3 of the manual says [2].\n\n- one\n- two",
    "Answer these three questions first: what, why and how [1].",
    "The source of the Nile is Lake Victoria [1]. Sources differ on its length [2].",
    "If the river floods, the fields are watered [1].",
]


@pytest.mark.parametrize("text", SEEN)
def test_markup_and_instruction_lines_are_taken_out(text: str) -> None:
    cleaned = clean_answer(text)
    assert cleaned and not any(m.lower() in cleaned.lower() for m in MARKUP)
    assert "permission to use" in cleaned or "[1]" in cleaned  # the answer's own words stay
    assert cleaned == cleaned.strip() and "\n\n\n" not in cleaned


def test_what_is_left_reads_as_written() -> None:
    assert clean_answer(SEEN[2]) == "Curl is distributed under the MIT licence [1]."
    assert clean_answer(SEEN[3]) == (
        "Tomatoes need six hours of sun [1].\nThey need deep watering [2]."
    )


@pytest.mark.parametrize("text", PLAIN)
def test_an_answer_without_markup_is_left_as_it_is(text: str) -> None:
    assert clean_answer(text) == text


@pytest.mark.parametrize("text", SEEN + PLAIN)
def test_streamed_pieces_add_up_to_the_cleaned_answer_however_the_text_is_cut(text: str) -> None:
    """What a window shows while the answer streams is what is stored once it is done."""
    rng = random.Random(len(text))
    for _ in range(200):
        cuts = sorted(rng.sample(range(1, len(text)), rng.randint(1, min(20, len(text) - 1))))
        parts = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        cleaner = AnswerCleaner(INSTRUCTIONS)
        assert "".join(cleaner.feed(p) for p in parts) + cleaner.finish() == clean_answer(text)


def test_an_ordinary_answer_streams_word_by_word() -> None:
    cleaner = AnswerCleaner(INSTRUCTIONS)
    out = [cleaner.feed(w) for w in ["Curl ", "is ", "distributed ", "under ", "MIT."]]
    assert out[:3] == ["Curl", " is", " distributed"]  # a blank goes out with the next word


@pytest.fixture
def asker(tmp_path: Path, make_engine) -> Asker:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "curl-copyright").write_text(
        "COPYRIGHT AND PERMISSION NOTICE. Permission to use, copy, modify, and distribute "
        "this software for any purpose with or without fee is hereby granted.",
        encoding="utf-8",
    )
    engine = make_engine()
    engine.index([str(docs)])
    store = ThreadStore(tmp_path / "threads.sqlite3")
    return Asker(lambda q, k, scope: engine.search(q, k, scope=scope), store, AskOptions())


def test_no_shown_stored_or_exported_answer_holds_the_prompt(asker: Asker) -> None:
    with FakeOllama(reply=SEEN[0], token_delay=0.0) as server:
        asker.options = AskOptions(host=server.url, model="llama3.2")
        events = list(asker.ask(AskRequest("What licence is curl distributed under?")))
    shown = "".join(e.text for e in events if isinstance(e, Piece))
    outcome = events[-1].outcome  # type: ignore[union-attr]
    assert outcome.answer is not None and shown == outcome.answer.text
    assert not any(m in shown for m in MARKUP) and "permission to use" in shown
    assert all("source n=" not in m.text for m in outcome.answer.sentences)  # no claim of it
    assert asker.store is not None and outcome.thread_id is not None
    [turn] = asker.store.turns(outcome.thread_id)
    assert turn.answer == shown
    exported = thread_markdown("curl", [turn])
    assert "source n=" not in exported and "&lt;source" not in exported


def test_an_answer_that_is_only_the_prompt_written_back_says_so(asker: Asker) -> None:
    echo = "Answer from the sources above only, citing them as [n]. If they do not contain the "
    echo += f'answer, say "{NO_ANSWER}"'
    with FakeOllama(reply=echo) as server:
        asker.options = AskOptions(host=server.url, model="llama3.2")
        done = list(asker.ask(AskRequest("What licence is curl distributed under?")))[-1]
    assert isinstance(done, Done)
    o = done.outcome
    assert o.ending is Ending.FAILED and o.answer is not None and o.answer.text == ""
    assert o.answer.error_kind is AnswerFailure.ECHOED and "instructions" in (o.error or "")
    assert o.thread_id is None  # nothing was kept


def test_an_answer_stored_before_the_cleaning_reads_back_clean(tmp_path: Path) -> None:
    """A history kept from before shows, exports and sends on no markup, and its sentence
    marks index the cleaned text."""
    from app.core.threads.store import StoredSource, Turn

    text = "Curl is under the MIT licence."
    source = StoredSource(1, "/docs/curl-copyright", None, 0, len(text), text, "h")
    raw = 'The source n="1" contains the following:\n<source n="1" file="curl-copyright">\n'
    raw += "Curl is under the MIT licence [1]."
    store = ThreadStore(tmp_path / "threads.sqlite3")
    tid, _ = store.start("curl?", Turn("curl?", "curl?", raw, [source], sentences=[]))
    [turn] = store.turns(tid)
    assert not any(m in turn.answer for m in MARKUP)
    assert turn.answer.endswith("Curl is under the MIT licence [1].")
    for mark in turn.sentences:
        assert turn.answer[mark["start"] : mark["end"]] == mark["text"]
    assert "source n=" not in thread_markdown("curl?", [turn])
    store.close()
