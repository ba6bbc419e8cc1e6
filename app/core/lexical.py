"""SQLite FTS5 over chunk texts: schema, query building and BM25 search."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

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

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours
    yourself yourselves
    """.split()  # noqa: SIM905
)

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class LexicalHit:
    """A chunk row found by BM25; ``score`` is positive, larger is better."""

    row_id: int
    score: float


def content_terms(text: str) -> list[str]:
    """Lower-cased words of a question without stopwords, in order, without repeats."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word not in STOPWORDS and (len(word) > 1 or word.isdigit()):
            seen.setdefault(word, None)
    return list(seen)


def build_query(text: str) -> str | None:
    """An FTS5 MATCH expression: the question's content terms OR-ed, each quoted (no syntax)."""
    terms = content_terms(text)
    if not terms:
        terms = list(dict.fromkeys(_WORD.findall(text.lower())))
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
