"""The conversation store: threads of turns in one SQLite file in the data directory.

A turn keeps what is needed to show it again without the index: the question, the query
actually searched, the answer, each source's path, page, span, text and text hash, the verdict,
the sentence marks, the model and the time. Paths are stored as their file-system bytes, so a
name that is not valid UTF-8 comes back as the same path. Every database failure (locked,
corrupt, read-only) becomes one :class:`HistoryError` with a sentence a person can act on;
callers answer anyway. An answer stored before prompt markup was taken out of answers comes
back cleaned (``readable``), so no reader shows, exports or sends it on to the model again.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.errors import HistoryError
from app.core.prompt.answering import Answer, clean_answer
from app.core.types import Support

SCHEMA = """
CREATE TABLE IF NOT EXISTS threads (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS turns (
    thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    question TEXT NOT NULL,
    search_query TEXT NOT NULL,
    answer TEXT NOT NULL,
    verdict TEXT NOT NULL,
    sentences TEXT NOT NULL,
    model TEXT NOT NULL,
    error TEXT,
    created REAL NOT NULL,
    PRIMARY KEY (thread_id, n)
);
CREATE TABLE IF NOT EXISTS sources (
    thread_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    n INTEGER NOT NULL,
    path BLOB NOT NULL,
    page INTEGER,
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    text TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    heading TEXT,
    sent TEXT,
    PRIMARY KEY (thread_id, turn, n),
    FOREIGN KEY (thread_id, turn) REFERENCES turns(thread_id, n) ON DELETE CASCADE
);
"""
_TITLE_CHARS = 80


@dataclass
class StoredSource:
    """A source as it was when the answer was given (the file may have changed since)."""

    n: int
    path: str
    page: int | None
    start: int
    end: int
    text: str
    text_hash: str
    heading: str | None = None
    sent: list[list[int]] | None = None  # the [start, end] ranges the model read (None: all)


@dataclass
class Turn:
    """One question and its answer in a thread."""

    question: str
    search_query: str
    answer: str
    sources: list[StoredSource] = field(default_factory=list)
    verdict: dict[str, Any] = field(default_factory=dict)
    sentences: list[dict[str, Any]] = field(default_factory=list)
    model: str = ""
    error: str | None = None
    created: float = 0.0
    n: int = 0  # 1-based, set by the store


@dataclass
class ThreadInfo:
    """A thread as listed: ``threads list --json`` prints these keys."""

    id: str
    title: str
    turns: int
    updated: float

    def to_json(self) -> dict[str, object]:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.updated))
        return {"id": self.id, "title": self.title, "turns": self.turns, "updated": stamp}


def turn_from_answer(
    question: str, search_query: str, answer: Answer, support: Support | None = None
) -> Turn:
    """The storable turn for a finished answer, with the retrieval evidence it was judged on
    (kept with the verdict, so the turn shown again is judged on what it was)."""
    from app.core.text import text_hash
    from app.core.verdict.judge import judge
    from app.core.verdict.sentence import to_json_sentences

    verdict = answer.verdict or judge(None, answer.sentences, error=answer.error)
    sources = [
        StoredSource(
            s.n,
            s.hit.path,
            s.hit.page,
            s.hit.start,
            s.hit.end,
            s.hit.text,
            s.hit.text_hash or text_hash(s.hit.text),
            s.hit.heading,
            [list(r) for r in s.sent] if s.sent is not None else None,
        )
        for s in answer.sources
    ]
    return Turn(
        question=question,
        search_query=search_query,
        answer=answer.text,
        sources=sources,
        verdict={**verdict.to_json(), **({"support": support.to_json()} if support else {})},
        sentences=to_json_sentences(answer.sentences),
        model=answer.model,
        error=answer.error,
        created=time.time(),
    )


def readable(turn: Turn) -> Turn:
    """``turn`` as it is shown: an answer stored with prompt markup in it (before answers were
    cleaned) without it, its sentences marked again on the cleaned text; the verdict stays as
    it was given."""
    text = clean_answer(turn.answer)
    if text == turn.answer:
        return turn
    from app.core.verdict.marks import mark_sentences
    from app.core.verdict.sentence import to_json_sentences

    marks = to_json_sentences(mark_sentences(text, turn.sources, question=turn.question))
    return dataclasses.replace(turn, answer=text, sentences=marks)


class ThreadStore:
    """Threads and turns in SQLite; one short transaction per call, opened on first use."""

    def __init__(self, path: Path, busy_timeout_s: float = 2.0) -> None:
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()  # one connection, shared by the window's lanes

    # -- connection ----------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=self.busy_timeout_s, check_same_thread=False)
            try:
                conn.execute("PRAGMA foreign_keys = ON")
                conn.executescript(SCHEMA)
                columns = {row[1] for row in conn.execute("PRAGMA table_info(sources)")}
                if "sent" not in columns:  # a history from before sources were excerpted
                    conn.execute("ALTER TABLE sources ADD COLUMN sent TEXT")
            except sqlite3.Error:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                conn = self._connect()
                with conn:
                    yield conn
            except sqlite3.Error as exc:
                raise HistoryError(self._message(exc)) from exc

    def _message(self, exc: sqlite3.Error) -> str:
        text = str(exc)
        if "locked" in text or "busy" in text:
            return (
                f"the conversation history {self.path} is locked by another program; this "
                "answer was not saved to it. Close whatever holds the file and ask again."
            )
        if "not a database" in text or "malformed" in text:
            return (
                f"the conversation history {self.path} is damaged ({text}); answers still work "
                "but are not saved. Move the file away (or use Clear history) to start afresh."
            )
        return f"cannot use the conversation history {self.path}: {text}."

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- writing -------------------------------------------------------------------------
    def create(self, title: str) -> str:
        """A new, empty thread; its id (8 hex digits)."""
        with self._tx() as conn:
            return _insert_thread(conn, title)

    def start(self, title: str, turn: Turn) -> tuple[str, int]:
        """A new thread with ``turn`` as its first turn, in one transaction (a kill between
        the two never leaves an empty thread behind); its id and the turn's number."""
        with self._tx() as conn:
            thread_id = _insert_thread(conn, title)
            return thread_id, _insert_turn(conn, thread_id, turn)

    def add_turn(self, thread_id: str, turn: Turn) -> int:
        """Append ``turn`` to the thread; its 1-based number."""
        with self._tx() as conn:
            return _insert_turn(conn, thread_id, turn)

    def delete(self, thread_id: str) -> bool:
        """Remove a thread and its turns; False when there was no such thread."""
        with self._tx() as conn:
            conn.execute("DELETE FROM sources WHERE thread_id = ?", (thread_id,))
            conn.execute("DELETE FROM turns WHERE thread_id = ?", (thread_id,))
            return conn.execute("DELETE FROM threads WHERE id = ?", (thread_id,)).rowcount > 0

    def clear(self) -> int:
        """Remove every thread; how many there were."""
        with self._tx() as conn:
            count = int(conn.execute("SELECT COUNT(*) FROM threads").fetchone()[0])
            conn.execute("DELETE FROM sources")
            conn.execute("DELETE FROM turns")
            conn.execute("DELETE FROM threads")
        return count

    # -- reading -------------------------------------------------------------------------
    def list_threads(self, search: str = "") -> list[ThreadInfo]:
        """Threads, most recently updated first; ``search`` matches any question or query."""
        sql = (
            "SELECT t.id, t.title, COUNT(u.n), t.updated FROM threads t "
            "LEFT JOIN turns u ON u.thread_id = t.id "
        )
        params: tuple[str, ...] = ()
        if search.strip():
            sql += (
                "WHERE t.id IN (SELECT thread_id FROM turns WHERE question LIKE ? ESCAPE '\\' "
                "OR search_query LIKE ? ESCAPE '\\') OR t.title LIKE ? ESCAPE '\\' "
            )
            like = "%" + _escape_like(search.strip()) + "%"
            params = (like, like, like)
        sql += "GROUP BY t.id ORDER BY t.updated DESC, t.created DESC"
        with self._tx() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [ThreadInfo(r[0], r[1], int(r[2]), float(r[3])) for r in rows]

    def get(self, thread_id: str) -> ThreadInfo | None:
        for info in self._find(thread_id):
            return info
        return None

    def _find(self, thread_id: str) -> list[ThreadInfo]:
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT t.id, t.title, (SELECT COUNT(*) FROM turns WHERE thread_id = t.id), "
                "t.updated FROM threads t WHERE t.id = ?",
                (thread_id,),
            ).fetchall()
        return [ThreadInfo(r[0], r[1], int(r[2]), float(r[3])) for r in rows]

    def turns(self, thread_id: str, last: int | None = None) -> list[Turn]:
        """The thread's turns in order (only the ``last`` few when given)."""
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT n, question, search_query, answer, verdict, sentences, model, error, "
                "created FROM turns WHERE thread_id = ? ORDER BY n",
                (thread_id,),
            ).fetchall()
            if last is not None:
                rows = rows[-last:] if last > 0 else []
            srows = conn.execute(
                "SELECT turn, n, path, page, start, end, text, text_hash, heading, sent "
                "FROM sources WHERE thread_id = ? ORDER BY turn, n",
                (thread_id,),
            ).fetchall()
        by_turn: dict[int, list[StoredSource]] = {}
        for t, n, path, page, start, end, text, th, heading, sent in srows:
            raw = path if isinstance(path, bytes) else str(path).encode("utf-8", "surrogateescape")
            ranges = _ranges(_loads(sent, None)) if sent else None
            by_turn.setdefault(int(t), []).append(
                StoredSource(int(n), os.fsdecode(raw), page, start, end, text, th, heading, ranges)
            )
        return [
            readable(
                Turn(
                    question=r[1],
                    search_query=r[2],
                    answer=r[3],
                    sources=by_turn.get(int(r[0]), []),
                    verdict=_loads(r[4], {}),
                    sentences=_loads(r[5], []),
                    model=r[6],
                    error=r[7],
                    created=float(r[8]),
                    n=int(r[0]),
                )
            )
            for r in rows
        ]


