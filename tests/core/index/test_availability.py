"""Whether a watched folder can be read now, and the reason a person reads when it cannot:
unavailable is not gone (an unplugged drive keeps its passages)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from app.core.index.availability import (
    EMPTIED,
    GONE_ERRNOS,
    folder_problem,
    reason_for,
    unavailable_message,
)


def test_a_folder_that_can_be_listed_has_no_problem(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("a")
    assert folder_problem(str(tmp_path)) is None
    assert folder_problem(str(tmp_path), indexed=True) is None


def test_an_empty_folder_is_unavailable_only_when_its_files_are_indexed(tmp_path: Path) -> None:
    empty = tmp_path / "mnt"
    empty.mkdir()
    assert folder_problem(str(empty)) is None  # a new, empty folder is just empty
    assert folder_problem(str(empty), indexed=True) == EMPTIED  # an unmounted drive


def test_a_missing_folder_or_a_file_in_its_place_says_so(tmp_path: Path) -> None:
    assert "not found" in (folder_problem(str(tmp_path / "usb")) or "")
    (tmp_path / "was-a-folder").write_text("now a file")
    assert folder_problem(str(tmp_path / "was-a-folder")) == "no longer a folder"


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (errno.ENOENT, "not found"),
        (errno.ENOTDIR, "not found"),
        (errno.EACCES, "permission denied"),
        (errno.EPERM, "permission denied"),
        (errno.EIO, "input/output error"),
        (errno.ESTALE, "stale network file handle"),
        (errno.ENOTCONN, "not connected"),
        (errno.ELOOP, "too many levels of symbolic links"),  # the OS's own words otherwise
    ],
)
def test_each_os_error_has_a_reason_a_person_reads(code: int, words: str) -> None:
    assert words in reason_for(OSError(code, os.strerror(code)))
    assert (code in GONE_ERRNOS) == (words == "not found")


def test_the_status_sentence_says_the_passages_stay() -> None:
    text = unavailable_message("/mnt/usb/notes", "not found")
    assert text.startswith("/mnt/usb/notes is unavailable (not found);")
    assert "passages stay in the index" in text and "resumes when it is back" in text
