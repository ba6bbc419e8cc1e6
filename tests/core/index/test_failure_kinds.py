"""Failure kinds: produced where a file fails, stored beside the reason, deciding retries.

Retries are decided by kind (and, for a limit, by the limit's value then and now), never by
the words of the reason; a manifest written by schema version 1 (reasons only) is migrated on
open, its rows classified from their reasons once, so it keeps retrying exactly what it did.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pytest

from app.core.index import schema
from app.core.index.indexer import Indexer, Progress
from app.core.index.manifest import FileRecord, Manifest
from app.core.index.schema import SCHEMA_VERSION, legacy_failure
from app.core.ingest.failures import FailureKind, is_retried
from app.core.ingest.parsing import ParseLimits, limit_values, parse_file, too_large_reason
from app.core.ingest.scanning import IgnoreRules, scan
from tests.helpers import make_pdf

K = FailureKind

# Schema version 1, as shipped before failure kinds (the FTS table and triggers are unchanged).
V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE folders (path TEXT PRIMARY KEY, added_at REAL NOT NULL);
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT,
    status TEXT NOT NULL CHECK (status IN ('indexed', 'failed')),
    error TEXT,
    kind TEXT,
    pages INTEGER NOT NULL DEFAULT 0,
    chunks INTEGER NOT NULL DEFAULT 0,
    updated_at REAL NOT NULL
);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    chunk_id TEXT NOT NULL UNIQUE,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    page INTEGER,
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    text_hash TEXT NOT NULL,
    heading TEXT,
    text TEXT NOT NULL
);
CREATE INDEX chunks_file ON chunks(file_id);
CREATE INDEX chunks_hash ON chunks(text_hash);
INSERT INTO meta(key, value) VALUES ('schema', '1');
"""

# Reasons as version 1 stored them, with the kind and limit value the migration must give.
V1_REASONS: dict[str, tuple[FailureKind, str | None]] = {
    "permission denied": (K.PERMISSION, None),
    "the file disappeared before it could be read": (K.VANISHED, None),
    "it is a folder, not a file": (K.NOT_A_FILE, None),
    "it is not a regular file (a pipe, socket or device)": (K.SPECIAL_FILE, None),
    "it could not be read: Input/output error": (K.UNREADABLE, None),
    "folder could not be read: Permission denied": (K.FOLDER_UNREADABLE, None),
    "it is a symbolic link that loops back on itself": (K.BROKEN_LINK, None),
    "it is a symbolic link to a file that does not exist": (K.BROKEN_LINK, None),
    "it holds binary data, not text": (K.UNSUPPORTED, None),
    "the PDF is protected by a password": (K.ENCRYPTED, None),
    "the Word document is protected by a password or is an old .doc file": (K.ENCRYPTED, None),
    "it is not a valid PDF or it is damaged": (K.DAMAGED, None),
    "the PDF is incomplete: the end of the file is missing (cut short?)": (K.DAMAGED, None),
    "page 3 could not be read; the file may be damaged": (K.DAMAGED, None),
    "the file is empty": (K.DAMAGED, None),
    "it has no pages; the file may be damaged": (K.DAMAGED, None),
    "its structure is nested too deeply to read": (K.TOO_DEEP, None),
    "reading it needed more than the 3,072 MB memory limit": (K.MEMORY, None),
    "its text is too large to pass on": (K.MEMORY, None),
    "unexpected error while reading: ValueError('boom')": (K.PARSER_ERROR, None),
    "the document reader crashed on it (signal 9)": (K.PARSER_CRASH, None),
    "the document reader could not start": (K.READER_UNAVAILABLE, None),
    "it is larger than the 100 MB file size limit (setting max_file_mb)": (K.TOO_LARGE, "100"),
    "it is larger than the 0.01 MB file size limit (setting max_file_mb)": (K.TOO_LARGE, "0.01"),
    "it has 6,000 pages, more than the limit of 5,000 (setting max_pages)": (
        K.TOO_MANY_PAGES,
        "5000",
    ),
    "it would make 30,000 passages, more than the limit of 20,000 per file "
    "(setting max_chunks_per_file)": (K.TOO_MANY_PASSAGES, "20000"),
    "reading it took longer than the 120 s limit (setting parse_timeout_s)": (K.TIMEOUT, "120"),
    "something no version ever said": (K.UNKNOWN, None),
}


def test_version_1_reasons_are_classified() -> None:
    for reason, expected in V1_REASONS.items():
        assert legacy_failure(reason) == expected, reason
    assert legacy_failure(None) == (K.UNKNOWN, None)


