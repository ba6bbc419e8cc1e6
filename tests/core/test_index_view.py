"""The window's read-only view of an index: folders with their counts, failures, scope choices
and a first question, read on a real manifest while another connection writes it."""

from __future__ import annotations

import threading
from pathlib import Path

from app.core.index.manifest import Manifest
from app.core.index.records import FileRecord
from app.core.index_view import IndexView, peek
from app.core.text import text_hash
from app.core.types import Chunk

TEXT = "Tomatoes need six hours of direct sun and deep watering twice a week in summer."


def _chunk(path: str) -> Chunk:
    return Chunk(path, None, 0, len(TEXT), TEXT, text_hash(TEXT), heading="Tomatoes")


def _index(tmp_path: Path) -> tuple[Manifest, Path]:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "garden.md").write_text(TEXT)
    (notes / "locked.pdf").write_bytes(b"%PDF-1.7")
    manifest = Manifest(tmp_path / "data" / "manifest.sqlite3")
    manifest.add_folder(str(notes))
    garden = str(notes / "garden.md")
    manifest.replace_file(FileRecord(garden, 1, 1, "h", "indexed", chunks=1), [_chunk(garden)])
    manifest.replace_file(
        FileRecord(str(notes / "locked.pdf"), 1, 1, None, "failed", "password protected"), []
    )
    return manifest, notes


def test_the_summary_counts_each_folder_and_lists_the_failures(tmp_path: Path) -> None:
    writer, notes = _index(tmp_path)
    view = IndexView(writer.path)
    try:
        summary = view.summary()
        [folder] = summary.folders
        assert (folder.path, folder.files, folder.indexed, folder.failed) == (str(notes), 2, 1, 1)
        assert folder.passages == 1 and folder.problem is None
        assert (summary.files, summary.passages) == (2, 1)
        assert summary.failures == [(str(notes / "locked.pdf"), "password protected")]
        assert view.scope_choices().folders == (str(notes),)
        suggestion = view.first_question()
        assert suggestion is not None and suggestion.path == str(notes / "garden.md")
    finally:
        view.close()
        writer.close()


def test_a_folder_gone_from_disk_keeps_its_counts_and_says_why(tmp_path: Path) -> None:
    writer, notes = _index(tmp_path)
    for f in notes.iterdir():
        f.unlink()
    notes.rmdir()
    try:
        summary = peek(writer.path)
        assert summary is not None
        [folder] = summary.folders
        assert folder.files == 2 and folder.problem  # unavailable is not gone
    finally:
        writer.close()


def test_each_thread_reads_on_its_own_connection_and_sees_the_latest_write(
    tmp_path: Path,
) -> None:
    writer, notes = _index(tmp_path)
    view = IndexView(writer.path)
    seen: list[int] = []
    try:
        assert view.summary().files == 2
        extra = str(notes / "extra.md")
        writer.replace_file(FileRecord(extra, 1, 1, "h2", "indexed", chunks=1), [_chunk(extra)])
        thread = threading.Thread(target=lambda: seen.append(view.summary().files))
        thread.start()
        thread.join()
        assert seen == [3] and view.summary().files == 3  # the panel follows the engine's writes
    finally:
        view.close()
        writer.close()


def test_without_an_index_there_is_nothing_to_peek_at(tmp_path: Path) -> None:
    assert peek(tmp_path / "none.sqlite3") is None
    assert not IndexView(tmp_path / "none.sqlite3").exists()
