"""How many passages of an index hold a word: the rarity the support flag weighs terms by.

Counted by the lexical index itself (an FTS5 match per word, about a millisecond), so a word
is normalised exactly as search normalises it. A word every filing repeats ("company",
"fiscal") weighs little; a name, a code or a number that few passages hold weighs much.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Protocol


class TermStats(Protocol):
    """Passage counts of an index: its size, and per word the passages that hold it."""

    def size(self) -> int: ...

    def doc_freqs(self, words: Iterable[str]) -> dict[str, int]: ...


class LexicalStats:
    """Counts from the FTS5 table of one manifest connection, cached per word."""

    def __init__(self, conn: sqlite3.Connection, cache_size: int = 4096) -> None:
        self.conn = conn
        self._cache: dict[str, int] = {}
        self._cache_size = cache_size
        self._size: int | None = None

    def size(self) -> int:
        count = int(self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
        if count != self._size:  # the index changed: counts read before are stale
            self._cache.clear()
            self._size = count
        return count

    def doc_freqs(self, words: Iterable[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for word in words:
            if word not in self._cache:
                if len(self._cache) >= self._cache_size:
                    self._cache.clear()
                self._cache[word] = self._count(word)
            out[word] = self._cache[word]
        return out

    def _count(self, word: str) -> int:
        try:
            row = self.conn.execute(
                "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
                ('"' + word.replace('"', '""') + '"',),
            ).fetchone()
        except sqlite3.Error:  # a word the tokenizer turns into nothing, or no FTS table
            return 0
        return int(row[0])


class FixedStats:
    """Counts given up front (recorded with development rows, or built by a test)."""

    def __init__(self, size: int, counts: Mapping[str, int]) -> None:
        self._size = size
        self._counts = dict(counts)

    def size(self) -> int:
        return self._size

    def doc_freqs(self, words: Iterable[str]) -> dict[str, int]:
        return {w: self._counts.get(w, 0) for w in words}


def idf(df: int, size: int) -> float:
    """Inverse document frequency scaled to [0, 1]: 1 for a word no passage holds (or one
    passage of a large index), 0 for a word every passage holds."""
    if size <= 0:
        return 1.0
    return max(0.0, math.log((size + 1) / (df + 0.5))) / math.log(2 * (size + 1))
