"""``footnotes index`` and ``status`` say what was skipped and why; a file named explicitly
that is skipped says why on stderr and exits 1."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.helpers import footnotes

pytestmark = pytest.mark.slow  # a real embedding model and index, several seconds


def make_docs(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "NEWS.gz").write_bytes(gzip.compress(b"The harbour beacon was repaired in May.\n"))
    (docs / "README").write_text("Read the lantern guide first.\n")
    (docs / "core").write_bytes(bytes(range(256)) * 4)
    (docs / "song.mp3").write_bytes(b"ID3" + bytes(200))
    return docs


def test_index_and_status_count_the_skipped_files(tmp_path: Path, cli_data_dir: Path) -> None:
    docs = make_docs(tmp_path)
    data = str(cli_data_dir)
    proc = footnotes("--data-dir", data, "index", str(docs), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["files_indexed"] == 2 and report["files_skipped"] == 2
    skipped = {g["reason"]: g for g in report["skipped"]}
    assert skipped["binary"]["count"] == 1
    assert skipped["binary"]["examples"] == [str(docs / "core")]
    assert skipped["format"]["types"] == {".mp3": 1}

    text = footnotes("--data-dir", data, "index", str(docs))
    assert text.stdout.startswith("4 files: 0 indexed, 2 unchanged")
    assert "2 skipped: 1 unknown binary (no extension 1)" in text.stdout

    status = json.loads(footnotes("--data-dir", data, "status", "--json").stdout)
    assert {(g["reason"], g["count"]) for g in status["skipped"]} == {("binary", 1), ("format", 1)}
    assert all({"reason", "count", "examples"} <= set(g) for g in status["skipped"])
    plain = footnotes("--data-dir", data, "status").stdout
    assert "Files: 4 (2 indexed, 0 failed, 2 skipped)" in plain
    assert "1 file in a format Footnotes does not read (.mp3 1)" in plain


def test_a_file_named_explicitly_that_is_skipped_says_why(tmp_path: Path, cli_data_dir) -> None:
    docs = make_docs(tmp_path)
    data = str(cli_data_dir)
    proc = footnotes("--data-dir", data, "index", str(docs / "core"))
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        f"footnotes: {docs / 'core'}: skipped: it holds binary data, not text, "
        "in no format Footnotes reads"
    )
    song = footnotes("--data-dir", data, "index", str(docs / "song.mp3"))
    assert song.returncode == 1 and ".mp3 files are not a format Footnotes reads" in song.stderr
    news = footnotes("--data-dir", data, "index", str(docs / "NEWS.gz"), "--json")
    assert news.returncode == 0 and json.loads(news.stdout)["files_indexed"] == 1
