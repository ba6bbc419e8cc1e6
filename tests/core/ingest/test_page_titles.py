"""A PDF page's own title joins the heading path of every passage on the page (read from a
real PDF; the title rule itself is tested fast in ``tests/core/ingest/test_context.py``).

A filing's balance sheet is one page whose title ("Consolidated Balance Sheets") is set in
bold at its top; without it, the passages below the first do not say which statement they
are part of, and a question about the balance sheet does not find them.
"""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pymupdf

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
