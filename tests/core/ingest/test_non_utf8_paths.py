"""A file whose name is not valid UTF-8 can be cited like any other.

Its name reaches Python as lone surrogates (``os.fsdecode``): the stored path keeps the
name's own bytes, while the prompt, ``ask --json`` and the window's source list show it
legibly with U+FFFD. The folder holds only that file, so it is the first source whatever
the ranking (which differs between CPUs).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.prompt.answering import answer_question
from tests.fake_ollama import FakeOllama

NAME = b"caf\xe9 notes.md"  # Latin-1 "café notes.md": not UTF-8
LEGIBLE = "caf\ufffd notes.md"
QUESTION = "What is the zorblatt frequency?"
TEXT = "# Lab notes\n\nThe zorblatt frequency of the café resonator is 4471 hertz.\n"


@pytest.fixture
def indexed(tmp_path: Path, make_engine):
    docs = tmp_path / "docs"
    docs.mkdir()
    raw = os.path.join(os.fsencode(docs), NAME)
    with open(raw, "wb") as fh:
        fh.write(TEXT.encode("utf-8"))
    engine = make_engine()
    report = engine.index([str(docs)])
    assert report.files_indexed == 1 and report.files_failed == 0
    return engine, os.fsdecode(raw)


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(echo=True) as fake:
        yield fake


def test_prompt_names_the_file_legibly_and_the_answer_comes_back(indexed, server) -> None:
    engine, path = indexed
    hits = engine.search(QUESTION).hits
    assert hits and hits[0].path == path  # the key is still the file's own bytes
    answer = answer_question(QUESTION, hits, host=server.url, model="llama3.2", timeout_s=10)
    assert answer.error is None, answer.error
    assert "4471" in answer.text
    prompt = server.chats()[0].body["messages"][-1]["content"]
    assert f'file="{LEGIBLE}"' in prompt


def test_ask_json_carries_the_source_with_a_legible_name(indexed, server, capsys) -> None:
    from app.cli.ask import run
    from app.core.api import Footnotes

    engine, path = indexed
    engine.settings.ollama_host = server.url
    args = argparse.Namespace(question=QUESTION, k=None, model=None, json=True)
    assert run(args, Footnotes(engine.data.root, engine=engine)) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["error"] is None and "4471" in out["answer"]
    source = out["sources"][0]
    assert source["path"] == path and os.fsencode(source["path"]).endswith(NAME)
    assert source["display_path"].endswith(LEGIBLE)


def test_the_window_lists_the_source_by_its_legible_name(indexed, qtbot) -> None:
    from PySide6.QtCore import Qt

    from app.ui.sources_panel import SourcesPanel

    engine, _ = indexed
    panel = SourcesPanel()
    qtbot.addWidget(panel)
    panel.set_hits(engine.search(QUESTION).hits)
    model = panel.model()
    first = model.index(0, 0)
    assert model.data(first, Qt.ItemDataRole.DisplayRole) == f"[1] {LEGIBLE}"
    assert LEGIBLE in model.data(first, Qt.ItemDataRole.ToolTipRole)
