"""The text primitives every stage shares: hashes, words, stems, citations, sentences, listings.

Each one is a rule two stages must agree on (the index and the question, the answer and its
footnotes), so a change here shows up as search, support and the verdict disagreeing.
"""

from __future__ import annotations

import json
import os

import pytest

from app.core.text import (
    citations,
    counted,
    display_path,
    fold,
    is_toc_like,
    is_toc_line,
    link_words,
    query_terms,
    sentence_spans,
    stem,
    strip_citations,
    text_hash,
    toc_lines,
    well_formed,
)


def test_the_hash_keys_the_exact_text() -> None:
    a = text_hash("The chain lasts 3,000 km.")
    assert a == text_hash("The chain lasts 3,000 km.")  # the same passage: the same vector key
    assert a != text_hash("The chain lasts 3,000 km")  # one character: another passage
    assert len(a) == 32 and int(a, 16) >= 0
    assert text_hash("café") != text_hash("cafe")


def test_a_path_that_is_not_utf8_is_shown_legibly_and_can_be_encoded() -> None:
    raw = os.fsdecode(b"/docs/caf\xe9.txt")  # as the OS hands a Latin-1 name to Python
    shown = display_path(raw)
    assert shown == "/docs/caf\ufffd.txt"
    shown.encode("utf-8")  # a prompt, a JSON body, a Qt string take it
    json.dumps(shown)
    assert display_path("/docs/notes.md") == "/docs/notes.md"


def test_stray_bytes_of_an_argument_read_as_windows_1252() -> None:
    assert well_formed(os.fsdecode(b"caf\xe9 au lait")) == "café au lait"
    assert well_formed("a\ud800b") == "a\ufffdb"  # a surrogate that is no escaped byte
    assert well_formed("plain text") == "plain text"
    well_formed(os.fsdecode(b"\x81\x8d\xff")).encode("utf-8")  # never a lone surrogate left


@pytest.mark.parametrize(
    ("n", "words", "expected"),
    [
        (1, ("passage",), "1 passage"),
        (2, ("passage",), "2 passages"),
        (0, ("file",), "0 files"),
        (1204, ("file",), "1,204 files"),
        (3, ("entry", "entries"), "3 entries"),
    ],
)
def test_a_count_agrees_with_its_noun(n: int, words: tuple[str, ...], expected: str) -> None:
    assert counted(n, *words) == expected


def test_query_terms_keep_content_words_in_order_once() -> None:
    terms = query_terms("What is the boiling point of the Boiling liquid at 5 bar? x")
    assert terms == ["boiling", "point", "liquid", "5", "bar"]  # no stopwords, "x", repeats


def test_a_word_is_folded_and_stemmed_as_the_full_text_index_reads_it() -> None:
    assert fold("Café Ñandú") == "cafe nandu"
    assert stem("running") == stem("runs") == stem("Run")
    assert stem("Café") == stem("cafe")
    assert stem("2018") == "2018"  # figures stay whole
    assert stem("replaced") == stem("replacement") == stem("replace")


def test_citations_in_every_written_form_in_order_without_repeats() -> None:
    text = "See [1], [2, 3] and [4-6]; also [source 9], [Sources 7 and 8] and [1] again."
    assert citations(text) == [1, 2, 3, 4, 5, 6, 9, 7, 8]
    assert citations("Founded in [1990-2020] or so.") == []  # years are no source numbers
    assert citations("No markers here.") == []


def test_stripping_citations_keeps_every_offset() -> None:
    text = "Paris is the capital [1]. It is large [2, 3]."
    plain = strip_citations(text)
    assert len(plain) == len(text)
    assert citations(plain) == []
    assert plain.index("It is large") == text.index("It is large")
    assert "[" not in plain


def _sentences(text: str, **kw: bool) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text, **kw)]


def test_sentences_do_not_break_at_decimals_abbreviations_or_initials() -> None:
    text = (
        "Prices rose 3.5% in 2021, e.g. for rent. Dr. Smith agreed [1]. J. Doe did not. "
        "The U.N. Secretary General spoke."
    )
    assert _sentences(text) == [
        "Prices rose 3.5% in 2021, e.g. for rent.",
        "Dr. Smith agreed [1].",  # the citation stays with its sentence
        "J. Doe did not.",
        "The U.N. Secretary General spoke.",  # dotted initials, of any length
    ]


def test_a_full_stop_inside_inline_code_ends_no_sentence() -> None:
    text = (
        'Bound the `git diff --name-only ... -- "*.md"` range with them [1]. Then run it. '
        "An unclosed ` backtick. Does not hold a sentence open."
    )
    assert _sentences(text) == [
        'Bound the `git diff --name-only ... -- "*.md"` range with them [1].',
        "Then run it.",
        "An unclosed ` backtick.",  # no closing backtick on its line: no code span
        "Does not hold a sentence open.",
    ]


