"""The manifest's tables, and the migration that brings an older manifest up to date on open.

Version 1 had only the human reason of a failure; version 2 adds its kind and, for a limit
failure, the limit's value (``files.error_kind``, ``files.error_limit``). Old rows are
classified from their reason text once, here, and never again. Version 3 stores each
passage's context line and its file's name beside it, indexes both for BM25, and records
which index format each file's passages were built with (``files.format``): a file built
with an older format is read and embedded again by the next sync, while search goes on
over what is there. Version 4 records which pages of each file OCR read (``ocr_pages``), so
hits from them say so and ``status`` counts them. Version 5 lists the texts whose vector is
still to be computed (``index.pending``), so passages are searchable by their words before
their vectors exist, and records which embedding model built the vectors (``meta``).
Version 6 lists the files skipped on purpose (``index.skipped``: binary data, formats with no
reader), so every file on disk is counted. Version 7 indexes the words of every script
(``lexical``: pairs of characters where a script has no spaces, combining marks kept in their
word); its full-text rows are rebuilt from the passages already stored, so nothing is read or
embedded again.
"""

from __future__ import annotations

import re
import sqlite3

from app.core.index import lexical, pending, skipped
from app.core.ingest.context import file_label
from app.core.ingest.failures import FailureKind
from app.core.ingest.images import IMAGE_SUFFIXES

