"""Bad input gets a sentence, not a traceback: long queries, hostile batch lines, stray bytes in
a query, and Ollama addresses that cannot be one, wherever they come from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from app.cli.common import MAX_BATCH_LINE, read_batch
from app.core.config import Settings
from app.core.search.query import MAX_QUERY_CHARS
from tests.helpers import footnotes

REPO = Path(__file__).resolve().parents[2]


def _write_lines(path: Path, *lines: bytes) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_each_batch_line_is_judged_alone(tmp_path: Path) -> None:
    """A deeply nested line, a non-UTF-8 line and a huge line each fail alone; the rest run."""
    batch = _write_lines(
        tmp_path / "q.jsonl",
        b'{"_id": "a", "text": "orchard ledger"}',
        b"[" * 60_000,  # under the size cap, far past the parser's depth
        b'{"_id": "b", "text": "caf\xe9 au lait"}',
        b'{"_id": "c", "text": "' + b"x" * (2 * MAX_BATCH_LINE) + b'"}',
        b"",
        b'{"_id": "d", "text": "river stone"}',
    )
    lines = list(read_batch(str(batch)))
    assert [(line.n, line.ident, line.text) for line in lines if line.error is None] == [
        (1, "a", "orchard ledger"),
        (6, "d", "river stone"),
    ]
    errors = {line.n: line.error or "" for line in lines if line.error}
    assert set(errors) == {2, 3, 4}
    assert "nested too deep" in errors[2]
    assert "not UTF-8" in errors[3]
    assert "64 KB" in errors[4] and f"{MAX_QUERY_CHARS:,}" in errors[4]


def test_a_huge_one_line_batch_is_never_held_in_memory(tmp_path: Path) -> None:
    """A 20 MB line is skipped a block at a time: memory stays near one block, not the file."""
    batch = tmp_path / "huge.jsonl"
    with batch.open("wb") as fh:
        fh.write(b'{"_id": 1, "text": "')
        for _ in range(20):
            fh.write(b"y" * 1_000_000)
        fh.write(b'"}\n{"_id": 2, "text": "after the huge line"}\n')
    tracemalloc.start()
    try:
        lines = list(read_batch(str(batch)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [line.error is None for line in lines] == [False, True]
    assert lines[1].text == "after the huge line"
    assert peak < 1_000_000


def test_a_query_over_the_cap_is_a_usage_error_naming_the_cap(cli_data_dir: Path) -> None:
    proc = footnotes("--data-dir", str(cli_data_dir), "search", "word " * 1_000)
    assert proc.returncode == 2
    assert f"at most {MAX_QUERY_CHARS:,}" in proc.stderr and "Traceback" not in proc.stderr


def test_search_refuses_a_long_query_with_a_sentence(make_engine) -> None:
    """The core entrance itself refuses, so every front end (batch, window) gets the cap."""
    from app.core.errors import QueryError

    engine = make_engine()
    with pytest.raises(QueryError, match=f"at most {MAX_QUERY_CHARS:,}"):
        engine.search("lantern " * 400)


def test_a_batch_line_over_the_cap_fails_alone(
    tmp_path: Path, cli_index: tuple[Path, Path, dict]
) -> None:
    data, _, _ = cli_index
    batch = tmp_path / "q.jsonl"
    batch.write_text(
        json.dumps({"_id": "long", "text": "copper " * 500})
        + "\n"
        + json.dumps({"_id": "ok", "text": "copper lantern"})
        + "\n"
    )
    proc = footnotes("--data-dir", str(data), "search", "--batch", str(batch))
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert f"at most {MAX_QUERY_CHARS:,}" in out[0]["error"]
    assert out[1]["_id"] == "ok" and out[1]["hits"]


def test_stray_bytes_in_a_query_are_searched(cli_index: tuple[Path, Path, dict]) -> None:
    """``footnotes search $'caf\\xe9 x'`` in a UTF-8 locale: a lone surrogate reaches us."""
    data, _, _ = cli_index
    query = os.fsdecode(b"copper caf\xe9 lantern")
    proc = footnotes("--data-dir", str(data), "search", query, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hits"]


def test_stray_bytes_encode_like_their_latin1_reading(embedder) -> None:
    """The int8 runner reads a non-UTF-8 byte as Windows-1252 instead of failing."""
    stray = embedder.encode([os.fsdecode(b"caf\xe9 au lait")])[0]
    assert stray == pytest.approx(embedder.encode(["café au lait"])[0], abs=1e-6)


def test_an_out_of_range_port_in_settings_is_a_settings_problem(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"ollama_host": "http://127.0.0.1:99999"}))
    settings = Settings.load(path)
    assert settings.ollama_host == Settings().ollama_host
    assert [p.key for p in settings.problems] == ["ollama_host"]
    assert "65535" in settings.problems[0].reason


def _run(env_host: str, *args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OLLAMA_HOST": env_host}
    return subprocess.run(
        [sys.executable, "-m", "app", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=300,
    )


@pytest.mark.slow
def test_a_bad_ollama_host_variable_is_a_sentence_not_a_crash(cli_data_dir: Path) -> None:
    """The ``ollama`` package reads $OLLAMA_HOST at import: a bad one must not crash there."""
    bad = "http://127.0.0.1:99999"
    given = _run(bad, "--ollama-host", "http://127.0.0.1:9", "ask", "hello", data=cli_data_dir)
    assert given.returncode == 0, given.stderr
    alone = _run(bad, "ask", "hello", data=cli_data_dir)
    assert alone.returncode == 1 and "Traceback" not in alone.stderr
    assert "$OLLAMA_HOST is not an Ollama address" in alone.stderr
    assert len(alone.stderr.strip().splitlines()) == 1


def test_a_batch_line_that_is_no_question_says_what_is_wrong_in_words(tmp_path: Path) -> None:
    """Not Python's exception text ("list indices must be integers or slices, not str",
    "'text'"): what the line holds, and what a line should be."""
    batch = _write_lines(
        tmp_path / "q.jsonl",
        b'{"_id": "a", "query": "orchard ledger"}',
        b'["orchard ledger"]',
        b'{"_id": "c", "text": 42}',
        b'{"_id": "d", "text": "orchard',
        b'{"_id": "e", "text": "river stone"}',
    )
    lines = list(read_batch(str(batch)))
    errors = {line.n: line.error or "" for line in lines if line.error}
    assert set(errors) == {1, 2, 3, 4}
    assert errors[1].startswith('line 1: no "text"') and '{"_id"' in errors[1]
    assert errors[2].startswith("line 2: an array, not an object")
    assert errors[3].startswith('line 3: "text" is not a question')
    assert errors[4].startswith("line 4: not JSON (") and "column" in errors[4]
    assert [line.ident for line in lines] == ["a", None, "c", None, "e"]
