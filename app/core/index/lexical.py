"""SQLite FTS5 over chunk texts: schema, query building and BM25 search."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.text import WORD, query_terms

_ALNUM_PARTS = re.compile(r"[^\W\d_]+|\d+")

# External-content FTS5 table kept in step with `chunks` by triggers, so the chunk text is
# stored once and every manifest transaction updates the lexical index atomically with it.
# Three columns: the passage, its context line (title, heading path) and its file's name
# (``label``, rewritten when the file is renamed); a match in the passage weighs most.
SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, context, label, content='chunks', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text, context, label)
    VALUES (new.id, new.text, new.context, new.label);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, context, label)
    VALUES ('delete', old.id, old.text, old.context, old.label);
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF text, context, label ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, context, label)
    VALUES ('delete', old.id, old.text, old.context, old.label);
    INSERT INTO chunks_fts(rowid, text, context, label)
    VALUES (new.id, new.text, new.context, new.label);
END;
"""
# BM25 weights of the passage, its context line and its file name.
BM25 = "bm25(chunks_fts, 1.0, 0.5, 0.5)"
DROP = """
DROP TRIGGER IF EXISTS chunks_ai;
DROP TRIGGER IF EXISTS chunks_ad;
DROP TRIGGER IF EXISTS chunks_au;
DROP TABLE IF EXISTS chunks_fts;
"""


@dataclass(frozen=True)
class LexicalHit:
    """A chunk row found by BM25; ``score`` is positive, larger is better."""

    row_id: int
    score: float


def build_query(text: str) -> str | None:
    """An FTS5 MATCH expression: the question's content terms OR-ed, each quoted (no syntax)."""
    terms = query_terms(text)
    if not terms:
        terms = list(dict.fromkeys(WORD.findall(text.lower())))
    if not terms:
        return None
    # "FY2018" also matches "2018", "10k" stays whole: letters and digits are split apart too.
    pieces = [p for t in terms for p in _ALNUM_PARTS.findall(t) if p != t and len(p) > 1]
    terms = list(dict.fromkeys(terms + pieces))
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms[:64])


PHRASE_MIN_WORDS = 8  # a query this long may be a sentence copied from a file
_QUOTED = re.compile(r'["“”]([^"“”]{3,300})["“”]')


def phrases(text: str) -> list[str]:
    """Exact phrases to look for, most telling first: a long query as a whole (a sentence
    pasted from a file, quotation marks and all), then each quoted part of the query."""
    whole = [text] if len(WORD.findall(text)) >= PHRASE_MIN_WORDS else []
    quoted = [q for q in _QUOTED.findall(text) if len(WORD.findall(q)) >= 2 and q != text]
    return whole + quoted


def phrase_search(
    conn: sqlite3.Connection,
    text: str,
    k: int,
    within: tuple[str, Sequence[object]] | None = None,
) -> list[LexicalHit]:
    """Chunk rows whose passage holds one of the query's phrases word for word: those holding
    the whole of a long query first, then those holding a quoted part; BM25 order within.

    FTS5 tokenizes the phrase as it tokenized the passage, so punctuation and case do not
    matter; a phrase split between two passages matches neither.
    """
    found: dict[int, tuple[int, float]] = {}
    for rank, phrase in enumerate(phrases(text)):
        words = WORD.findall(phrase)
        match = 'text : "' + " ".join(words).replace('"', '""') + '"'
        for hit in _match(conn, match, k, within):
            found.setdefault(hit.row_id, (rank, hit.score))
    ordered = sorted(found.items(), key=lambda x: (x[1][0], -x[1][1]))
    return [LexicalHit(r, s) for r, (_, s) in ordered][:k]


def create_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(SCHEMA)


def search(
    conn: sqlite3.Connection,
    text: str,
    k: int,
    within: tuple[str, Sequence[object]] | None = None,
) -> list[LexicalHit]:
    """Top-k chunk rows by BM25 for a free-text query.

    ``within`` (an SQL condition on the file row ``f`` and its parameters) ranks only the
    chunks of those files: the FTS5 match is joined to ``chunks`` and ``files`` in the query,
    so a scope of any size costs one lookup per matching row instead of a list of row ids.
    """
    query = build_query(text)
    if query is None or k <= 0:
        return []
    return _match(conn, query, k, within)


def _match(
    conn: sqlite3.Connection,
    query: str,
    k: int,
    within: tuple[str, Sequence[object]] | None,
) -> list[LexicalHit]:
    """Run one FTS5 MATCH expression, best BM25 first."""
    if within is None:
        rows = conn.execute(
            f"SELECT rowid, {BM25} AS s FROM chunks_fts WHERE chunks_fts MATCH ? "
            "ORDER BY s LIMIT ?",
            (query, k),
        ).fetchall()
    else:
        where, params = within
        span = _span(conn, within)
        if span is None:
            return []
        # FTS5 scores only the rows in the span: a file's passages are written together, so
        # their row ids are one run, and BM25 for a named file costs as little as the file.
        rows = conn.execute(
            f"SELECT chunks_fts.rowid, {BM25} AS s FROM chunks_fts "
            "JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id "
            "WHERE chunks_fts MATCH ? AND chunks_fts.rowid BETWEEN ? AND ? "
            f"AND ({where}) ORDER BY s LIMIT ?",
            (query, *span, *params, k),
        ).fetchall()
    return [LexicalHit(int(r[0]), -float(r[1])) for r in rows]


def _span(conn: sqlite3.Connection, within: tuple[str, Sequence[object]]) -> tuple[int, int] | None:
    """The lowest and highest passage row id of the files ``within`` selects (None: none),
    two index lookups per file."""
    where, params = within
    lo, hi = conn.execute(
        "SELECT min((SELECT min(id) FROM chunks WHERE file_id = f.id)), "
        f"max((SELECT max(id) FROM chunks WHERE file_id = f.id)) FROM files f WHERE ({where})",
        params,
    ).fetchone()
    return None if lo is None else (int(lo), int(hi))
