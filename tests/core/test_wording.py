"""What the front ends say about the same things, worded once: verdicts, sources, excerpts.

The command line and the window both print these strings, so each is asserted as a person
reads it.
"""

from __future__ import annotations

import os

import pytest

from app.core.verdict.judge import Level, Verdict
from app.core.wording import (
    LEVEL_WORDS,
    SNIPPET,
    excerpt,
    gist,
    level_words,
    read_in_part,
    source_where,
    verdict_line,
)


def test_every_level_has_its_words_and_only_unsupported_shouts() -> None:
    assert set(LEVEL_WORDS) == set(Level)
    assert level_words(Level.SUPPORTED) == "Supported"
    assert level_words(Level.UNSUPPORTED).isupper()
    assert len({level_words(level) for level in Level}) == len(Level)


def test_the_verdict_line_carries_the_reason_and_the_retrieval_evidence_when_known() -> None:
    verdict = Verdict(Level.PARTLY, "1 of 3 sentences is not backed by the passages.")
    assert verdict_line(verdict) == (
        "Partly supported: 1 of 3 sentences is not backed by the passages."
    )
    line = verdict_line(verdict, strong=False, score=0.2345)
    assert line.startswith("Partly supported (retrieval weak, 0.23): 1 of 3")
    assert "retrieval strong, 0.91" in verdict_line(verdict, strong=True, score=0.909)
    assert "retrieval" not in verdict_line(verdict, strong=True)  # half the evidence: none


def test_a_source_is_its_file_and_page() -> None:
    assert source_where("/notes/lease.pdf", 3) == "/notes/lease.pdf p.3"
    assert source_where("/notes/lease.txt", None) == "/notes/lease.txt"
    shown = source_where(os.fsdecode(b"/notes/caf\xe9.txt"), 2)
    assert shown == "/notes/caf\ufffd.txt p.2"
    shown.encode("utf-8")


def test_what_the_model_read_of_a_source_is_said_only_when_not_all_of_it() -> None:
    assert read_in_part(None) == ""
    assert read_in_part([[0, 40]]) == " (read in part)"
    assert read_in_part([[0, 40]], truncated=True) == " (cut to fit the model's context)"


def test_search_text_shows_the_sentence_that_matches() -> None:
    """A long passage is shown from the sentence holding the query's words, not cut off
    before it."""
    passage = (
        "Intro sentence here. " * 30 + "The chain is replaced every 3,000 km. " + "More. " * 80
    )
    shown = excerpt(passage, "how often is the chain replaced")
    assert shown.startswith("…The chain is replaced every 3,000 km.") and shown.endswith("…")
    assert len(shown) <= SNIPPET + 2
    tail = "Intro sentence here. " * 30 + "The chain is replaced."
    assert excerpt(tail, "chain").endswith("The chain is replaced.")
    assert excerpt("Short. With a chain.", "chain") == "Short. With a chain."


@pytest.mark.parametrize(
    "passage",
    [  # one long sentence with the word near its end: a file list, a run-on paragraph
        "Files: "
        + " ".join(f"packages/vms/file{i}.com" for i in range(40))
        + " Copyright: 2019, Björn Stenberg <bjorn@haxx.se> License: curl",
        "The manual "
        + "describes many options that change how it reads its input, " * 6
        + "and Stenberg wrote the option that disables commands that write files.",
    ],
)
def test_search_text_shows_the_word_searched_for(passage: str) -> None:
    """`search Stenberg` showed the start of a long sentence that held the word only at its
    end: the snippet did not show what was searched for."""
    shown = excerpt(passage, "Stenberg")
    assert "Stenberg" in shown and shown.startswith("…") and len(shown) <= 302


def test_an_excerpt_is_one_line_cut_at_whole_words() -> None:
    assert excerpt("  a short\n\npassage   here ", "anything") == "a short passage here"
    words = " ".join(f"word{i}" for i in range(200))
    shown = excerpt(words, "nothing matches", width=60)
    assert shown.endswith("…") and "\n" not in shown
    assert all(w.startswith("word") for w in shown.rstrip("…").split())  # no word cut in two
    assert len(shown) <= 61


def test_an_excerpt_from_a_heading_led_passage_skips_to_the_answer() -> None:
    passage = (
        "Table 4. Revenue by region.\n\nNorth 12 South 14.\n\n"
        + "Filler words about nothing in particular here. " * 5
        + "The chain on a road bicycle should be replaced every three thousand kilometres. "
        + "More filler text follows on and on. " * 8
    )
    shown = excerpt(passage, "When should a bicycle chain be replaced?", width=120)
    assert shown.startswith("…The chain on a road bicycle")
    assert "Table 4" not in shown


def test_a_sources_row_shows_the_first_words_of_its_passage_in_any_script() -> None:
    """A Japanese passage has no spaces: its row shows its first thirty words (pairs of
    characters), not its whole first paragraph; an English one its first thirty words."""
    japanese = "この図書館の地下室には、明治時代の古い地図や写真が大切に保管されています。" * 5
    assert japanese.startswith(gist(japanese)) and 20 < len(gist(japanese)) < 60
    english = " ".join(f"word{i}" for i in range(50))
    assert gist(english) == " ".join(english.split()[:30])
