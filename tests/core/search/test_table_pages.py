"""Search that reads a table: within the filing that ranks highest, its pages are ranked
again against the question, and the row that names the line item under the period asked
about comes before prose that repeats the question's words.

The filing written here has pages of commentary that say "inventories", "2019" and "balance
sheet" over and over, and one statement page whose row "Inventories | 4,310 | 3,726" sits
under the heads "2019 | 2018": the row is what answers "FY2019 inventories".
"""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pymupdf

from app.core.index.records import ChunkRow
from app.core.search import pages
from app.core.search.retrieval import page_reader
from app.core.text import is_toc_like
from tests.core.ingest.test_tables import statement_pdf
from tests.helpers import paragraph

QUESTION = "What were Acme's FY2019 inventories, as shown in the balance sheet?"


def filing(path: Path) -> Path:
    """Five pages of prose, two of them a commentary that repeats the question's words, then
    the statement."""
    rng = random.Random(3)
    statement_pdf(path.with_name("statement.pdf"))
    doc = pymupdf.open()
    for n in range(5):
        page = doc.new_page()
        words = paragraph(rng, 120)
        if n in (2, 3):
            words = (
                f"Inventories at Acme rose in 2019. The balance sheet of 2019 shows inventories "
                f"and the inventories of 2019 are discussed on this page, number {n}. "
                + paragraph(rng, 60)
            )
        for i, line in enumerate(textwrap.wrap(words, 95)):
            page.insert_text((72, 72 + 12 * i), line, fontname="helv", fontsize=9)
    with pymupdf.open(path.with_name("statement.pdf")) as statement:
        doc.insert_pdf(statement)
    path.with_name("statement.pdf").unlink()
    doc.save(path)
    doc.close()
    return path


def test_the_row_with_the_line_item_and_the_period_ranks_first(make_engine, tmp_path):
    docs = tmp_path / "filings"
    docs.mkdir()
    pdf = filing(docs / "ACME_2019_10K.pdf")
    engine = make_engine()
    engine.index([str(docs)])

    hits = engine.search(QUESTION, k=5).hits
    assert hits[0].page == 6  # the statement, not the commentary
    assert "Inventories | 4,310 | 3,726" in hits[0].text
    assert hits[0].path == str(pdf)

    # without the pages read again, the commentary that repeats the words leads
    retriever = engine.retriever
    qvec = engine.embedder().encode([QUESTION])[0]
    from app.core.search.retrieval import candidates

    found = candidates(engine.manifest, engine.store(), qvec, QUESTION, 50)
    assert found.hits(5)[0].page != 6
    reader = page_reader(engine.manifest, engine.store(), QUESTION, qvec)
    assert found.ranked(5, "hybrid", None, reader)[0].page == 6
    assert retriever.candidates >= 5


def test_a_pasted_sentence_keeps_its_own_passage_first(make_engine, tmp_path):
    """A query that a passage holds word for word is not re-ranked: its passage stays first."""
    docs = tmp_path / "filings"
    docs.mkdir()
    filing(docs / "ACME_2019_10K.pdf")
    engine = make_engine()
    engine.index([str(docs)])
    sentence = "The balance sheet of 2019 shows inventories and the inventories of 2019 are"
    sentence += " discussed on this page, number 3."
    hits = engine.search(sentence, k=5).hits
    assert hits[0].page == 4


def titled(heading: str) -> list[ChunkRow]:
    """A page's one passage, a row of figures under ``heading``."""
    text = "Net sales | 65,398 | 59,812"
    return [ChunkRow(1, "c", "/f.pdf", 67, 0, len(text), "h", heading, text)]


