"""A PDF page's own title joins the heading path of every passage on the page.

A filing's balance sheet is one page whose title ("Consolidated Balance Sheets") is set in
bold at its top; without it, the passages below the first do not say which statement they
are part of, and a question about the balance sheet does not find them.
"""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pymupdf
import pytest

from app.core.ingest.context import TitleLine, page_title, with_page_title
from app.core.ingest.loaders import load_document
from tests.helpers import paragraph

TITLE = "Consolidated Balance Sheets"


def statement_pdf(path: Path) -> Path:
    """Page 1: a running header, a bold title, then prose in several passages; page 2: prose
    only; page 3: a paragraph set in bold, which is not a title."""
    rng = random.Random(5)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 30), "Table of Contents", fontname="helv", fontsize=8)
    page.insert_text((72, 60), TITLE, fontname="hebo", fontsize=11)
    body = textwrap.wrap(" ".join(paragraph(rng, 60) for _ in range(7)), 95)
    for i, line in enumerate(body):
        page.insert_text((72, 90 + 12 * i), line, fontname="helv", fontsize=9)
    page = doc.new_page()
    for i, line in enumerate(textwrap.wrap(paragraph(rng, 80), 95)):
        page.insert_text((72, 60 + 12 * i), line, fontname="helv", fontsize=9)
    page = doc.new_page()
    for i, line in enumerate(textwrap.wrap(paragraph(rng, 90), 95)):
        page.insert_text((72, 60 + 12 * i), line, fontname="hebo", fontsize=9)
    doc.save(path)
    doc.close()
    return path


def test_every_passage_of_a_statement_page_says_which_statement_it_is(make_engine, tmp_path):
    docs = tmp_path / "filings"
    docs.mkdir()
    pdf = statement_pdf(docs / "acme.pdf")
    loaded = load_document(pdf)
    assert [p.section for p in loaded.pages] == [TITLE, None, None]
    # the running head above the title is page furniture, not passage text
    assert "Table of Contents" not in loaded.pages[0].text
    assert loaded.pages[0].text.startswith("Consolidated Balance Sheets")

    engine = make_engine()
    engine.index([str(docs)])
    rows = [r for r in engine.manifest.chunks_of(str(pdf)) if r.page == 1]
    assert len(rows) >= 3
    last = rows[-1]
    assert TITLE not in last.text and last.context == TITLE  # it is told, not shown
    # Asked for by the statement's name, a passage that never says it is found, titled.
    hits = engine.search("balance sheets", k=10, mode="lexical").hits
    assert last.start in [h.start for h in hits if h.page == 1]
    assert all(h.heading == TITLE for h in hits if h.page == 1)
    assert not [h for h in hits if h.page != 1]


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