def test_a_numbering_abbreviation_is_one_only_before_a_figure() -> None:
    """An answer's "No." is a sentence: "Using" after it is no name the passage must hold."""
    text = "No. Using the 2022 statement, the margin fell. See No. 5 and Fig. 3 on pp. 12."
    assert _sentences(text) == [
        "No.",
        "Using the 2022 statement, the margin fell.",
        "See No. 5 and Fig. 3 on pp. 12.",
    ]


def test_spans_are_offsets_into_the_text_trimmed_of_list_markers() -> None:
    text = "Steps to take:\n\n- Loosen the bolt\n* Remove the wheel\n1) Fit the tyre"
    spans = sentence_spans(text)
    assert [text[s:e] for s, e in spans] == [
        "Steps to take:",
        "Loosen the bolt",
        "Remove the wheel",
        "Fit the tyre",
    ]
    assert all(text[s:e] == text[s:e].strip() for s, e in spans)


def test_a_numbered_list_marker_with_a_full_stop_is_trimmed_like_the_others() -> None:
    text = "Steps:\n1. Fit the tyre\n2. Pump it up"
    assert _sentences(text) == _sentences(text.replace("1.", "1)").replace("2.", "2)"))


def test_passages_keep_wrapped_lines_together_and_answers_break_at_every_line() -> None:
    text = "The first line\nwraps into the second. Next one."
    assert _sentences(text) == ["The first line\nwraps into the second.", "Next one."]
    assert _sentences(text, lines=True) == [
        "The first line",
        "wraps into the second.",
        "Next one.",
    ]


def test_text_without_words_has_no_sentences() -> None:
    assert sentence_spans("") == []
    assert sentence_spans(" ... \n\n --- ") == []


CONTENTS = "Contents\n1 Introduction ........ 1\n2 Methods ........ 5\n3 Results ........ 12\n"
BOOK_INDEX = "apples, 12, 45\nbananas 3-7, 19\ncherries, 101; 140\n"
NOTES_README = "- [Undo a commit](git/undo.md)\n- [Delete lines](vim/lines.md)\n- [[Compost]]\n"
PROSE = "The river rose in the spring of 1921.\nThe town built a wall.\nIt held for ten years."


@pytest.mark.parametrize("listing", [CONTENTS, BOOK_INDEX, NOTES_README])
def test_pages_that_list_rather_than_say_are_told_from_prose(listing: str) -> None:
    assert is_toc_like(listing)
    assert not is_toc_like(PROSE)


def test_a_tables_figures_are_no_page_numbers() -> None:
    assert is_toc_line("12 14 17 21 30")  # a run of page numbers
    assert not is_toc_line("Revenue 1,204 2,305 3,400 4,500")  # thousands separators
    assert not is_toc_line("2018 2019 2020 2021")  # years
    assert not is_toc_line("")


def test_contents_lines_are_found_where_they_are() -> None:
    lines = toc_lines(CONTENTS)
    assert [CONTENTS[s:e] for s, e in lines] == [
        "1 Introduction ........ 1",
        "2 Methods ........ 5",
        "3 Results ........ 12",
    ]
    assert toc_lines(PROSE) == []


def test_a_title_with_a_page_number_counts_only_inside_a_listing() -> None:
    listing = "2.1 Reading data 15\n2.2 Writing data 19\n2.3 Spreadsheets 22\n"
    assert is_toc_like(listing) and len(toc_lines(listing)) == 3
    assert not is_toc_like("2.1 Reading data 15")  # alone it may be a sentence
    mixed = "The method reads data in chapter 15\n" + PROSE
    assert toc_lines(mixed) == []


def test_a_contents_page_extracted_as_one_long_line_is_a_listing() -> None:
    line = "1 Introduction . . . . 1 2 Methods . . . . 5 3 Results . . . . 12"
    assert is_toc_like(line)


def test_a_markdown_link_is_read_as_its_words_even_when_they_wrap() -> None:
    """A link's address (figures, paths) is not text a sentence states; its words are, also
    when a note wraps them across lines."""
    text = "See [a monorepo\nreferencing it](https://github.com/x/y/blob/b10dece/p.json#L201)."
    assert link_words(text) == "See a monorepo\nreferencing it."
    assert link_words("[Devise 4.2.0+](https://x.io/CHANGELOG.md#420)") == "Devise 4.2.0+"
    assert link_words("a [1] and [2] (see below)") == "a [1] and [2] (see below)"