SCHEMA_VERSION = 7
# What each passage's vector is made of. 1: the passage alone; 2: its context line and the
# passage (``ingest.context``); 3: a PDF page's own title joins its heading path
# (``context.page_title``); 4: tables kept whole (a PDF row on one line, leaders and page
# furniture left out; column heads in the heading path of a long table's parts); 5: a PDF
# row whose amounts' currency signs MuPDF sets on the figure before them ("14,189    $") is a
# table's row, years beside each other at the top of a page are column heads, not page
# numbers, and no part of a table (in any format) ends right after its column heads. A file
# whose rows are older is rebuilt by the next sync.
INDEX_FORMAT = 6
# The paged formats MuPDF lays out (``ingest.pdflayout``): PDF, EPUB, images read by OCR.
PAGED_SUFFIXES = (".pdf", ".epub", *IMAGE_SUFFIXES)
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")
# The formats that change only what files of some types are read as (by how their names end,
# a compressed one's inner name too): a file of another type indexed with the format before
# is what this format builds, so its format is raised in place, nothing read or embedded
# (``Manifest.raise_formats``). Formats not named here concern every file. Format 5: the
# paged formats and the formats with tables. Format 6: the paged formats (figures set side by
# side on one line, and a "$" after a figure, are cells of their own) and Markdown (an indented
# table starts a passage of its own).
FORMAT_CONCERNS: dict[int, tuple[str, ...]] = {
    5: (
        *PAGED_SUFFIXES,
        *MARKDOWN_SUFFIXES,
        ".html",
        ".htm",
        ".xhtml",
        ".docx",
        ".csv",
        ".tsv",
    ),
    6: (*PAGED_SUFFIXES, *MARKDOWN_SUFFIXES),
}

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS folders (path TEXT PRIMARY KEY, added_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS files (
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
    updated_at REAL NOT NULL,
    error_kind TEXT,
    error_limit TEXT,
    format INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    chunk_id TEXT NOT NULL UNIQUE,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    page INTEGER,
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    text_hash TEXT NOT NULL,
    heading TEXT,
    text TEXT NOT NULL,
    context TEXT NOT NULL DEFAULT '',
    label TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(text_hash);
CREATE TABLE IF NOT EXISTS ocr_pages (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    page INTEGER NOT NULL,
    PRIMARY KEY (file_id, page)
) WITHOUT ROWID;
"""
OCR_PAGES_SCHEMA = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS ocr_pages") :]

FILE_COLUMNS = (
    "path, size, mtime_ns, hash, status, error, kind, pages, chunks, error_kind, error_limit, "
    "format"
)
CHUNK_COLUMNS = (
    "c.id, c.chunk_id, f.path, c.page, c.start, c.end, c.text_hash, c.heading, c.text, c.context"
)
# Read-only over an older file that no writer has migrated yet: what it lacks reads as empty.
_V1_FILE_COLUMNS = "path, size, mtime_ns, hash, status, error, kind, pages, chunks, NULL, NULL, 1"
_V2_FILE_COLUMNS = (
    "path, size, mtime_ns, hash, status, error, kind, pages, chunks, error_kind, error_limit, 1"
)
_V2_CHUNK_COLUMNS = CHUNK_COLUMNS.replace("c.context", "''")


def stored_version(conn: sqlite3.Connection) -> int | None:
    """The stored schema version (None for a new file), read without the write lock."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError:  # no meta table yet
        return None
    return int(row[0]) if row else None


def prepare(conn: sqlite3.Connection) -> None:
    """Create the tables of a new manifest, or migrate an older one (a writable open only).

    Only a new or older file takes the write lock, so opening a current index (status,
    search) works while another program holds a write transaction.
    """
    version = stored_version(conn)
    if version is None:
        # executescript commits first, so the schema gets its own BEGIN ... COMMIT.
        conn.executescript(
            f"BEGIN IMMEDIATE; {SCHEMA} {lexical.SCHEMA} {pending.SCHEMA} {skipped.SCHEMA} "
            "INSERT OR IGNORE INTO meta(key, value) "
            f"VALUES ('schema', '{SCHEMA_VERSION}'); COMMIT;"
        )
    elif version < SCHEMA_VERSION:
        _migrate(conn)


def file_columns(conn: sqlite3.Connection) -> str:
    """The SELECT list that reads a ``FileRecord``, for whichever version the file has."""
    names = {row[1] for row in conn.execute("PRAGMA table_info(files)")}
    if "format" in names or not names:
        return FILE_COLUMNS
    return _V2_FILE_COLUMNS if "error_kind" in names else _V1_FILE_COLUMNS


def chunk_columns(conn: sqlite3.Connection) -> str:
    """The SELECT list that reads a ``ChunkRow`` (``c`` chunks joined with ``f`` files)."""
    names = {row[1] for row in conn.execute("PRAGMA table_info(chunks)")}
    return CHUNK_COLUMNS if "context" in names or not names else _V2_CHUNK_COLUMNS


def _migrate(conn: sqlite3.Connection) -> None:
    """Bring an older manifest to this version in one transaction (any step fails: none)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = stored_version(conn)  # another program may have migrated it while we waited
        if version is not None and version < 2:
            conn.execute("ALTER TABLE files ADD COLUMN error_kind TEXT")
            conn.execute("ALTER TABLE files ADD COLUMN error_limit TEXT")
            rows = conn.execute("SELECT id, error FROM files WHERE status = 'failed'").fetchall()
            conn.executemany(
                "UPDATE files SET error_kind = ?, error_limit = ? WHERE id = ?",
                [(*legacy_failure(error), file_id) for file_id, error in rows],
            )
            conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
        if version is not None and version < 3:
            _add_context_columns(conn)
            conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")
        if version is not None and version < 4:
            conn.execute(OCR_PAGES_SCHEMA)
            conn.execute("UPDATE meta SET value = '4' WHERE key = 'schema'")
        if version is not None and version < 5:
            conn.execute(pending.SCHEMA)
            conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema'")
        if version is not None and version < 6:
            _add_skipped(conn)
            conn.execute("UPDATE meta SET value = '6' WHERE key = 'schema'")
        if version is not None and version < 7:
            _rebuild_lexical(conn)
            conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema'")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _add_skipped(conn: sqlite3.Connection) -> None:
    """Version 5 -> 6: the list of skipped files (empty: before it, files whose name said
    nothing of their format were never looked at, so the next sync finds them)."""
    conn.execute(skipped.SCHEMA)


def _rebuild_lexical(conn: sqlite3.Connection) -> None:
    """Version 6 -> 7: the full-text index of every script's words, from the stored passages
    (the tokenizer and the text it is given change; the passages and vectors do not)."""
    for statement in _statements(lexical.DROP + lexical.SCHEMA):
        conn.execute(statement)
    conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")


def _add_context_columns(conn: sqlite3.Connection) -> None:
    """Version 2 -> 3: context and file-name columns, the three-column FTS index, formats.

    The passages keep their old vectors (format 1) until the next sync rebuilds them.
    """
    conn.execute("ALTER TABLE chunks ADD COLUMN context TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE chunks ADD COLUMN label TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE files ADD COLUMN format INTEGER NOT NULL DEFAULT 1")
    for file_id, path in conn.execute("SELECT id, path FROM files").fetchall():
        conn.execute("UPDATE chunks SET label = ? WHERE file_id = ?", (file_label(path), file_id))
    for statement in _statements(lexical.DROP + lexical.SCHEMA):
        conn.execute(statement)
    conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")


def _statements(script: str) -> list[str]:
    """A script's statements one by one (executescript would commit the open transaction)."""
    out, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    return out


# How version 1 worded each limit failure, with the limit's value as it was then.
_LEGACY_LIMITS = (
    (FailureKind.TOO_LARGE, re.compile(r"the (\S+) MB file size limit \(setting max_file_mb\)")),
    (FailureKind.TOO_MANY_PAGES, re.compile(r"limit of ([\d,]+) \(setting max_pages\)")),
    (
        FailureKind.TOO_MANY_PASSAGES,
        re.compile(r"limit of ([\d,]+) per file \(setting max_chunks_per_file\)"),
    ),
    (FailureKind.TIMEOUT, re.compile(r"the (\S+) s limit \(setting parse_timeout_s\)")),
)
# Reason beginnings of version 1 (and of today) for every other kind, most specific first.
_LEGACY_STARTS = (
    ("permission denied", FailureKind.PERMISSION),
    ("the file disappeared", FailureKind.VANISHED),
    ("it is a folder, not a file", FailureKind.NOT_A_FILE),
    ("it is not a regular file", FailureKind.SPECIAL_FILE),
    ("it could not be read:", FailureKind.UNREADABLE),
    ("folder could not be read", FailureKind.FOLDER_UNREADABLE),
    ("it is a symbolic link", FailureKind.BROKEN_LINK),
    ("it holds binary data", FailureKind.UNSUPPORTED),
    ("reading it needed more than", FailureKind.MEMORY),
    ("its text is too large to pass on", FailureKind.MEMORY),
    ("its structure is nested too deeply", FailureKind.TOO_DEEP),
    ("unexpected error while reading", FailureKind.PARSER_ERROR),
    ("the document reader crashed", FailureKind.PARSER_CRASH),
    ("the document reader could not start", FailureKind.READER_UNAVAILABLE),
    ("it is larger than", FailureKind.TOO_LARGE),  # no setting named: no value
)
_LEGACY_CONTAINS = (
    ("not a supported format", FailureKind.UNSUPPORTED),
    ("protected by a password", FailureKind.ENCRYPTED),
    ("not a valid", FailureKind.DAMAGED),
    ("damaged", FailureKind.DAMAGED),
    ("the file is empty", FailureKind.DAMAGED),
    ("is incomplete", FailureKind.DAMAGED),
)


def legacy_failure(reason: str | None) -> tuple[FailureKind, str | None]:
    """The kind (and, for a limit, its value then) of a version 1 reason; migration only."""
    if reason is None:
        return FailureKind.UNKNOWN, None
    for kind, pattern in _LEGACY_LIMITS:
        match = pattern.search(reason)
        if match:
            return kind, match.group(1).replace(",", "")
    for start, kind in _LEGACY_STARTS:
        if reason.startswith(start):
            return kind, None
    for part, kind in _LEGACY_CONTAINS:
        if part in reason:
            return kind, None
    return FailureKind.UNKNOWN, None