def test_failures_carry_their_kind_from_where_they_happen(tmp_path: Path) -> None:
    limits = ParseLimits(max_pages=2, max_chunks=1, max_bytes=20_000)
    (tmp_path / "binary.txt").write_bytes(b"\x00\x01" * 100)
    make_pdf(tmp_path / "locked.pdf", ["Secret."], user_pw="hunter2")
    make_pdf(tmp_path / "three.pdf", ["One.", "Two.", "Three."])
    (tmp_path / "damaged.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    (tmp_path / "big.txt").write_text("A plain note. " * 2000)
    (tmp_path / "long.md").write_text("\n\n".join(f"Paragraph {i} " * 60 for i in range(20)))
    (tmp_path / "folder.md").mkdir()
    expected = {
        "gone.txt": K.VANISHED,
        "folder.md": K.NOT_A_FILE,
        "binary.txt": K.UNSUPPORTED,
        "locked.pdf": K.ENCRYPTED,
        "three.pdf": K.TOO_MANY_PAGES,
        "damaged.pdf": K.DAMAGED,
        "big.txt": K.TOO_LARGE,
        "long.md": K.TOO_MANY_PASSAGES,
    }
    for name, kind in expected.items():
        result = parse_file(str(tmp_path / name), None, limits)
        assert (result.error_kind, bool(result.error)) == (kind, True), (name, result.error)
        # The migration reads today's reasons as the kind they are produced with.
        assert legacy_failure(result.error)[0] is kind, (name, result.error)

    (tmp_path / "gone").symlink_to(tmp_path / "nowhere.md")
    (found,) = [fs for fs in scan(str(tmp_path), IgnoreRules([])) if fs.error]
    assert (found.path, found.error_kind) == (str(tmp_path / "gone"), K.BROKEN_LINK)


def test_retry_is_decided_by_kind_and_by_the_limit_then_and_now() -> None:
    now = limit_values(ParseLimits(timeout_s=120, max_pages=5000, max_bytes=100_000_000))
    assert is_retried(K.PERMISSION, None, now)
    assert is_retried(K.VANISHED, None, now) and is_retried(K.NOT_A_FILE, None, now)
    for kind in (K.DAMAGED, K.ENCRYPTED, K.PARSER_CRASH, K.MEMORY, K.UNKNOWN, None):
        assert not is_retried(kind, None, now)
    assert not is_retried(K.TOO_MANY_PAGES, "5000", now)
    assert is_retried(K.TOO_MANY_PAGES, "2", now)  # the limit was raised since
    assert not is_retried(K.TIMEOUT, "120", now) and is_retried(K.TIMEOUT, "1", now)
    assert not is_retried(K.TOO_LARGE, "100", now) and is_retried(K.TOO_LARGE, "40", now)
    no_size_limit = limit_values(ParseLimits(max_bytes=None))
    assert is_retried(K.TOO_LARGE, "100", no_size_limit)


class FakeEmbedder:
    """Constant vectors: these tests are about which files are read, not what they mean."""

    model_id = "fake"
    dim = 4

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        return np.ones((len(texts), self.dim), dtype=np.float32) / 2


class FakeStore:
    """Vectors kept in a dict."""

    def __init__(self) -> None:
        self.ids: set[str] = set()

    def existing(self, ids: Iterable[str]) -> set[str]:
        return self.ids & set(ids)

    def add(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        self.ids |= set(ids)

    def delete(self, ids: Iterable[str]) -> None:
        self.ids -= set(ids)

    def all_ids(self) -> set[str]:
        return set(self.ids)


def sync_reads(manifest: Manifest, folder: Path, limits: ParseLimits) -> list[str]:
    """Sync ``folder``; the names of the files it read again (or failed without reading)."""
    events: list[Progress] = []
    store = FakeStore()
    indexer = Indexer(
        manifest,
        FakeEmbedder,
        lambda: store,
        ignore=IgnoreRules([]),
        limits=limits,
        max_file_bytes=limits.max_bytes,
        progress=events.append,
    )
    try:
        indexer.sync([str(folder)])
    finally:
        indexer.close()
    return sorted(os.path.basename(p.path) for p in events if p.path)


def write_v1_manifest(path: Path, folder: Path, reasons: dict[str, str]) -> None:
    """A version 1 manifest where each file of ``folder`` failed earlier with a reason."""
    conn = sqlite3.connect(path)
    conn.executescript(V1_SCHEMA)
    for name, reason in reasons.items():
        st = os.stat(folder / name)
        conn.execute(
            "INSERT INTO files(path, size, mtime_ns, status, error, updated_at) "
            "VALUES (?, ?, ?, 'failed', ?, 0)",
            (str(folder / name), st.st_size, st.st_mtime_ns, reason),
        )
    conn.commit()
    conn.close()


def test_a_version_1_manifest_is_migrated_on_open_and_retries_as_before(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    reasons = {
        "locked.md": "permission denied",  # the person fixed the permissions since
        "moved.md": "the file disappeared before it could be read",
        "damaged.pdf": "it is not a valid PDF or it is damaged",
        "pages.pdf": "it has 9 pages, more than the limit of 2 (setting max_pages)",
        "raised.pdf": "it has 9 pages, more than the limit of 1 (setting max_pages)",
        "slow.txt": "reading it took longer than the 30 s limit (setting parse_timeout_s)",
        "odd.txt": "something no version ever said",
    }
    for name in reasons:
        (folder / name).write_text(f"A note called {name} about the harbour.\n")
    db = tmp_path / "manifest.sqlite3"
    write_v1_manifest(db, folder, reasons)

    reader = Manifest(db, readonly=True)  # no writer has migrated it yet: kinds read as none
    assert {r.error_kind for r in reader.files_under().values()} == {None}
    reader.close()

    manifest = Manifest(db)
    version = manifest.conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0]
    assert int(version) == SCHEMA_VERSION == 7
    records = manifest.files_under(str(folder))
    assert {os.path.basename(p): (r.error_kind, r.error_limit) for p, r in records.items()} == {
        "locked.md": (K.PERMISSION, None),
        "moved.md": (K.VANISHED, None),
        "damaged.pdf": (K.DAMAGED, None),
        "pages.pdf": (K.TOO_MANY_PAGES, "2"),
        "raised.pdf": (K.TOO_MANY_PAGES, "1"),
        "slow.txt": (K.TIMEOUT, "30"),
        "odd.txt": (K.UNKNOWN, None),
    }
    assert dict(manifest.failures()) == {str(folder / n): r for n, r in reasons.items()}
    manifest.close()
    Manifest(db).close()  # opening again changes nothing

    limits = ParseLimits(timeout_s=30, max_pages=2)  # generous: a loaded machine is slow
    manifest = Manifest(db)
    try:
        # The same files version 1 retried: what permissions or a move cure, and the files
        # whose limit has a new value; the rest wait until they change.
        assert sync_reads(manifest, folder, limits) == ["locked.md", "moved.md", "raised.pdf"]
        indexed = {os.path.basename(p) for p, r in manifest.files_under().items() if r.chunks}
        assert indexed == {"locked.md", "moved.md"}
        record = manifest.file(str(folder / "raised.pdf"))  # a text file named .pdf
        assert record is not None and (record.error_kind, record.error_limit) == (K.DAMAGED, None)
        assert sync_reads(manifest, folder, limits) == []
    finally:
        manifest.close()


def test_a_migration_stopped_midway_leaves_version_1_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "locked.md").write_text("A note.\n")
    db = tmp_path / "manifest.sqlite3"
    write_v1_manifest(db, folder, {"locked.md": "permission denied"})

    def interrupted(reason: str | None) -> tuple[FailureKind, str | None]:
        raise KeyboardInterrupt

    monkeypatch.setattr(schema, "legacy_failure", interrupted)
    with pytest.raises(KeyboardInterrupt):
        Manifest(db)
    conn = sqlite3.connect(db)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(files)")}
    version = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0]
    conn.close()
    assert "error_kind" not in columns and version == "1"  # the ALTER TABLE was rolled back

    monkeypatch.undo()
    manifest = Manifest(db)
    record = manifest.file(str(folder / "locked.md"))
    manifest.close()
    assert record is not None and record.error_kind is K.PERMISSION


