"""The full-text index of every script's words, and an index made before it migrated on open.

Schema version 6 gave SQLite's tokenizer the passages as they are: a run of Han or kana was one
token, so a word inside a Japanese sentence matched nothing. Version 7 indexes pairs of
characters for those scripts (``text.index_words``). An index that version 6 made is rebuilt
from its own stored passages the first time a writer opens it: nothing is read or embedded
again, and nothing is lost.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from app.core.index import lexical
from app.core.index.manifest import Manifest
from app.core.index.records import FileRecord
from app.core.index.schema import SCHEMA_VERSION
from app.core.types import Chunk
from tests.helpers import paragraph

JAPANESE = (
    "市立図書館の地下書庫には、明治時代の古地図や写真が保管されています。"
    "資料番号は四七七一です。閲覧には事前の予約が必要です。"
)
HINDI = "इस पुस्तकालय के तहखाने में पुराने नक्शे और दुर्लभ पांडुलिपियाँ सुरक्षित रखी गई हैं।"

# The full-text table and triggers exactly as schema version 6 created them.
VERSION_6_FTS = """
DROP TRIGGER IF EXISTS chunks_ai;
DROP TRIGGER IF EXISTS chunks_ad;
DROP TRIGGER IF EXISTS chunks_au;
DROP TABLE IF EXISTS chunks_fts;
DROP VIEW IF EXISTS chunks_fts_source;
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text, context, label, content='chunks', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text, context, label)
    VALUES (new.id, new.text, new.context, new.label);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, context, label)
    VALUES ('delete', old.id, old.text, old.context, old.label);
END;
CREATE TRIGGER chunks_au AFTER UPDATE OF text, context, label ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, context, label)
    VALUES ('delete', old.id, old.text, old.context, old.label);
    INSERT INTO chunks_fts(rowid, text, context, label)
    VALUES (new.id, new.text, new.context, new.label);
