"""What a passage is part of: its document's title and heading path, the one line of context
embedded before it (never the file's name, so a rename re-embeds nothing)."""

from __future__ import annotations

import pytest

from app.core.ingest.context import (
    MAX_CONTEXT_CHARS,
    TitleLine,
    clean_title,
    embedding_text,
    file_label,
    html_title,
    markdown_title,
    outline_sections,
    page_title,
    passage_context,
    with_page_title,
)


@pytest.mark.parametrize(
    "useless",
    [
        "",
        None,
        "Untitled",
        "document3",
        "Microsoft Word - report.docx",
        "12/03/2021",
        "a.pdf",
        "ab",
    ],
)
def test_a_metadata_title_that_says_nothing_is_none(useless: str | None) -> None:
    assert clean_title(useless) is None


def test_a_title_worth_showing_is_kept_on_one_line() -> None:
    assert clean_title("  The   Annual\nReport ") == "The Annual Report"
    assert len(clean_title("Long " * 100) or "") == MAX_CONTEXT_CHARS


def test_a_documents_own_title_is_found_in_its_content() -> None:
    assert markdown_title("intro line\n# Garden notes #\n## Soil") == "Garden notes"
    assert markdown_title("## Only a sub-heading") is None
    assert html_title("<html><title>Caf&eacute; menu</title>") == "Café menu"
    assert html_title("<p>no title</p>") is None


def test_each_page_is_under_the_outline_entries_open_on_it() -> None:
    toc = [[1, "Part I", 1], [2, "Item 1", 2], [2, "Item 2", 4], [1, "Part II", 5]]
    assert outline_sections(toc, 6) == [
        "Part I",
        "Part I › Item 1",
        "Part I › Item 1",  # an entry stays open until the next one of its level
        "Part I › Item 2",
        "Part II",
        "Part II",
    ]
    assert outline_sections([[1, "Nowhere", 0], [1, "Body", 3]], 4) == [None, None, "Body", "Body"]
    assert outline_sections([], 2) == [None, None]


def test_the_context_line_is_title_then_headings_without_repeating_the_title() -> None:
    assert passage_context("3M 10-K", "Item 8 › Cash flows") == "3M 10-K › Item 8 › Cash flows"
    assert passage_context("3M 10-K", "3M 10-K › Item 8") == "3M 10-K › Item 8"
    assert passage_context(None, "Item 8") == "Item 8"
    assert passage_context(None, None) == ""
    assert len(passage_context("x" * 300, "y")) == MAX_CONTEXT_CHARS


def test_what_the_model_embeds_is_the_context_line_then_the_exact_passage() -> None:
    assert embedding_text("3M 10-K › Cash flows", "Capex was 1,577.") == (
        "3M 10-K › Cash flows\nCapex was 1,577."
    )
    assert embedding_text("", "Capex was 1,577.") == "Capex was 1,577."


def test_a_file_name_becomes_words_for_the_lexical_index() -> None:
    assert file_label("/reports/3M_2018_10K.pdf") == "3M 2018 10K"
    assert file_label("/notes/delete-lines.in.vim.md") == "delete lines in vim"


def line(top: float, text: str, size: float = 9.0, bold: bool = False) -> TitleLine:
    return TitleLine(top=top, left=72, text=text, size=size, bold=bold, chars=len(text))


BODY = [line(200 + 12 * i, "Body text of the page, set in the usual size, " * 2) for i in range(8)]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # a company line and the statement, both bold, above a smaller bold table head
        (
            [
                line(40, "Acme Corp and Subsidiaries", bold=True),
                line(52, "Consolidated Statements of Cash Flows", bold=True),
                line(70, "(In millions)", bold=True),
                line(80, "2022", size=8, bold=True),
                line(80, "Operating activities", size=8, bold=True),
            ],
            "Acme Corp and Subsidiaries › Consolidated Statements of Cash Flows",
        ),
        # a larger line is a title without being bold; a long heading wraps onto a second line
        (
            [
                line(40, "ITEM 5. MARKET FOR REGISTRANT'S COMMON EQUITY, RELATED", size=11),
                line(52, "STOCKHOLDER MATTERS", size=11),
            ],
            "ITEM 5. MARKET FOR REGISTRANT'S COMMON EQUITY, RELATED STOCKHOLDER MATTERS",
        ),
        # a page that starts with body text has no title, whatever is bold further down
        (
            [
                line(40, "continued from the page before, the company " * 2),
                line(60, "Note 4", bold=True),
            ],
            None,
        ),
        # a title below the top 40% of the page is a section heading, not the page's title
        ([line(500, "Note 4 - Leases", bold=True)], None),
    ],
)
def test_page_title(lines: list[TitleLine], expected: str | None) -> None:
    assert page_title([*lines, *BODY], page_height=792) == expected


def test_an_outline_path_is_followed_only_by_what_the_page_title_adds() -> None:
    outline = "Part II › Item 8. Financial Statements"
    assert with_page_title(outline, "Item 8. Financial Statements › Balance Sheets") == (
        "Part II › Item 8. Financial Statements › Balance Sheets"
    )
    assert with_page_title(outline, None) == outline
    assert with_page_title(None, "Balance Sheets") == "Balance Sheets"
