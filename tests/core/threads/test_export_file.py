"""An export writes only where it was asked: a regular file, atomically, outside the data
directory; never a FIFO, a device, a link's target; an existing file only when replacing it
was asked for; a missing folder is an error, not created."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.threads.export_file import ExportError, write_export

TEXT = "# A thread\n\nIt says so [^1].\n"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "manifest.sqlite3").write_bytes(b"SQLite format 3\x00 the index")
    (folder / "threads.sqlite3").write_bytes(b"SQLite format 3\x00 the history")
    return folder


def unchanged(path: Path, before: bytes) -> None:
    assert path.read_bytes() == before


@pytest.mark.parametrize("name", ["manifest.sqlite3", "threads.sqlite3", "new.md", "chroma/x"])
def test_nothing_inside_the_data_directory_is_written(data: Path, name: str) -> None:
    (data / "chroma").mkdir()
    target = data / name
    before = target.read_bytes() if target.exists() else None
    with pytest.raises(ExportError, match="inside the data directory"):
        write_export(target, TEXT, data, replace=True)
    assert (target.read_bytes() if target.exists() else None) == before


def test_a_link_into_the_data_directory_is_refused(data: Path, tmp_path: Path) -> None:
    (tmp_path / "innocent").symlink_to(data)  # a folder that leads into it
    with pytest.raises(ExportError, match="inside the data directory"):
        write_export(tmp_path / "innocent" / "manifest.sqlite3", TEXT, data, replace=True)
    link = tmp_path / "notes.md"
    link.symlink_to(data / "threads.sqlite3")
    with pytest.raises(ExportError, match="symbolic link"):
        write_export(link, TEXT, data, replace=True)
    assert link.is_symlink()
    unchanged(data / "threads.sqlite3", b"SQLite format 3\x00 the history")


def test_a_link_to_a_file_outside_is_neither_followed_nor_replaced(
    data: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("someone else's file")
    link = tmp_path / "export.md"
    link.symlink_to(outside)
    with pytest.raises(ExportError, match="symbolic link"):
        write_export(link, TEXT, data, replace=True)
    assert outside.read_text() == "someone else's file" and link.is_symlink()


def test_a_fifo_and_a_device_are_refused(data: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ExportError, match="named pipe"):
        write_export(fifo, TEXT, data, replace=True)
    assert fifo.is_fifo()
    with pytest.raises(ExportError, match="a device"):
        write_export(Path(os.devnull), TEXT, data, replace=True)
    assert Path(os.devnull).is_char_device()
    with pytest.raises(ExportError, match="a folder, not a file"):
        write_export(tmp_path, TEXT, data, replace=True)


def test_a_missing_folder_is_an_error_and_is_not_created(data: Path, tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "folder" / "t.md"
    with pytest.raises(ExportError, match="does not exist"):
        write_export(target, TEXT, data)
    assert not (tmp_path / "no").exists()


def test_an_existing_file_is_replaced_only_when_asked(data: Path, tmp_path: Path) -> None:
    target = tmp_path / "thread.md"
    write_export(target, TEXT, data)
    assert target.read_text() == TEXT
    with pytest.raises(ExportError, match="already exists; add --force"):
        write_export(target, "other", data)
    assert target.read_text() == TEXT
    write_export(target, "second", data, replace=True)
    assert target.read_text() == "second"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp left
