"""Every file under an indexed folder is indexed, unchanged, failed with a reason, or skipped
by reason; the skipped ones are remembered in the manifest and counted in ``status``."""

from __future__ import annotations

import gzip
import os
import sqlite3
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.index.manifest import Manifest
from app.core.index.schema import SCHEMA_VERSION

pytestmark = pytest.mark.slow  # a real embedding model and index, several seconds


def make_folder(root: Path) -> Path:
    """A folder like /usr/share/doc: plain and compressed text, unnamed text, binary files."""
    docs = root / "doc" / "lantern"
    docs.mkdir(parents=True)
    (docs / "README").write_text("The lantern reads the orchard map at night.\n")
    (docs / "copyright").write_text("Copyright the lantern makers. Free to share.\n")
    (docs / "changelog.Debian.gz").write_bytes(gzip.compress(b"lantern (1.2) fixes the harbour.\n"))
    (docs / "NEWS.gz").write_bytes(gzip.compress(b"News: the copper beacon is brighter.\n"))
    (docs / "guide.html.gz").write_bytes(gzip.compress(b"<p>The falcon guide.</p>"))
    (docs / "notes.md").write_text("# Notes\n\nThe willow grows by the lagoon.\n")
    (docs / "logo.bin.gz").write_bytes(gzip.compress(bytes(range(256))))
    (docs / "core").write_bytes(bytes(range(256)) * 8)  # binary, no extension
    (docs / "lib.so").write_bytes(b"\x7fELF" + bytes(64))
    (docs / "huge.txt.gz").write_bytes(gzip.compress(bytes(3_000_000)))  # over 1 MB inside
    return root / "doc"


def files_on_disk(folder: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(folder))


def test_the_counts_add_up_to_the_files_on_disk(tmp_path: Path, make_engine) -> None:
    folder = make_folder(tmp_path)
    engine = make_engine(settings=Settings(max_file_mb=1.0))  # applies to decompressed bytes
    report = engine.index([str(folder)])

    assert report.files_indexed == 6  # README, copyright, two .gz texts, html.gz, notes.md
    assert report.files_failed == 1 and "decompresses to more than" in report.failures[0][1]
    assert report.files_skipped == 3
    total = report.files_indexed + report.files_unchanged + report.files_failed
    assert total + report.files_skipped == files_on_disk(folder) == 10
    summary = {g["reason"]: g for g in report.skipped_summary()}
    assert summary["binary"]["count"] == 1 and summary["binary"]["types"] == {"no extension": 1}
    assert summary["format"]["count"] == 2
    assert summary["format"]["types"] == {".bin.gz": 1, ".so": 1}

    # the second run reads none of them again, and still accounts for every file
    again = engine.index([str(folder)])
    assert again.files_indexed == 0 and again.files_skipped == 3
    assert again.files_unchanged + again.files_skipped == files_on_disk(folder)

    # status sees the skipped files too, by reason with examples
    status = engine.manifest.skipped_summary()
    assert [(g["reason"], g["count"]) for g in status] == [("format", 2), ("binary", 1)]
    assert str(folder / "lantern" / "core") in status[1]["examples"]

    # a binary file that becomes text is indexed; a deleted skipped file is forgotten
    (folder / "lantern" / "core").write_text("Now the core file is a note about cedar.\n")
    (folder / "lantern" / "lib.so").unlink()
    third = engine.index([str(folder)])
    assert third.files_indexed == 1 and third.files_skipped == 1
    assert [(g["reason"], g["count"]) for g in engine.manifest.skipped_summary()] == [("format", 1)]
    assert engine.search("cedar core note", 1).hits[0].path.endswith("core")


def test_an_older_manifest_gains_the_skipped_list_on_open(tmp_path: Path) -> None:
    db = tmp_path / "manifest.sqlite3"
    Manifest(db).close()
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE skipped")
    conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema'")
    conn.commit()
    conn.close()
    reader = Manifest(db, readonly=True)  # not migrated yet: nothing skipped, no error
    assert reader.skipped_summary() == []
    reader.close()
    manifest = Manifest(db)
    version = manifest.conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0]
    assert int(version) == SCHEMA_VERSION == 7
    assert manifest.skipped_under(str(tmp_path)) == {}
    manifest.close()
