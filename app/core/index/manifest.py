"""SQLite manifest: watched folders, files (size, mtime, hash, status, error, kind) and chunks.

It is the source of truth for what is indexed; Chroma only holds one vector per distinct
chunk text (keyed by the text hash), so renames, moves and duplicate files cost no embedding.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from app.core.index import lexical, pending, schema, skipped
from app.core.index.records import ChunkRow, FileRecord, make_chunk_id
from app.core.index.roots import Roots, RootsFile
from app.core.index.schema import SCHEMA_VERSION
from app.core.index.skipped import SkippedFile, SkippedGroup
from app.core.index.transaction import transaction
from app.core.ingest.compressed import read_suffix
from app.core.ingest.context import embedding_text, file_label
from app.core.types import Chunk, Hit

__all__ = ["SCHEMA_VERSION", "ChunkRow", "FileRecord", "Manifest", "make_chunk_id"]

# Paths are stored as the file name's own bytes in a TEXT column. A name that is not valid
# UTF-8 (b"caf\xe9.txt") arrives from the OS as a str with surrogate escapes, which sqlite3
# refuses to bind; binding bytes and casting to TEXT stores the bytes unchanged, and the
# connection's text factory turns them back into the same str (os.fsdecode's rule).
PATH_SQL = "CAST(? AS TEXT)"  # binds a path given as ``path_bytes(path)``
path_bytes = os.fsencode
_db = path_bytes
_PATH = PATH_SQL
_decode_text = functools.partial(str, encoding="utf-8", errors="surrogateescape")


# A path at or below a folder: the folder itself, or a path between "folder/" and "folder0"
# ("0" is the byte after "/"). A byte range uses the path index, and unlike LIKE it is
# case-sensitive: /d/Notes never catches /d/notes.
_AT_OR_BELOW = f"(path = {_PATH} OR (path > {_PATH} AND path < {_PATH}))"


def _at_or_below(folder: str) -> tuple[bytes, bytes, bytes]:
    base = folder.rstrip("/")
    return _db(folder), _db(base + "/"), _db(base + "0")


class Manifest:
    """The manifest database; one connection, used from one thread at a time."""

    def __init__(
        self,
        path: Path,
        *,
        readonly: bool = False,
        busy_timeout_s: float = 30.0,
        frozen: bool = False,
    ) -> None:
        """``frozen``: read-only without the WAL's shared-memory file, for a disk too full to
        create it; the file as last written (no writer can change it meanwhile)."""
        self.path = Path(path)
        readonly = readonly or frozen
        if readonly:
            uri = f"file:{self.path}?mode=ro" + ("&immutable=1" if frozen else "")
            self.conn = sqlite3.connect(
                uri, uri=True, timeout=busy_timeout_s, check_same_thread=False, isolation_level=None
            )
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(
                self.path, timeout=busy_timeout_s, check_same_thread=False, isolation_level=None
            )
        self.conn.text_factory = _decode_text
        lexical.register(self.conn)  # the full-text triggers' own function
        self.conn.execute("PRAGMA foreign_keys = ON")
        self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        if not readonly:
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = NORMAL")
            schema.prepare(self.conn)  # creates a new file's tables, migrates an older one
        self._file_sql = f"SELECT {schema.file_columns(self.conn)} FROM files"
        self._chunk_cols = schema.chunk_columns(self.conn)
        self.roots = RootsFile(self.path.parent)  # what a rebuilt manifest reads again
        if not readonly:
            self._keep_roots()

    def _keep_roots(self) -> None:
        """A new manifest starts with the watched folders ``roots.json`` remembers (the one it
        replaces was damaged and set aside); a manifest from before ``roots.json`` existed
        writes its own folders and files there once."""
        has_rows = self.conn.execute(
            "SELECT EXISTS(SELECT 1 FROM folders) OR EXISTS(SELECT 1 FROM files)"
        ).fetchone()[0]
        if self.roots.exists():
            remembered = self.roots.load()
            if not has_rows and remembered.watched:
                with self.transaction() as c:
                    c.executemany(
                        f"INSERT OR IGNORE INTO folders(path, added_at) VALUES ({_PATH}, ?)",
                        [(_db(f), time.time()) for f in remembered.watched],
                    )
        elif has_rows:
            watched = self.folders()
            self.roots.save(Roots(watched, []))
            self.roots.indexed(self.files_under())

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception (Ctrl-C included)."""
        return transaction(self.conn)

    # -- folders -----------------------------------------------------------------------------
    def add_folder(self, path: str) -> bool:
        """Remember ``path`` as a watched folder; False if it already was."""
        with self.transaction() as c:
            cur = c.execute(
                f"INSERT OR IGNORE INTO folders(path, added_at) VALUES ({_PATH}, ?)",
                (_db(path), time.time()),
            )
        self.roots.watch(path)
        return cur.rowcount > 0

    def remove_folder(self, path: str) -> bool:
        """Forget ``path`` as a watched folder (its files stay until removed); False if unknown."""
        with self.transaction() as c:
            cur = c.execute(f"DELETE FROM folders WHERE path = {_PATH}", (_db(path),))
        self.roots.unwatch(path)
        return cur.rowcount > 0

    def folders(self) -> list[str]:
        """The watched folders, sorted."""
        return [r[0] for r in self.conn.execute("SELECT path FROM folders ORDER BY path")]

    # -- files -------------------------------------------------------------------------------
    def file(self, path: str) -> FileRecord | None:
        """The record of one file, or None if the manifest does not know it."""
        row = self.conn.execute(f"{self._file_sql} WHERE path = {_PATH}", (_db(path),)).fetchone()
        return FileRecord.from_row(row) if row else None

    def files_under(self, folder: str | None = None) -> dict[str, FileRecord]:
        """Every file record, or those at or below ``folder``."""
        if folder is None:
            rows = self.conn.execute(self._file_sql)
        else:
            rows = self.conn.execute(f"{self._file_sql} WHERE {_AT_OR_BELOW}", _at_or_below(folder))
        return {r[0]: FileRecord.from_row(r) for r in rows}

    def holds_files(self, folder: str) -> bool:
        """Whether any file at or below ``folder`` has a record."""
        sql = f"SELECT 1 FROM files WHERE {_AT_OR_BELOW} LIMIT 1"
        return self.conn.execute(sql, _at_or_below(folder)).fetchone() is not None

    def replace_file(
        self,
        record: FileRecord,
        chunks: Sequence[Chunk],
        ocr_pages: Sequence[int] = (),
        fresh: list[str] | None = None,
    ) -> list[str]:
        """Atomically store a file's row, its chunks and the pages OCR read; returns the text
        hashes it dropped. Texts new to the index are listed for the embedding stage (and
        added to ``fresh``)."""
        with self.transaction() as c:
            old = self._drop_chunks(c, record.path)
            skipped.drop(c, [record.path])
            c.execute(
                "INSERT INTO files(path, size, mtime_ns, hash, status, error, kind, pages, chunks,"
                " updated_at, error_kind, error_limit, format)"
                f" VALUES ({_PATH},?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(path) DO UPDATE SET "
                "size=excluded.size, mtime_ns=excluded.mtime_ns, hash=excluded.hash, "
                "status=excluded.status, error=excluded.error, kind=excluded.kind, "
                "pages=excluded.pages, chunks=excluded.chunks, updated_at=excluded.updated_at, "
                "error_kind=excluded.error_kind, error_limit=excluded.error_limit, "
                "format=excluded.format",
                (
                    _db(record.path),
                    record.size,
                    record.mtime_ns,
                    record.hash,
                    record.status,
                    record.error,
                    record.kind,
                    record.pages,
                    len(chunks),
                    time.time(),
                    record.error_kind,
                    record.error_limit,
                    record.format,
                ),
            )
            file_id = c.execute(
                f"SELECT id FROM files WHERE path = {_PATH}", (_db(record.path),)
            ).fetchone()[0]
            c.execute("DELETE FROM ocr_pages WHERE file_id = ?", (file_id,))
            c.executemany(
                "INSERT OR IGNORE INTO ocr_pages(file_id, page) VALUES (?, ?)",
                [(file_id, page) for page in ocr_pages],
            )
            label = file_label(record.path)
            c.executemany(
                "INSERT INTO chunks(chunk_id, file_id, page, start, end, text_hash, heading, text,"
                " context, label) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        make_chunk_id(record.path, ch.page, ch.start, ch.text_hash),
                        file_id,
                        ch.page,
                        ch.start,
                        ch.end,
                        ch.text_hash,
                        ch.heading,
                        ch.text,
                        ch.context,
                        label,
                    )
                    for ch in chunks
                ],
            )
            listed = pending.mark(c, file_id, (ch.text_hash for ch in chunks), old)
            if fresh is not None:
                fresh += listed
        return old

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        """Same content, new stat: remember the new size/mtime so it is not hashed again."""
        with self.transaction() as c:
            c.execute(
                f"UPDATE files SET size = ?, mtime_ns = ?, updated_at = ? WHERE path = {_PATH}",
                (size, mtime_ns, time.time(), _db(path)),
            )

    def remove_files(self, paths: Iterable[str]) -> list[str]:
        """Forget files and their chunks; returns the text hashes they referenced."""
        dropped: list[str] = []
        paths = list(paths)
        with self.transaction() as c:
            for path in paths:
                dropped += self._drop_chunks(c, path)
                c.execute(f"DELETE FROM files WHERE path = {_PATH}", (_db(path),))
            skipped.drop(c, paths)
        return dropped

    # -- skipped files ----------------------------------------------------------------------
    def skip_files(self, files: Sequence[SkippedFile]) -> list[str]:
        """Record files skipped on purpose (a file that was indexed loses its row and
        chunks); returns the text hashes dropped."""
        dropped: list[str] = []
        with self.transaction() as c:
            for f in files:
                dropped += self._drop_chunks(c, f.path)
                c.execute(f"DELETE FROM files WHERE path = {_PATH}", (_db(f.path),))
            skipped.put(c, files)
        return dropped

    def skipped_under(self, folder: str) -> dict[str, SkippedFile]:
        """The skipped files at or below ``folder``."""
        return skipped.under(self.conn, folder)

    def forget_skipped(self, paths: Iterable[str] = (), folders: Iterable[str] = ()) -> None:
        """Forget skipped rows: these paths, and everything at or below these folders."""
        with self.transaction() as c:
            skipped.drop(c, paths)
            for folder in folders:
                skipped.drop_under(c, folder)

    def skipped_summary(self, folders: Sequence[str] | None = None) -> list[SkippedGroup]:
        """Skipped files by reason (``skipped.summary``), under ``folders`` or everywhere."""
        return skipped.summary(self.conn, folders)

    def move(self, old: str, new: str, dropped: list[str] | None = None) -> int:
        """Re-point a file or folder at a new path, keeping every chunk; returns files moved."""
        moved = 0
        with self.transaction() as c:
            rows = c.execute(
                f"SELECT id, path FROM files WHERE {_AT_OR_BELOW}", _at_or_below(old)
            ).fetchall()
            for file_id, path in rows:
                target = new + path[len(old) :]
                replaced = self._drop_chunks(c, target)
                c.execute(f"DELETE FROM files WHERE path = {_PATH}", (_db(target),))
                if dropped is not None:  # a file the move overwrote: its texts may be garbage
                    dropped += replaced
                c.execute(f"UPDATE files SET path = {_PATH} WHERE id = ?", (_db(target), file_id))
                c.execute(
                    "UPDATE chunks SET label = ? WHERE file_id = ? AND label != ?",
                    (file_label(target), file_id, file_label(target)),
                )
                for row_id, page, start, text_hash in c.execute(
                    "SELECT id, page, start, text_hash FROM chunks WHERE file_id = ?", (file_id,)
                ).fetchall():
                    c.execute(
                        "UPDATE chunks SET chunk_id = ? WHERE id = ?",
                        (make_chunk_id(target, page, start, text_hash), row_id),
                    )
                moved += 1
            skipped.move(c, old, new)
        return moved

    @staticmethod
    def _drop_chunks(c: sqlite3.Connection, path: str) -> list[str]:
        """Delete a file's chunk rows inside the caller's transaction; returns their text hashes."""
        rows = c.execute(
            "SELECT c.text_hash FROM chunks c JOIN files f ON f.id = c.file_id "
            f"WHERE f.path = {_PATH}",
            (_db(path),),
        ).fetchall()
        c.execute(
            f"DELETE FROM chunks WHERE file_id = (SELECT id FROM files WHERE path = {_PATH})",
            (_db(path),),
        )
        return [r[0] for r in rows]

    # -- chunks ------------------------------------------------------------------------------
    def unreferenced(self, hashes: Iterable[str]) -> list[str]:
        """Those of ``hashes`` that no chunk row uses any more."""
        out = []
        for h in set(hashes):
            if (
                self.conn.execute(
                    "SELECT 1 FROM chunks WHERE text_hash = ? LIMIT 1", (h,)
                ).fetchone()
                is None
            ):
                out.append(h)
        return out

    def all_hashes(self) -> set[str]:
        """Every distinct chunk text hash (what the vector store should hold)."""
        return {r[0] for r in self.conn.execute("SELECT DISTINCT text_hash FROM chunks")}

    def file_hashes(self) -> set[str]:
        """Every known file content hash (what the OCR cache may keep results for)."""
        rows = self.conn.execute("SELECT DISTINCT hash FROM files WHERE hash IS NOT NULL")
        return {r[0] for r in rows}

    def texts_for_hashes(self, hashes: Iterable[str]) -> dict[str, str]:
        """What was embedded for each hash (context line and passage), to embed it again."""
        out: dict[str, str] = {}
        for h in hashes:
            row = self.conn.execute(
                "SELECT context, text FROM chunks WHERE text_hash = ? LIMIT 1", (h,)
            ).fetchone()
            if row:
                out[h] = embedding_text(row[0], row[1])
        return out

    def chunks_for_hashes(self, hashes: Sequence[str]) -> dict[str, list[ChunkRow]]:
        """Every chunk row with each of these text hashes (a text can sit in many files)."""
        out: dict[str, list[ChunkRow]] = {h: [] for h in hashes}
        for start in range(0, len(hashes), 500):
            part = list(hashes[start : start + 500])
            marks = ",".join("?" * len(part))
            for r in self.conn.execute(
                f"SELECT {self._chunk_cols} FROM chunks c JOIN files f ON f.id = c.file_id "
                f"WHERE c.text_hash IN ({marks}) ORDER BY f.path, c.page, c.start",
                part,
            ):
                out[r[6]].append(ChunkRow(*r))
        return out

    def chunks_by_rowid(self, row_ids: Sequence[int]) -> dict[int, ChunkRow]:
        """Chunk rows by their SQLite row id (what the full-text index returns)."""
        if not row_ids:
            return {}
        marks = ",".join("?" * len(row_ids))
        rows = self.conn.execute(
            f"SELECT {self._chunk_cols} FROM chunks c JOIN files f ON f.id = c.file_id "
            f"WHERE c.id IN ({marks})",
            list(row_ids),
        )
        return {r[0]: ChunkRow(*r) for r in rows}

    def opening(self, path: str, chars: int) -> str:
        """The start of a file's text: its first page's passages in reading order, about
        ``chars`` characters (where a filing states what it is)."""
        texts: list[str] = []
        held = 0
        for (text,) in self.conn.execute(
            "SELECT c.text FROM chunks c JOIN files f ON f.id = c.file_id "
            f"WHERE f.path = {_PATH} AND coalesce(c.page, 1) = 1 ORDER BY c.start",
            (_db(path),),
        ):
            texts.append(text)
            held += len(text)
            if held >= chars:
                break
        return "\n".join(texts)

    def chunks_of(self, path: str) -> list[ChunkRow]:
        """A file's chunk rows in reading order."""
        return [
            ChunkRow(*r)
            for r in self.conn.execute(
                f"SELECT {self._chunk_cols} FROM chunks c JOIN files f ON f.id = c.file_id "
                f"WHERE f.path = {_PATH} ORDER BY c.page, c.start",
                (_db(path),),
            )
        ]

    # -- status ------------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """Totals for ``status``: files, indexed, failed, chunks, distinct texts, folders."""
        c = self.conn
        return {
            "files": c.execute("SELECT COUNT(*) FROM files").fetchone()[0],
            "files_indexed": c.execute(
                "SELECT COUNT(*) FROM files WHERE status='indexed'"
            ).fetchone()[0],
            "files_failed": c.execute(
                "SELECT COUNT(*) FROM files WHERE status='failed'"
            ).fetchone()[0],
            "chunks": c.execute("SELECT COUNT(*) FROM chunks").fetchone()[0],
            "distinct_texts": c.execute("SELECT COUNT(DISTINCT text_hash) FROM chunks").fetchone()[
                0
            ],
            "folders_watched": c.execute("SELECT COUNT(*) FROM folders").fetchone()[0],
            "files_outdated": self.outdated(),
            "vectors_pending": pending.count(c),
            "chunks_waiting": pending.chunks_waiting(c),
            "pages_ocr": self.pages_ocr(),
            "index_format": schema.INDEX_FORMAT,
        }

    def pages_ocr(self) -> int:
        """Pages whose text OCR read, over all indexed files."""
        try:
            return int(self.conn.execute("SELECT COUNT(*) FROM ocr_pages").fetchone()[0])
        except sqlite3.OperationalError:  # an older file no writer has migrated yet
            return 0

    def mark_ocr(self, hits: Iterable[Hit]) -> None:
        """Set ``ocr`` on hits whose page OCR read."""
        for hit in hits:
            if hit.page is None:
                continue
            try:
                row = self.conn.execute(
                    "SELECT 1 FROM ocr_pages o JOIN files f ON f.id = o.file_id "
                    f"WHERE f.path = {_PATH} AND o.page = ?",
                    (_db(hit.path), hit.page),
                ).fetchone()
            except sqlite3.OperationalError:  # an older file no writer has migrated yet
                return
            hit.ocr = row is not None

    def raise_formats(self) -> int:
        """Raise in place the index format of indexed files that the formats after theirs
        do not concern (``schema.FORMAT_CONCERNS``): a script or a text file indexed with
        format 4 is what format 5, which changes how tables and paged files are read, builds.
        A file's type is the suffix it is read by (``read_suffix``: "minutes.pdf.txt" is text,
        "notes.md.gz" Markdown). Returns how many files were raised (each once, however many
        formats it went up); takes the write lock only when one is older."""
        raised: set[int] = set()
        try:
            older = "SELECT 1 FROM files WHERE status = 'indexed' AND format < ? LIMIT 1"
            if self.conn.execute(older, (schema.INDEX_FORMAT,)).fetchone() is None:
                return 0
            with transaction(self.conn):
                for fmt, ends in sorted(schema.FORMAT_CONCERNS.items()):
                    rows = self.conn.execute(
                        "SELECT id, path FROM files WHERE status = 'indexed' AND format = ?",
                        (fmt - 1,),
                    ).fetchall()
                    others = [(i,) for i, path in rows if read_suffix(path) not in ends]
                    self.conn.executemany(f"UPDATE files SET format = {fmt} WHERE id = ?", others)
                    raised.update(i for (i,) in others)
        except sqlite3.OperationalError:  # read-only, or a full disk: they are read again
            return 0
        return len(raised)

    def outdated(self) -> int:
        """Indexed files whose passages an older index format built (the next sync rebuilds)."""
        try:
            sql = "SELECT COUNT(*) FROM files WHERE status = 'indexed' AND format < ?"
            return int(self.conn.execute(sql, (schema.INDEX_FORMAT,)).fetchone()[0])
        except sqlite3.OperationalError:  # an older file no writer has migrated yet
            sql = "SELECT COUNT(*) FROM files WHERE status = 'indexed'"
            return int(self.conn.execute(sql).fetchone()[0])

    def failures(self) -> list[tuple[str, str]]:
        """Every failed file with its reason, sorted by path (``status`` lists them)."""
        return [
            (r[0], r[1] or "unknown error")
            for r in self.conn.execute(
                "SELECT path, error FROM files WHERE status = 'failed' ORDER BY path"
            )
        ]

    def check(self) -> list[str]:
        """Internal consistency problems (empty when healthy): FTS and chunk/file agreement."""
        problems = []
        c = self.conn
        if c.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            problems.append("SQLite integrity check failed")
        try:
            c.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
        except sqlite3.DatabaseError as exc:
            problems.append(f"full-text index disagrees with chunks: {exc}")
        bad = c.execute(
            "SELECT COUNT(*) FROM files f "
            "WHERE chunks != (SELECT COUNT(*) FROM chunks WHERE file_id = f.id)"
        ).fetchone()[0]
        if bad:
            problems.append(f"{bad} files whose chunk count disagrees with their chunks")
        return problems
