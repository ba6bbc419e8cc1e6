"""A manual's table of contents shares a question's words with the page it points to, and
used to outrank it: "how do I read a fixed-width format file" got the contents page as [1].
Contents pages and indexes now come after prose and are not sent to the model."""

from __future__ import annotations

from pathlib import Path

from app.core.prompt.answering import estimate_tokens
from app.core.prompt.passages import choose_passages
from tests.helpers import make_pdf

CONTENTS = "\n".join(
    [
        "Contents",
        "1 Introduction .......................................... 1",
        "2 Reading fixed-width format files ...................... 15",
        "3 Reading files in other formats ........................ 17",
        "4 Writing data files .................................... 21",
        "5 Spreadsheet-like data ................................. 24",
    ]
)
CONTENT = (
    "Fixed-width format files. The function read.fwf reads a file in fixed width format: "
    "give the widths of the fields as a vector, and each line is cut into columns at those "
    "widths. Lines that are too short are padded with missing values."
)
OTHER = (
    "Spreadsheet-like data. Export the sheet as comma-separated values and read it with "
    "read.csv, which takes the header from the first line."
)


def test_a_contents_page_comes_after_the_page_it_points_to_and_is_not_sent(
    tmp_path: Path, make_engine
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "R-data.pdf", [CONTENTS, CONTENT, OTHER])
    engine = make_engine()
    engine.index([str(docs)])

    hits = engine.search("how do I read a fixed-width format file", 3).hits
    assert (hits[0].page, "read.fwf" in hits[0].text) == (2, True)
    contents = [h for h in hits if h.page == 1]
    assert contents and contents[0].rank > hits[0].rank
    assert [h.rank for h in hits] == [1, 2, 3]  # renumbered: the numbers stay ranks
    sent = choose_passages(hits, estimate_tokens)
    assert all(h.page != 1 for h in sent)  # the model never reads the contents page

    # a question about the contents themselves still finds them first
    about = engine.search("what is in the table of contents chapter list", 3).hits
    assert about[0].page == 1


def test_a_notes_readme_of_links_comes_after_the_note_it_links_to(
    tmp_path: Path, make_engine
) -> None:
    """A notes collection's README lists every note's title as a link, so a question that
    names a note matched the list as well as the note (and often better)."""
    notes = tmp_path / "notes"
    (notes / "git").mkdir(parents=True)
    titles = [
        "Accessing A Lost Commit",
        "Find A Lost Commit In The Reflog",
        "Restore A Lost Commit After A Reset",
        "Amend Author Of Previous Commit",
        "Auto-Squash Those Fixup Commits",
    ]
    links = "\n".join(f"- [{t}](git/{t.lower().replace(' ', '-')}.md)" for t in titles)
    (notes / "README.md").write_text(f"# TIL\n\n### Git\n\n{links}\n", encoding="utf-8")
    (notes / "git" / "accessing-a-lost-commit.md").write_text(
        "# Accessing A Lost Commit\n\nWhen work seems gone after a rebase, `git reflog` lists "
        "every place HEAD has pointed to; check out the hash it shows to get the work back.\n",
        encoding="utf-8",
    )
    engine = make_engine()
    engine.index([str(notes)])

    hits = engine.search("Accessing A Lost Commit", 3).hits
    assert hits[0].path.endswith("accessing-a-lost-commit.md")
    readme = [h for h in hits if h.path.endswith("README.md")]
    assert readme and readme[0].rank > 1
    assert [h.path for h in choose_passages(hits, estimate_tokens)] == [hits[0].path]
