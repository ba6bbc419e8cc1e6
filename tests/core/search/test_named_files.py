"""A question that names a document by its file name is searched within that document too.

"What was the FY2021 capital expenditure of Acme?" names ``ACME_2021_annual_report.md``: its
cash-flow passage does not say whose it is, while another company's report and a note phrase
the question's words more closely.
"""

from __future__ import annotations

from pathlib import Path

ACME_2021 = """# Cash flows

Purchases of property, plant and equipment were 412 million in the year, for the new
kilns at the river works.

# Employees

The works employed 2,300 people at the end of the year.
"""
ACME_2019 = """# Cash flows

Purchases of property, plant and equipment were 298 million in the year, for the new
warehouse and the rail siding.
"""
GLOBEX_2021 = """# Capital expenditure

Capital expenditure for fiscal year 2021 was 90 million: what the company spent on
plant and equipment, mostly replacement presses.
"""
NOTE = """# What capital expenditure means

Capital expenditure (capex) is what a company spends in a fiscal year on property, plant
and equipment. Look for it in the cash flow statement.
"""


def test_the_named_report_of_the_named_year_comes_first(tmp_path: Path, make_engine) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ACME_2021_annual_report.md").write_text(ACME_2021)
    (docs / "ACME_2019_annual_report.md").write_text(ACME_2019)
    (docs / "Globex_2021_annual_report.md").write_text(GLOBEX_2021)
    (docs / "capital-expenditure.md").write_text(NOTE)
    engine = make_engine()
    engine.index([str(docs)])

    # What a person notices, with margins no CPU's int8 rounding can flip: the named report
    # comes first, both its passages ahead of every other file's (the named-file bonus is a
    # whole point of fused score). Which of its two passages leads is a near-tie of cosines
    # (0.206 against 0.203: neither holds a word of "capital expenditure"), so it is not
    # asserted here; the next test asserts the case with a real margin.
    hits = engine.search("What was the FY2021 capital expenditure of Acme?", 3).hits
    assert [Path(h.path).name for h in hits[:2]] == ["ACME_2021_annual_report.md"] * 2
    assert any("412 million" in h.text for h in hits[:2])
    # renamed: the new name is the one a question names (the names are read again)
    (docs / "ACME_2021_annual_report.md").rename(docs / "Initech_2021_annual_report.md")
    engine.index([str(docs)])
    hits = engine.search("What was the FY2021 capital expenditure of Initech?", 3).hits
    assert Path(hits[0].path).name == "Initech_2021_annual_report.md"
    # a question naming no file ranks as before: the note that defines the term leads
    plain = engine.search("what does capital expenditure mean", 3).hits
    assert Path(plain[0].path).name == "capital-expenditure.md"


def test_within_a_named_file_the_passage_with_the_questions_words_wins(
    tmp_path: Path, make_engine
) -> None:
    """Where the named file's passages differ in the question's own words, the one that holds
    them leads, by the lexical margin rather than by a near-tie of cosines."""
    docs = tmp_path / "docs"
    docs.mkdir()
    report = ACME_2021.replace(
        "Purchases of property, plant and equipment were 412 million",
        "Capital expenditure (purchases of property, plant and equipment) was 412 million",
    )
    (docs / "ACME_2021_annual_report.md").write_text(report)
    (docs / "Globex_2021_annual_report.md").write_text(GLOBEX_2021)
    (docs / "capital-expenditure.md").write_text(NOTE)
    engine = make_engine()
    engine.index([str(docs)])
    hits = engine.search("What was the FY2021 capital expenditure of Acme?", 3).hits
    assert Path(hits[0].path).name == "ACME_2021_annual_report.md"
    assert "412 million" in hits[0].text
    assert hits[0].score - hits[1].score > 0.2  # a margin, not a tie