END;
INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');
UPDATE meta SET value = '6' WHERE key = 'schema';
"""


def write_docs(root: Path) -> Path:
    rng = random.Random(3)
    root.mkdir()
    for i in range(6):
        (root / f"note-{i}.md").write_text(f"# Note {i}\n\n{paragraph(rng, 90)}\n")
    (root / "archive-ja.txt").write_text(JAPANESE, encoding="utf-8")
    (root / "archive-hi.txt").write_text(HINDI, encoding="utf-8")
    return root


def rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT c.id, c.chunk_id, c.text_hash, c.text, c.context, c.label, f.path "
            "FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY c.id"
        ).fetchall()


def lexical_paths(manifest: Manifest, query: str) -> list[str]:
    found = lexical.search(manifest.conn, query, 5)
    by_row = manifest.chunks_by_rowid([h.row_id for h in found])
    return [Path(by_row[h.row_id].path).name for h in found]


@pytest.mark.slow  # indexes eight files with the real model, twice
def test_an_index_made_by_version_6_is_migrated_on_open_and_loses_nothing(
    tmp_path: Path, make_engine
) -> None:
    docs = write_docs(tmp_path / "docs")
    engine = make_engine("data")
    first = engine.index([str(docs)])
    engine.close()
    db = tmp_path / "data" / "manifest.sqlite3"
    with sqlite3.connect(db) as conn:  # what version 6 left on disk
        conn.executescript(VERSION_6_FTS)
    before = rows(db)
    old = Manifest(db, readonly=True)  # read as version 6 reads it: the word is not found
    assert "archive-ja.txt" not in lexical_paths(old, "資料番号")
    old.close()

    engine = make_engine("data")  # the first open by a writer migrates
    conn = engine.manifest.conn
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(
        SCHEMA_VERSION
    )
    assert rows(db) == before  # every passage kept, with its id, hash and vector key
    assert engine.manifest.check() == []
    assert conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0] == len(before)
    assert lexical_paths(engine.manifest, "資料番号")[0] == "archive-ja.txt"
    assert lexical_paths(engine.manifest, "पांडुलिपियाँ")[0] == "archive-hi.txt"
    assert Path(engine.search("資料番号", 3).hits[0].path).name == "archive-ja.txt"
    again = engine.index([str(docs)])  # nothing read again, nothing embedded again
    assert again.files_unchanged == first.files_indexed and again.chunks_embedded == 0

    # later writes keep the index in step with the passages: an edit, a removal
    (docs / "archive-ja.txt").write_text(JAPANESE.replace("四七七一", "五二〇八"), encoding="utf-8")
    (docs / "archive-hi.txt").unlink()
    engine.index([str(docs)])
    assert engine.manifest.check() == []
    assert lexical_paths(engine.manifest, "五二〇八") == ["archive-ja.txt"]
    assert lexical_paths(engine.manifest, "四七七一") == []
    assert lexical_paths(engine.manifest, "पांडुलिपियाँ") == []


def test_a_rename_reindexes_the_file_name_in_its_own_script(tmp_path: Path) -> None:
    """The file name (``label``) is indexed as words too: a renamed Japanese file is found
    by a word of its new name, not of its old one."""
    manifest = Manifest(tmp_path / "manifest.sqlite3")
    old, new = str(tmp_path / "会議メモ.txt"), str(tmp_path / "議事録.txt")
    record = FileRecord(path=old, size=5, mtime_ns=1, hash="h", status="indexed", chunks=1)
    manifest.replace_file(record, [Chunk(old, None, 0, 5, "notes", "t1")])
    assert lexical_paths(manifest, "会議") == ["会議メモ.txt"]
    manifest.move(old, new)
    assert lexical_paths(manifest, "議事録") == ["議事録.txt"]
    assert lexical_paths(manifest, "会議") == []
    assert manifest.check() == []
    manifest.close()


def test_a_query_is_split_as_the_index_is() -> None:
    # English reads as before: content words OR-ed, the parts of "FY2018" too
    assert lexical.build_query("What was the FY2018 capex of find_opt?") == (
        '"fy2018" OR "capex" OR "find_opt" OR "fy" OR "2018" OR "find" OR "opt"'
    )
    # a word of a script without spaces: its pairs, and the run as a phrase
    assert lexical.build_query("資料番号") == '"資料" OR "料番" OR "番号" OR "資料 料番 番号"'
    # a Chinese character alone also starts the pairs it is indexed in; a lone kana is no term
    assert lexical.build_query("猫は") == '"猫"*'


def test_a_single_character_and_a_pasted_sentence_find_their_passages(tmp_path: Path) -> None:
    manifest = Manifest(tmp_path / "manifest.sqlite3")
    texts = {
        "cat.txt": "黒い猫が窓辺で眠っています。",
        "archive.txt": JAPANESE,
        "other.txt": "閲覧には身分証明書が必要です。予約は不要です。",
    }
    for name, text in texts.items():
        path = str(tmp_path / name)
        record = FileRecord(path, len(text), 1, name, "indexed", chunks=1)
        manifest.replace_file(record, [Chunk(path, None, 0, len(text), text, name)])
    assert lexical_paths(manifest, "猫") == ["cat.txt"]
    pasted = "資料番号は四七七一です。閲覧には事前の予約が必要です。"
    [hit] = lexical.phrase_search(manifest.conn, pasted, 3)
    assert Path(manifest.chunks_by_rowid([hit.row_id])[hit.row_id].path).name == "archive.txt"
    manifest.close()


def test_a_program_without_the_index_function_cannot_write_passages_and_loses_none(
    tmp_path: Path,
) -> None:
    """The triggers call ``footnotes_words``: another program's write to ``chunks`` (a
    database browser) fails whole instead of leaving the full-text rows out of step."""
    db = tmp_path / "manifest.sqlite3"
    manifest = Manifest(db)
    path = str(tmp_path / "a.txt")
    manifest.replace_file(
        FileRecord(path, 4, 1, "h", "indexed", chunks=1), [Chunk(path, None, 0, 4, "手稿です", "t")]
    )
    manifest.close()
    other = sqlite3.connect(db)
    with pytest.raises(sqlite3.OperationalError, match="footnotes_words"):
        other.execute("DELETE FROM chunks")
    other.close()
    manifest = Manifest(db)
    assert manifest.check() == [] and lexical_paths(manifest, "手稿") == ["a.txt"]
    manifest.close()