def test_a_limit_failure_is_stored_with_its_value_and_retried_when_it_changes(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "big.txt").write_text("A plain note. " * 1500)  # 21,000 bytes
    make_pdf(folder / "three.pdf", ["Page one.", "Page two.", "Page three."])
    (folder / "small.md").write_text("A short note about kettles.\n")
    tight = ParseLimits(max_pages=2, max_bytes=10_000)
    manifest = Manifest(tmp_path / "manifest.sqlite3")
    try:
        assert sync_reads(manifest, folder, tight) == ["big.txt", "small.md", "three.pdf"]
        failed = {os.path.basename(p): r for p, r in manifest.files_under().items() if r.error}
        assert {n: (r.error_kind, r.error_limit) for n, r in failed.items()} == {
            "big.txt": (K.TOO_LARGE, "0.01"),
            "three.pdf": (K.TOO_MANY_PAGES, "2"),
        }
        assert failed["big.txt"].error == too_large_reason(10_000)
        assert sync_reads(manifest, folder, tight) == []  # same limits: not read again
        assert sync_reads(manifest, folder, ParseLimits(max_pages=2)) == ["big.txt"]
        assert sync_reads(manifest, folder, ParseLimits()) == ["three.pdf"]
        assert manifest.failures() == []
    finally:
        manifest.close()


@pytest.mark.parametrize("stored", ["permission", "a kind from a newer version"])
def test_a_stored_kind_reads_back_as_the_enum(tmp_path: Path, stored: str) -> None:
    manifest = Manifest(tmp_path / "manifest.sqlite3")
    try:
        record = FileRecord("/x.md", 1, 1, None, "failed", "why", error_kind=K.PERMISSION)
        manifest.replace_file(record, [])
        manifest.conn.execute("UPDATE files SET error_kind = ?", (stored,))
        got = manifest.file("/x.md")
        assert got is not None
        assert got.error_kind is (K.PERMISSION if stored == "permission" else K.UNKNOWN)
    finally:
        manifest.close()
