"""SQLite FTS5 over chunk texts: schema, query building and BM25 search."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from app.core.text import WORD, query_terms

# External-content FTS5 table kept in step with `chunks` by triggers, so the chunk text is
# stored once and every manifest transaction updates the lexical index atomically with it.
SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF text ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
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
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms[:64])


def create_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(SCHEMA)


def search(conn: sqlite3.Connection, text: str, k: int) -> list[LexicalHit]:
    """Top-k chunk rows by BM25 for a free-text query."""
    query = build_query(text)
    if query is None or k <= 0:
        return []
    rows = conn.execute(
        "SELECT rowid, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ? "
        "ORDER BY s LIMIT ?",
        (query, k),
    ).fetchall()
    return [LexicalHit(int(r[0]), -float(r[1])) for r in rows]