def test_named_statements_and_line_item_words() -> None:
    cash = pages.named_statements("What is the FY2018 capital expenditure of 3M?")
    assert cash and cash[0].search("Consolidated Statements of Cash Flows")
    balance = pages.named_statements("Considering the balance sheet, what is the quick ratio?")
    assert any(p.search("Consolidated Balance Sheets") for p in balance)
    assert not pages.named_statements("How do I undo the last git commit?")
    # a segment's margin is in the segment tables, not in the consolidated statement of income
    assert pages.named_statements("Which segment had the highest operating margin in 2020?") == []
    named = pages.named_statements("From the income statement, which segment grew fastest?")
    assert len(named) == 1 and named[0].search("Consolidated Statements of Income")
    # the statement of comprehensive income begins at net income: it is not the one asked for
    margin = pages.named_statements("What was the FY2020 operating margin?")
    title = "Lockheed Martin Corporation › Consolidated Statements of Comprehensive Income"
    assert not any(p.search(t) for t in pages.statement_titles(titled(title)) for p in margin)
    for title in (
        "Lockheed Martin Corporation › Consolidated Statements of Earnings",
        "Consolidated Statements of Operations and Comprehensive Loss",  # one statement of both
    ):
        assert any(p.search(t) for t in pages.statement_titles(titled(title)) for p in margin)
    words = pages.question_stems("FY2018 capex")
    assert "2018" in words and "purchas" in words and "properti" in words
    officer = pages.question_stems("Has the new CEO been a CEO before?")  # a filing spells it out
    assert {"chief", "execut", "offic"} <= set(officer)
    deals = pages.question_stems("Excluding M&A, which segment dragged down growth?")
    assert {"acquisit", "divestitur"} <= set(deals)  # the segment table's column heads


def test_a_table_of_small_figures_is_not_a_contents_page() -> None:
    """A contents page read as cells ("1.1 | Imports | 3") is a listing; a statement whose
    figures are as small as page numbers, with a row of dollars in it, is not (a listing
    ranks after prose and is never sent)."""
    contents = "Acknowledgements | 1\n1 | Introduction | 3\n1.1 | Imports | 3\n1.2 | Export | 4"
    assert is_toc_like(contents)
    table = (
        "2018 | 2017\nUnsecured debt securities | $1,151 | $599\nCapital lease obligations | 57 "
        "| 52\nOther notes | 62 | 51\nTotal | $3,190 | $1,335"
    )
    assert not is_toc_like(table)
    assert not is_toc_like("Balance as of January 1 | $ 110\nIncreases | 18\nDecreases | (6)")
    # a filing's contents, each title after its item's or note's number
    items = (
        "Item 1. | Business | 3\nItem 1A. | Risk Factors | 17\nItem 7. | Management's "
        "Discussion and Analysis of Financial Condition and Results of Operations | 28\n"
        "Item 8. | Financial Statements and Supplementary Data | 52"
    )
    assert is_toc_like(items)
    notes = "Note 2. Revenue | 71\nNote 3. Acquisitions | 73\nNote 4. Goodwill | 76"
    assert is_toc_like(notes)
    # numbered steps that end in a small number are steps, set in cells or not
    steps = (
        "Step 1. Preheat the oven to 180\nStep 2. Beat the butter, then mix\nStep 3. Bake for 25"
    )
    assert not is_toc_like(steps)
    assert not is_toc_like("Set 1. Squats 10\nSet 2. Squats 8\nSet 3. Squats 6")


def test_a_files_pages_are_read_once_until_it_changes(make_engine, tmp_path):
    docs = tmp_path / "filings"
    docs.mkdir()
    pdf = statement_pdf(docs / "acme.pdf")
    engine = make_engine()
    engine.index([str(docs)])
    files = pages.FilePages(engine.manifest)
    view = files(str(pdf))
    assert files(str(pdf)) is view and view.rows
    assert [p.number for p in view.pages()] == [1]
    statement_pdf(pdf, [("Goodwill", "9", "8"), ("Patents", "7", "6"), ("Land", "5", "4")])
    engine.index([str(docs)])
    again = files(str(pdf))
    assert again is not view
    assert any("Goodwill | 9 | 8" in r.text for r in again.rows)
