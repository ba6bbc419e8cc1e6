"""How many passages of an index hold a word, counted by the lexical index itself (so a word
is normalised exactly as search normalises it): the rarity the support flag weighs terms by."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.core.index import lexical
from app.core.index.manifest import Manifest
from app.core.index.records import FileRecord
from app.core.search.termstats import FixedStats, LexicalStats, idf
from app.core.text import text_hash
from app.core.types import Chunk


def fts_conn(texts: list[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE TABLE chunks (id INTEGER PRIMARY KEY, text TEXT, context TEXT, label TEXT)"
    )
    lexical.create_schema(conn)
    for i, t in enumerate(texts, 1):
        conn.execute(
            "INSERT INTO chunks (id, text, context, label) VALUES (?, ?, '', 'notes')", (i, t)
        )
    return conn


def test_lexical_stats_count_passages_as_search_normalises_words() -> None:
    conn = fts_conn(["Zorblatt frequency is 4471.", "The frequency of a wave.", "Nothing here."])
    stats = LexicalStats(conn)
    assert stats.size() == 3
    assert stats.doc_freqs(["zorblatt", "frequencies", "4471", "absent"]) == {
        "zorblatt": 1,
        "frequencies": 2,  # stemmed like the lexical index stems
        "4471": 1,
        "absent": 0,
    }
    conn.execute("INSERT INTO chunks (id, text, context, label) VALUES (4, 'zorblatt', '', '')")
    assert stats.size() == 4 and stats.doc_freqs(["zorblatt"]) == {"zorblatt": 2}


def test_idf_is_scaled_and_rare_words_weigh_more() -> None:
    assert idf(0, 10_000) > idf(5, 10_000) > idf(5_000, 10_000) >= 0.0
    assert 0.0 <= idf(10_000, 10_000) < 0.1 and idf(0, 10_000) <= 1.0


def test_counts_come_from_a_real_manifests_passages_and_odd_words_count_none(
    tmp_path: Path,
) -> None:
    manifest = Manifest(tmp_path / "manifest.sqlite3")
    try:
        texts = ["Zorblatt frequency is 4471.", "The frequency of a wave."]
        chunks = [Chunk("/d/a.md", None, 0, len(t), t, text_hash(t)) for t in texts]
        manifest.replace_file(FileRecord("/d/a.md", 1, 1, "h", "indexed"), chunks)
        stats = LexicalStats(manifest.conn)
        assert stats.size() == 2
        # a quote, a word the tokenizer makes nothing of: counted as none, never an error
        assert stats.doc_freqs(["frequency", '"', 'a"b', ""]) == {
            "frequency": 2,
            '"': 0,
            'a"b': 0,
            "": 0,
        }
        manifest.remove_files(["/d/a.md"])
        assert stats.size() == 0 and stats.doc_freqs(["frequency"]) == {"frequency": 0}
    finally:
        manifest.close()


def test_given_counts_answer_for_every_word_asked() -> None:
    stats = FixedStats(100, {"company": 90})
    assert stats.size() == 100
    assert stats.doc_freqs(["company", "zorblatt"]) == {"company": 90, "zorblatt": 0}


def test_an_empty_index_makes_every_word_rare() -> None:
    assert idf(0, 0) == 1.0
