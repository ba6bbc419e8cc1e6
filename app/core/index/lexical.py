"""SQLite FTS5 over chunk texts: schema, query building and BM25 search.

The index holds the words of ``text.words``: SQLite's tokenizer reads a script written with
spaces as ``words`` does (``categories`` keeps combining marks in their word, so Hindi and
Thai words are not cut at a vowel sign), and a text in a script written without spaces (Han,
kana, Hangul, Thai...) reaches the tokenizer as its pairs of characters (``index_words``,
registered on each connection as the SQL function ``footnotes_words``). A query is split by
the same function, so "手稿" finds "…古老的地图和手稿，…", which the tokenizer alone reads as
one token from "古" to "稿".
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.text import Word, alnum_parts, index_words, query_terms, word_alone, words

TOKENIZE = "porter unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
# External-content FTS5 table kept in step with `chunks` by triggers, so the chunk text is
# stored once and every manifest transaction updates the lexical index atomically with it.
# Three columns: the passage, its context line (title, heading path) and its file's name
# (``label``, rewritten when the file is renamed); a match in the passage weighs most. Its
# content is a view of `chunks` as the tokenizer is given them (``footnotes_words``), so a
# rebuild and the integrity check read what the triggers wrote.
SCHEMA = f"""
CREATE VIEW IF NOT EXISTS chunks_fts_source(id, text, context, label) AS
    SELECT id, footnotes_words(text), footnotes_words(context), footnotes_words(label)
    FROM chunks;
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, context, label, content='chunks_fts_source', content_rowid='id',
    tokenize="{TOKENIZE}"
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text, context, label) VALUES (
        new.id, footnotes_words(new.text), footnotes_words(new.context),
        footnotes_words(new.label)
    );
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, context, label) VALUES (
        'delete', old.id, footnotes_words(old.text), footnotes_words(old.context),
        footnotes_words(old.label)
    );
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF text, context, label ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, context, label) VALUES (
        'delete', old.id, footnotes_words(old.text), footnotes_words(old.context),
        footnotes_words(old.label)
    );
    INSERT INTO chunks_fts(rowid, text, context, label) VALUES (
        new.id, footnotes_words(new.text), footnotes_words(new.context),
        footnotes_words(new.label)
    );
END;
"""
# BM25 weights of the passage, its context line and its file name.
BM25 = "bm25(chunks_fts, 1.0, 0.5, 0.5)"
DROP = """
DROP TRIGGER IF EXISTS chunks_ai;
DROP TRIGGER IF EXISTS chunks_ad;
DROP TRIGGER IF EXISTS chunks_au;
DROP TABLE IF EXISTS chunks_fts;
DROP VIEW IF EXISTS chunks_fts_source;
"""


def register(conn: sqlite3.Connection) -> None:
    """Give ``conn`` the function the index's triggers and view call (every connection that
    may write passages, rebuild or check the index; a search needs none)."""
    conn.create_function("footnotes_words", 1, _index_words, deterministic=True)
    # A function of the application in a trigger or a view: allowed where SQLite was built
    # to trust only functions marked innocuous, which Python's sqlite3 cannot mark.
    conn.execute("PRAGMA trusted_schema = ON")


def _index_words(value: str | bytes | int | float | None) -> str | bytes | int | float | None:
    """``index_words`` for SQL: a NULL (or a number) passes unchanged."""
    return index_words(value) if isinstance(value, str) else value


@dataclass(frozen=True)
class LexicalHit:
    """A chunk row found by BM25; ``score`` is positive, larger is better."""

    row_id: int
    score: float


MAX_TERMS = 64
MAX_RUN_PAIRS = 8  # a longer run of pairs is a clause, not a word: no phrase of it


def build_query(text: str) -> str | None:
    """An FTS5 MATCH expression: the question's content terms OR-ed, each quoted (no syntax).

    In a script written without spaces the terms are pairs of characters (``words``); the
    whole run they come from is OR-ed too, as a phrase ("資料 料番 番号"), so a passage holding
    the word as written leads one holding its pairs apart. One Chinese character or Korean
    syllable alone is looked for as a prefix: it also starts the pairs it is indexed in.
    """
    terms = query_terms(text)
    if not terms:
        terms = list(dict.fromkeys(w.text.lower() for w in words(text)))
    if not terms:
        return None
    # "FY2018" also matches "2018", "10k" stays whole: letters and digits are split apart too.
    pieces = [p for t in terms for p in alnum_parts(t) if p != t and len(p) > 1]
    terms = list(dict.fromkeys(terms + pieces))[:MAX_TERMS]
    out = [_quoted(t) + ("*" if _single_unit(t) else "") for t in terms]
    out += [_quoted(" ".join(w.text.lower() for w in run)) for run in _pair_runs(words(text))]
    return " OR ".join(dict.fromkeys(out))


def _quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _single_unit(term: str) -> bool:
    """A one-character word of a script written without spaces ("猫", "책")."""
    return len(term) == 1 and not term.isdigit() and word_alone(term)


def _pair_runs(found: list[Word]) -> list[list[Word]]:
    """The runs of overlapping pairs (one run of a script written without spaces each), of
    two pairs up to ``MAX_RUN_PAIRS``."""
    runs: list[list[Word]] = []
    current: list[Word] = []
    for w in found:
        if current and w.start < current[-1].end:
            current.append(w)
            continue
        if 1 < len(current) <= MAX_RUN_PAIRS:
            runs.append(current)
        current = [w]
    if 1 < len(current) <= MAX_RUN_PAIRS:
        runs.append(current)
    return runs


PHRASE_MIN_WORDS = 8  # a query this long may be a sentence copied from a file
_QUOTED = re.compile(r'["“”]([^"“”]{3,300})["“”]')


def phrases(text: str) -> list[str]:
    """Exact phrases to look for, most telling first: a long query as a whole (a sentence
    pasted from a file, quotation marks and all), then each quoted part of the query."""
    whole = [text] if len(words(text)) >= PHRASE_MIN_WORDS else []
    quoted = [q for q in _QUOTED.findall(text) if len(words(q)) >= 2 and q != text]
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
        match = "text : " + _quoted(" ".join(w.text for w in words(phrase)))
        for hit in _match(conn, match, k, within):
            found.setdefault(hit.row_id, (rank, hit.score))
    ordered = sorted(found.items(), key=lambda x: (x[1][0], -x[1][1]))
    return [LexicalHit(r, s) for r, (_, s) in ordered][:k]


def create_schema(conn: sqlite3.Connection) -> None:
    """The full-text table, its view and triggers, on a connection given their function."""
    register(conn)
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
