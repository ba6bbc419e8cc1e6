"""A question that names a document by its file name is searched within that document too.

"What was the FY2021 capital expenditure of Acme?" names ``ACME_2021_annual_report.md``: its
cash-flow passage does not say whose it is, while another company's report and a note phrase
the question's words more closely.
"""

from __future__ import annotations

from pathlib import Path

from app.core.index.manifest import Manifest
from app.core.index.records import FileRecord
from app.core.search.named import NamedFiles, _Name, file_name, parts, question_names

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


def test_what_counts_as_naming_a_file() -> None:
    assert file_name("/r/3M_2018_10K.pdf") == file_name("/x/3M-2018-10K.md")
    named = file_name("/r/MGMRESORTS_2022Q4_EARNINGS.pdf")
    assert named is not None and named.subject == "mgmresorts" and named.years == {2022}
    for not_a_name in ("/n/delete-lines-in-vim.md", "/n/The-Report.md", "/n/2021.txt"):
        assert file_name(not_a_name) is None, not_a_name

    names, acronyms, years = question_names("Has MGM paid dividends in FY22 and 2021?")
    assert "mgm" in names and acronyms == ["mgm"] and years == {2021, 2022}
    names, _, _ = question_names("How much did American Water Works pay out?")
    assert "americanwaterworks" in names
    names, _, _ = question_names("Delete lines in vim quickly")  # a first word is not a name
    assert "delete" not in names


def test_a_name_in_a_script_without_capitals_is_named_when_the_question_writes_it(
    tmp_path: Path,
) -> None:
    """Japanese, Chinese or Hindi have no capitals to mark a name: a file is named when the
    question writes its name's first part, and its parts are split as search splits words."""
    assert file_name("/r/Müller_2020_Bericht.pdf") == _Name("müller", frozenset({2020}))
    minutes = file_name("/r/議事録_2023.md")
    assert minutes is not None and minutes.caseless and minutes.years == {2023}
    assert parts("会議メモ2024") == ["会議メモ", "2024"]  # not its pairs of characters

    manifest = Manifest(tmp_path / "manifest.sqlite3")
    for name in (
        "議事録_2023.md",
        "議事録_2024.md",
        "张三简历.txt",
        "तकनीकी_रिपोर्ट.md",
        "notes.md",
    ):
        path = str(tmp_path / name)
        manifest.replace_file(FileRecord(path, 1, 1, "h", "indexed"), [])
    named = NamedFiles(manifest)
    assert [Path(p).name for p in named.named("2024年の議事録で決まったことは？")] == [
        "議事録_2024.md"
    ]
    assert [Path(p).name for p in named.named("张三简历里写了什么")] == ["张三简历.txt"]
    assert [Path(p).name for p in named.named("तकनीकी रिपोर्ट में क्या है")] == ["तकनीकी_रिपोर्ट.md"]
    assert named.named("会議はいつですか") == []  # no file's name written
    assert named.named("what do my notes say") == []  # a lower-case English name is no name
    manifest.close()