def _loads(text: str, default: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return default


def _ranges(value: Any) -> list[list[int]] | None:
    """Stored [start, end] ranges, or None when the value is not such a list."""
    if isinstance(value, list) and all(
        isinstance(r, list) and len(r) == 2 and all(isinstance(x, int) for x in r) for r in value
    ):
        return value
    return None


def _title(question: str) -> str:
    text = " ".join(question.split())
    return text if len(text) <= _TITLE_CHARS else text[: _TITLE_CHARS - 1].rstrip() + "…"


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _insert_thread(conn: sqlite3.Connection, title: str) -> str:
    """Insert a new, empty thread (inside the caller's transaction); its id."""
    thread_id = secrets.token_hex(4)
    now = time.time()
    conn.execute(
        "INSERT INTO threads (id, title, created, updated) VALUES (?, ?, ?, ?)",
        (thread_id, _title(title), now, now),
    )
    return thread_id


def _insert_turn(conn: sqlite3.Connection, thread_id: str, turn: Turn) -> int:
    """Append ``turn`` to the thread (inside the caller's transaction); its number."""
    row = conn.execute(
        "SELECT COALESCE(MAX(n), 0) FROM turns WHERE thread_id = ?", (thread_id,)
    ).fetchone()
    n = int(row[0]) + 1
    created = turn.created or time.time()
    conn.execute(
        "INSERT INTO turns (thread_id, n, question, search_query, answer, verdict, "
        "sentences, model, error, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            thread_id,
            n,
            turn.question,
            turn.search_query,
            turn.answer,
            json.dumps(turn.verdict),
            json.dumps(turn.sentences),
            turn.model,
            turn.error,
            created,
        ),
    )
    conn.executemany(
        "INSERT INTO sources (thread_id, turn, n, path, page, start, end, text, "
        "text_hash, heading, sent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                thread_id,
                n,
                s.n,
                os.fsencode(s.path),
                s.page,
                s.start,
                s.end,
                s.text,
                s.text_hash,
                s.heading,
                json.dumps(s.sent) if s.sent is not None else None,
            )
            for s in turn.sources
        ],
    )
    conn.execute("UPDATE threads SET updated = ? WHERE id = ?", (created, thread_id))
    turn.n = n
    return n
