"""Files a question names by their file name ("the FY2018 capex of 3M" names
``3M_2018_10K.pdf``), over a real manifest's paths, read again when the files change.

That retrieval then ranks the named file first is shown on a real index in
``test_named_files.py``.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.index.manifest import Manifest
from app.core.index.records import FileRecord
from app.core.search.named import (
    MAX_NAMED,
    NamedFiles,
    _Name,
    file_name,
    parts,
    question_days,
    question_names,
)


@pytest.fixture
def manifest(tmp_path: Path) -> Iterator[Manifest]:
    m = Manifest(tmp_path / "manifest.sqlite3")
    yield m
    m.close()


def add(manifest: Manifest, *paths: str) -> None:
    for path in paths:
        manifest.replace_file(FileRecord(path, 1, 1, "h", "indexed"), [])


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


def test_the_named_file_of_the_latest_year_asked_is_preferred(manifest: Manifest) -> None:
    add(
        manifest,
        "/r/3M_2018_10K.pdf",
        "/r/3M_2022_10K.pdf",
        "/r/Pfizer_2022_10K.pdf",
        "/n/capital-expenditure.md",
    )
    named = NamedFiles(manifest)
    assert named.named("What is the FY2018 capital expenditure of 3M?") == ["/r/3M_2018_10K.pdf"]
    assert named.named("How did 3M's revenue change from 2018 to 2022?") == ["/r/3M_2022_10K.pdf"]
    assert named.named("What does 3M make?") == ["/r/3M_2018_10K.pdf", "/r/3M_2022_10K.pdf"]
    assert named.named("what does capital expenditure mean") == []  # names no file


def test_a_day_the_question_writes_sets_aside_the_files_of_other_days(manifest: Manifest) -> None:
    """A company's 8-Ks of one year are told apart by the day in their names; a question
    writes that day in words, year first or with slashes (either reading of "5/30"). The
    company's undated reports, and other companies' files, stay named."""
    add(
        manifest,
        "/r/PEPSICO_2023_8K_dated-2023-05-05.pdf",
        "/r/PEPSICO_2023_8K_dated-2023-05-30.pdf",
        "/r/PEPSICO_2023Q1_EARNINGS.pdf",
        "/r/FOOTLOCKER_2022_8K_dated_2022-08-19.pdf",
        "/r/FOOTLOCKER_2022_8K_dated_2022-05-20.pdf",
        "/r/COCACOLA_2023_10K.pdf",
        "/n/Minutes 05-30-2023.md",
        "/n/Minutes 06-13-2023.md",
    )
    named = NamedFiles(manifest)
    late_may = ["/r/PEPSICO_2023Q1_EARNINGS.pdf", "/r/PEPSICO_2023_8K_dated-2023-05-30.pdf"]
    for question in (
        "What did PepsiCo disclose in its 8-K dated May 30, 2023?",
        "What did PepsiCo file on 30 May 2023?",
        "What did PepsiCo file on the 30th of May? The one dated 2023-05-30.",
        "What did PepsiCo report on 5/30/2023?",
        "What did PepsiCo say on Tuesday, May 30th,2023?",
    ):
        assert named.named(question) == late_may, question
    assert "/r/PEPSICO_2023_8K_dated-2023-05-05.pdf" in named.named(
        "What did PepsiCo say on 5/5/2023?"
    )
    assert named.named("What did Foot Locker's 8-K of Aug. 19, 2022 announce?") == [
        "/r/FOOTLOCKER_2022_8K_dated_2022-08-19.pdf"
    ]
    both = named.named("Compare Coca-Cola's 2023 10-K with PepsiCo's 8-K dated May 30, 2023.")
    assert "/r/COCACOLA_2023_10K.pdf" in both  # another company's report stays named
    assert "/r/PEPSICO_2023_8K_dated-2023-05-05.pdf" not in both
    assert named.named("What did the Minutes of 30 May 2023 decide?") == [
        "/n/Minutes 05-30-2023.md"
    ]
    # a day no file's name holds: the files of its year, as before
    assert len(named.named("What did PepsiCo say on June 1, 2023?")) == 3
    assert question_days("What did it say in May 2023, or on Feb 31, 2023?") == set()
    # a version written like a day is none: release v2023.1.2 and tool 2023.5.30.1
    assert question_days("What changed in release v2023.1.2 and in 2023.5.30.1?") == set()
    assert question_days("What was filed on 2023.05.30?") == {datetime.date(2023, 5, 30)}
    for asked in (
        "百事公司2023年5月30日的8-K说了什么？",
        "2023년 5월 30일 보고서",
        "２０２３年５月３０日",
    ):
        assert question_days(asked) == {datetime.date(2023, 5, 30)}, asked


def test_initials_joined_by_an_ampersand_name_the_file_of_those_words(manifest: Manifest) -> None:
    """ "J&J" is how people write Johnson & Johnson, "B&N" Barnes & Noble Education (the
    initials of a name's first words); "D&A" and "P&L" are terms, not names."""
    add(
        manifest,
        "/r/JOHNSON_JOHNSON_2022_10K.pdf",
        "/r/Barnes_Noble_Education_2021_10K.pdf",
        "/r/Procter_Gamble_2021_10K.pdf",
        "/n/Docker Architecture.md",
        "/n/Profit Loss Review.md",
    )
    named = NamedFiles(manifest)
    johnson = ["/r/JOHNSON_JOHNSON_2022_10K.pdf"]
    assert named.named("What was J&J's quick ratio at fiscal year-end 2022?") == johnson
    assert named.named("Did JnJ pay a dividend in 2022?") == johnson
    assert named.named("How did P&G's margins move?") == ["/r/Procter_Gamble_2021_10K.pdf"]
    assert named.named("What did B&N sell in 2021?") == ["/r/Barnes_Noble_Education_2021_10K.pdf"]
    assert named.named("What were D&A and the P&L's largest items?") == []
    assert named.named("How much did PP&E grow?") == []  # "P&E" inside "PP&E" is no initialism


def test_a_name_a_whole_collection_shares_names_no_document(manifest: Manifest) -> None:
    add(manifest, *[f"/n/Normans_{i}.txt" for i in range(MAX_NAMED + 1)])
    assert NamedFiles(manifest).named("Who were the Normans?") == []


def test_files_added_renamed_or_removed_are_seen_by_the_next_question(
    manifest: Manifest,
) -> None:
    named = NamedFiles(manifest)
    assert named.named("What did Acme spend?") == []
    add(manifest, "/r/ACME_2021_report.md")
    assert named.named("What did Acme spend?") == ["/r/ACME_2021_report.md"]
    manifest.move("/r/ACME_2021_report.md", "/r/Initech_2021_report.md")
    assert named.named("What did Acme spend?") == []
    assert named.named("What did Initech spend?") == ["/r/Initech_2021_report.md"]
    manifest.remove_files(["/r/Initech_2021_report.md"])
    assert named.named("What did Initech spend?") == []


def test_a_change_made_by_another_process_is_seen_too(manifest: Manifest, tmp_path: Path) -> None:
    named = NamedFiles(manifest)
    assert named.named("What did Globex earn?") == []
    writer = Manifest(tmp_path / "manifest.sqlite3")  # the watcher, say
    try:
        add(writer, "/r/Globex_2020.pdf")
    finally:
        writer.close()
    assert named.named("What did Globex earn?") == ["/r/Globex_2020.pdf"]


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
