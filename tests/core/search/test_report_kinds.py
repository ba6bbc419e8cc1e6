"""A company's annual report, quarterly report and earnings release of one year share their
words; the question's period says which of them answers it, and the cover page says which is
which (not the file name). Also: a statement page is known by its title, and a section that
discusses a statement is not the statement.

The folder written here holds three PDFs of one company for 2023, named as a person names
them. The earnings release repeats the words of both questions on every page, so the fused
search puts it first; the annual report's balance sheet answers "the quick ratio in FY2023 and
FY2022", and the quarterly report's note answers "the restructuring liability as of Q2".
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pymupdf

from app.core.index.records import ChunkRow
from app.core.search import pages
from app.core.search.reports import asked_kind, cover_kind, prefer_kind

ANNUAL_COVER = (
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION. Washington, D.C. 20549. FORM 10-K. "
    "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934. "
    "For the fiscal year ended June 30, 2023. Acme Packaging plc."
)
QUARTERLY_COVER = (
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION. Washington, D.C. 20549. FORM 10-Q. "
    "QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934. "
    "For the quarterly period ended December 31, 2022. Acme Packaging plc. Registrants "
    "filing an annual report on Form 10-K check this box."
)
RELEASE = (
    "Acme reports fiscal 2023 results. Acme's quick ratio, liquidity and restructuring in "
    "FY2023 and FY2022 were discussed by the chief executive, who said the quick ratio of "
    "Acme improved in FY2023 against FY2022 and the restructuring liability fell in the "
    "second quarter, Q2 of FY2023. "
)
QUICK = "Has Acme's quick ratio improved or declined between FY2023 and FY2022?"
RESTRUCTURING = "What is the nature of Acme's restructuring liability as of Q2 of FY2023?"


def write_pdf(path: Path, pages_text: list[str]) -> Path:
    doc = pymupdf.open()
    for text in pages_text:
        page = doc.new_page()
        y = 72
        for block in text.split("\n"):
            for line in textwrap.wrap(block, 90) or [""]:
                page.insert_text((72, y), line, fontname="helv", fontsize=9)
                y += 12
    doc.save(path)
    doc.close()
    return path


def company_folder(folder: Path) -> dict[str, Path]:
    balance = "Consolidated Balance Sheets\n" + "\n".join(
        f"{label} {a} {b}"
        for label, a, b in [
            ("($ in millions) June 30,", "2023", "2022"),
            ("Cash and cash equivalents", "775", "775"),
            ("Trade receivables, net", "1,875", "1,935"),
            ("Inventories", "2,213", "2,439"),
            ("Total current assets", "5,308", "5,853"),
            ("Total current liabilities", "5,335", "5,650"),
        ]
    )
    restructuring = (
        "Note 8 - Restructuring. The restructuring liability as of December 31, 2022 relates "
        "to employee termination benefits and facility closures under the 2019 Bemis plan; "
        "it is expected to be paid within twelve months."
    )
    prose = "Acme makes flexible packaging and rigid containers for food, beverage and care."
    return {
        "annual": write_pdf(
            folder / "Acme annual report 2023.pdf", [ANNUAL_COVER, prose, balance, prose]
        ),
        "quarterly": write_pdf(
            folder / "Acme quarterly report 2023.pdf",
            [QUARTERLY_COVER, prose, restructuring, prose],
        ),
        "release": write_pdf(folder / "Acme results 2023.pdf", [RELEASE * 3] * 4),
    }


def test_the_report_of_the_kind_the_question_asks_for_answers_it(make_engine, tmp_path):
    folder = tmp_path / "acme"
    folder.mkdir()
    files = company_folder(folder)
    engine = make_engine()
    engine.index([str(folder)])

    named = engine.retriever.named
    assert named.kind(str(files["annual"])) == "annual"
    assert named.kind(str(files["quarterly"])) == "quarterly"
    assert named.kind(str(files["release"])) is None

    hits = engine.search(QUICK, k=5).hits
    assert (hits[0].path, hits[0].page) == (str(files["annual"]), 3)  # the balance sheet
    hits = engine.search(RESTRUCTURING, k=5).hits
    assert (hits[0].path, hits[0].page) == (str(files["quarterly"]), 3)  # the note

    # a question that asks for no kind leaves the release, which repeats its words, first
    hits = engine.search("What did Acme's chief executive say about its quick ratio?", k=5).hits
    assert hits[0].path == str(files["release"])


def test_the_kind_a_cover_states_and_a_question_asks_for() -> None:
    assert cover_kind(ANNUAL_COVER) == "annual"
    assert cover_kind(QUARTERLY_COVER) == "quarterly"  # the 10-K it names comes later
    assert cover_kind("FORM 8-K. CURRENT REPORT Pursuant to Section 13") == "current"
    assert cover_kind(RELEASE) is None
    assert cover_kind("FOR IMMEDIATE RELEASE. 2023 Second-Quarter reported sales") is None

    for question, kind in [
        (QUICK, "annual"),
        ("What was the capital expenditure in fiscal 2022?", "annual"),
        ("What does the 10-K say about risks?", "annual"),
        (RESTRUCTURING, "quarterly"),
        ("Which region dropped most in Q22023 year over year?", "quarterly"),
        ("As of Q2'2023, is Pfizer spinning off a segment?", "quarterly"),
        ("What did MGM invest in during H1 FY2023?", "quarterly"),
        ("What was sales growth in the second quarter?", "quarterly"),
        ("What was the key agenda of the 8-K dated July 1?", "current"),
        ("Who is the chief executive of Acme?", None),
        ("How do I undo the last git commit?", None),
    ]:
        assert asked_kind(question) == kind, question


def test_files_of_another_stated_kind_are_set_aside_only_for_one_of_the_kind_asked() -> None:
    kinds = {"/a.pdf": "annual", "/q.pdf": "quarterly", "/r.pdf": None}
    paths = ["/a.pdf", "/q.pdf", "/r.pdf"]
    assert prefer_kind(paths, kinds, "annual") == ["/a.pdf", "/r.pdf"]  # a release stays
    assert prefer_kind(paths, kinds, "current") == paths  # none of that kind: all stay
    assert prefer_kind(paths, kinds, None) == paths


def row(text: str, heading: str | None = None, start: int = 0) -> ChunkRow:
    return ChunkRow(1, "c", "/f.pdf", 7, start, start + len(text), "h", heading, text)


def test_a_statement_page_is_known_by_its_title_not_by_a_section_about_it() -> None:
    cash = pages.named_statements("Is Acme a capital-intensive business based on FY2022?")
    # a title the layout did not set apart, under a link back to the index
    opening = "Index to Consolidated Financial Statements\n\nConsolidated Statements of Cash Flows"
    statement = [row(opening + "\nNet income | 4,165 | 7,898", None)]
    titles = pages.statement_titles(statement)
    assert any(p.search(t) for t in titles for p in cash)
    for heading in (
        "Item 7. Management's Discussion and Analysis of Financial Condition",
        "Liquidity › Cash Flows from Investing Activities",
        "Analysis of the Consolidated Statements of Cash Flows",
        "Financial Instruments Not Measured at Fair Value on the Consolidated Balance Sheets",
        "Note 18 - Supplemental Cash Flow Information",
    ):
        titles = pages.statement_titles([row("Capital spending rose in 2022.", heading)])
        assert not any(p.search(t) for t in titles for p in cash), heading
    sheet = "Acme plc › Consolidated Balance Sheets"
    titles = pages.statement_titles([row("Cash | 775 | 775", sheet)])
    assert any(p.search(t) for t in titles for p in cash)
