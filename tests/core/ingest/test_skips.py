"""Why a file is skipped on purpose and its type: what ``index``, ``status`` and the window
count, so the counts of a folder add up to the files on disk."""

from __future__ import annotations

import pytest

from app.core.ingest.skips import SkipReason, file_type, known_binary, label, sentence


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/d/notes.TXT", ".txt"),
        ("/d/manual.html.gz", ".html.gz"),
        ("/d/NEWS.gz", ".gz"),
        ("/d/README", "no extension"),
        ("/d/.bashrc", "no extension"),
    ],
)
def test_a_files_type_is_its_extension_the_inner_one_when_compressed(path: str, kind: str) -> None:
    assert file_type(path) == kind


def test_binary_formats_are_known_by_name_compressed_or_not() -> None:
    for path in ("/d/lib.so", "/d/song.MP3", "/d/backup.tar", "/d/dump.sql.db", "/d/x.iso.xz"):
        assert known_binary(path), path
    for path in ("/d/notes.md", "/d/README", "/d/book.pdf", "/d/page.html.gz"):
        assert not known_binary(path), path


def test_counts_are_said_with_their_noun_agreeing() -> None:
    assert label(SkipReason.BINARY, 12) == "12 unknown binary"
    assert label("format", 1) == "1 file in a format Footnotes does not read"
    assert label("format", 1204) == "1,204 files in formats Footnotes does not read"
    assert label("ignored", 2) == "2 files matching an ignore pattern"
    assert label("from-a-newer-version", 3) == "3 skipped files"


def test_a_file_named_on_the_command_line_is_told_why_in_a_sentence() -> None:
    assert sentence("format", "/d/movie.mkv") == ".mkv files are not a format Footnotes reads"
    assert "binary data" in sentence("binary", "/d/blob")
    assert "setting ignore_patterns" in sentence("ignored", "/d/x.swp")
    assert sentence("something-else", "/d/x") == "it was skipped"


def test_the_stored_value_of_each_reason_is_fixed() -> None:
    """The manifest stores these strings: renaming one would orphan every row written."""
    assert [r.value for r in SkipReason] == ["binary", "format", "ignored"]
