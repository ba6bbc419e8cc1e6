"""Bad text and bad settings get a sentence: invalid UTF-8 in a question is read as search reads
it and said so in one line; a wrong embedding model says which names exist; JSON output keeps
no character that would steer a terminal; an IPv6 address left open is named as such."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_ollama import FakeOllama
from tests.helpers import footnotes


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(reply="It is in the notes [1].") as fake:
        yield fake


@pytest.fixture
def data(cli_index: tuple[Path, Path, dict], tmp_path: Path) -> Path:
    """A copy of the shared CLI index, history on (threads are written)."""
    copy = tmp_path / "data"
    shutil.copytree(cli_index[0], copy)
    settings = json.loads((copy / "settings.json").read_text())
    (copy / "settings.json").write_text(json.dumps({**settings, "history_enabled": True}))
    return copy


def short(stderr: str) -> None:
    """At most two lines, none a traceback, none the request's JSON."""
    assert "Traceback" not in stderr and '{"model"' not in stderr, stderr
    assert len(stderr.strip().splitlines()) <= 2 and len(stderr) < 600, stderr


def test_a_question_with_bytes_that_are_not_utf8_is_read_and_answered(
    data: Path, server: FakeOllama
) -> None:
    question = "caf\udce9 copper \udcff"  # what `ask "$(printf 'caf\xe9 copper \xff')"` gives
    done = footnotes("--data-dir", str(data), "--ollama-host", server.url, "ask", question)
    assert done.returncode == 0, done.stderr
    short(done.stderr)
    assert "not UTF-8 text; read as “café copper ÿ”" in done.stderr
    assert "It is in the notes" in done.stdout
    (asked,) = server.answers()
    assert "café copper" in json.dumps(asked.body, ensure_ascii=False)


def test_a_lone_surrogate_in_a_batch_line_costs_nothing(
    data: Path, server: FakeOllama, tmp_path: Path
) -> None:
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"_id": 1, "text": "copper \\ud800 lantern"}\n{"_id": 2, "text": "copper"}\n')
    done = footnotes(
        "--data-dir", str(data), "--ollama-host", server.url, "ask", "--batch", str(batch)
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["_id"] for line in lines] == [1, 2]
    assert all(line["error"] is None for line in lines), [line["error"] for line in lines]
    assert lines[0]["query"] == "copper \ufffd lantern"


def test_a_wrong_embedding_model_says_which_names_exist(data: Path) -> None:
    for wrong in ("all-MiniLM-L6-v3", "../../../models/mine"):
        settings = json.loads((data / "settings.json").read_text())
        (data / "settings.json").write_text(json.dumps({**settings, "embedding_model": wrong}))
        done = footnotes("--data-dir", str(data), "search", "copper lantern")
        assert done.returncode == 1
        short(done.stderr)
        assert repr(wrong) in done.stderr and "('all-MiniLM-L6-v2')" in done.stderr
        assert "set embedding_model" in done.stderr


def test_search_json_escapes_what_would_steer_a_terminal(data: Path) -> None:
    query = "copper \u202e lantern \u2028 \x9b"
    done = footnotes("--data-dir", str(data), "search", query, "--json")
    assert done.returncode == 0, done.stderr
    for raw in ("\u202e", "\u2028", "\x9b"):
        assert raw not in done.stdout
    assert "\\u202e" in done.stdout and json.loads(done.stdout)["query"] == query


def test_an_ipv6_address_without_its_bracket_is_named(data: Path) -> None:
    done = footnotes("--data-dir", str(data), "--ollama-host", "http://[::1", "status")
    assert done.returncode == 2
    assert "an IPv6 address is written in brackets" in done.stderr
    assert "invalid _ollama_address value" not in done.stderr
