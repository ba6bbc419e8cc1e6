"""Files indexed with a warning (an encoding guessed): read and searchable, and listed with
the doubt a person should hear of; a failed file's reason is no warning."""

from __future__ import annotations

from pathlib import Path

from app.core.index.file_warnings import listed
from app.core.index.manifest import Manifest
from app.core.index.records import FileRecord
from app.core.ingest.failures import FailureKind

GUESSED = "its text encoding could not be decided with confidence; it was read as cp1252"


def test_only_indexed_files_with_a_warning_are_listed_by_path(tmp_path: Path) -> None:
    manifest = Manifest(tmp_path / "manifest.sqlite3")
    try:
        for path, status, error in [
            ("/d/z-legacy.txt", "indexed", GUESSED),
            ("/d/a-legacy.txt", "indexed", GUESSED),
            ("/d/clean.txt", "indexed", None),
            ("/d/broken.pdf", "failed", "it is not a valid PDF or it is damaged"),
        ]:
            kind = FailureKind.DAMAGED if status == "failed" else None
            manifest.replace_file(FileRecord(path, 1, 1, "h", status, error, error_kind=kind), [])
        assert listed(manifest.conn) == [("/d/a-legacy.txt", GUESSED), ("/d/z-legacy.txt", GUESSED)]
        manifest.replace_file(
            FileRecord("/d/a-legacy.txt", 2, 2, "h", "indexed"), []
        )  # saved as UTF-8
        assert listed(manifest.conn) == [("/d/z-legacy.txt", GUESSED)]
    finally:
        manifest.close()
