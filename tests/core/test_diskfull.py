"""A full disk told apart from other write failures, and the one sentence that says so."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from app.core.diskfull import disk_full_error, disk_full_message, free_bytes, is_disk_full
from app.core.errors import DiskFullError


@pytest.mark.parametrize(
    "exc",
    [
        OSError(errno.ENOSPC, "No space left on device"),
        OSError(errno.EDQUOT, "Disk quota exceeded"),
        sqlite3.OperationalError("database or disk is full"),
        DiskFullError("already said"),
    ],
    ids=["enospc", "quota", "sqlite-full", "said-already"],
)
def test_every_way_a_full_disk_is_reported_is_one(tmp_path: Path, exc: BaseException) -> None:
    assert is_disk_full(tmp_path, exc)
    error = disk_full_error(tmp_path, exc)
    assert isinstance(error, DiskFullError)


@pytest.mark.parametrize(
    "exc",
    [
        OSError(errno.EACCES, "Permission denied"),
        sqlite3.OperationalError("database is locked"),
        sqlite3.OperationalError("disk I/O error"),  # with room to spare: another fault
        ValueError("no space left on device"),  # words alone, from no write
    ],
    ids=["permission", "locked", "io-error-with-room", "not-a-write"],
)
def test_other_failures_are_not_a_full_disk(tmp_path: Path, exc: BaseException) -> None:
    assert free_bytes(tmp_path) is not None  # the test disk has room to spare
    assert not is_disk_full(tmp_path, exc)
    assert disk_full_error(tmp_path, exc) is None


def test_an_error_already_said_is_passed_on_as_it_is(tmp_path: Path) -> None:
    said = DiskFullError("The disk holding /x is full.")
    assert disk_full_error(tmp_path, said) is said


def test_the_sentence_names_the_place_the_room_left_and_what_to_do(tmp_path: Path) -> None:
    text = disk_full_message(tmp_path, "the vector store ")
    assert text.startswith(f"The disk holding the vector store {tmp_path} is full (")
    assert " free)" in text and ("MB" in text or "KB" in text)
    assert "nothing was lost" in text and "free some space" in text
    assert str(disk_full_error(tmp_path, OSError(errno.ENOSPC, "full"))) == disk_full_message(
        tmp_path
    )


def test_a_place_whose_disk_cannot_be_asked_still_gets_a_sentence(tmp_path: Path) -> None:
    gone = tmp_path / "no" / "such" / "folder"
    assert free_bytes(gone) is None
    assert "(no room left)" in disk_full_message(gone)
