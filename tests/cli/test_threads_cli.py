"""``footnotes ask --thread`` and ``footnotes threads ...`` in this process, on a small real corpus
and the stand-in Ollama server."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tests.fake_ollama import FakeOllama
from tests.helpers import footnotes

FIRST = "How often should the chain on a road bicycle be replaced?"
FOLLOW_UP = "Why does it matter?"


@pytest.fixture(autouse=True)
def no_ollama_host_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)


@pytest.fixture
def data(cli_index: tuple[Path, Path, dict], tmp_path: Path) -> Path:
    """A copy of the shared index, so that threads written here stay here."""
    copy = tmp_path / "data"
    shutil.copytree(cli_index[0], copy, ignore=shutil.ignore_patterns("threads.sqlite3*"))
    settings = json.loads((copy / "settings.json").read_text())
    (copy / "settings.json").write_text(json.dumps({**settings, "history_enabled": True}))
    return copy


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(echo=True) as fake:
        yield fake


def run(data: Path, host: str, *args: str) -> subprocess.CompletedProcess[str]:
    return footnotes("--data-dir", str(data), "--ollama-host", host, *args)


def ask(data: Path, server: FakeOllama, *args: str) -> dict:
    proc = run(data, server.url, "ask", *args, "-k", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_follow_up_is_searched_in_the_context_of_the_first_turn(
    data: Path, server: FakeOllama
) -> None:
    first = ask(data, server, FIRST)
    assert first["turn"] == 1 and first["search_query"] == FIRST and first["thread"]
    assert server.rewrites() == []  # a first turn is searched as typed

    # The echo server's reply to the rewrite is an answer, not a query: the merge is searched.
    second = ask(data, server, FOLLOW_UP, "--thread", first["thread"])
    assert (second["thread"], second["turn"]) == (first["thread"], 2)
    assert second["search_method"] == "fallback"
    assert {"chain", "bicycle"} <= set(second["search_query"].lower().split())
    assert second["query"] == second["search_query"]
    assert second["hits"][0]["path"].endswith("bikes.txt")
    [rewrite] = server.rewrites()
    prompt = rewrite.body["messages"][-1]["content"]
    assert FIRST in prompt and "three thousand kilometres" in prompt and FOLLOW_UP in prompt
    # the last turns go with the sources: after them (so a follow-up's prompt starts as the
    # first turn's did), before the question
    user = server.answers()[-1].body["messages"][-1]["content"]
    earlier = user.index(f"Earlier question: {FIRST}")
    assert user.index("</sources>") < earlier < user.index(f"Question: {FOLLOW_UP}")


def test_a_new_question_in_a_thread_starts_a_new_thread_searched_as_typed(
    data: Path, server: FakeOllama
) -> None:
    """A question of its own must not borrow the last turn's terms or its thread: merged,
    "Who painted the Sistine Chapel?" found the bicycle note and looked supported, and a small
    model repeated the earlier answer sent with it. ``--follow-up`` keeps it in the thread."""
    first = ask(data, server, FIRST)
    question = "Who painted the ceiling of the Sistine Chapel?"
    proc = run(data, server.url, "ask", question, "--thread", first["thread"], "-k", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    second = json.loads(proc.stdout)
    assert second["thread"] != first["thread"] and second["turn"] == 1
    assert second["new_topic_from"] == first["thread"]
    assert "new thread" in proc.stderr and "--follow-up" in proc.stderr
    assert second["search_query"] == question and second["search_method"] == "as_typed"
    assert second["support"]["supported"] is False
    assert second["verdict"]["level"] == "unsupported"
    assert "Earlier question" not in server.answers()[-1].body["messages"][-1]["content"]

    kept = ask(data, server, question, "--thread", first["thread"], "--follow-up")
    assert (kept["thread"], kept["turn"], kept["new_topic_from"]) == (first["thread"], 2, None)


def test_the_model_rewrite_is_searched_when_it_is_a_query(data: Path, server: FakeOllama) -> None:
    first = ask(data, server, FIRST)
    server.rewrite_reply = "why does replacing a road bicycle chain matter"
    second = ask(data, server, FOLLOW_UP, "--thread", first["thread"])
    assert second["search_method"] == "model"
    assert second["search_query"] == "why does replacing a road bicycle chain matter"
    assert second["hits"][0]["path"].endswith("bikes.txt")


def test_a_rewrite_that_times_out_falls_back(data: Path, server: FakeOllama) -> None:
    settings = json.loads((data / "settings.json").read_text())
    (data / "settings.json").write_text(json.dumps({**settings, "rewrite_timeout_s": 0.5}))
    first = ask(data, server, FIRST)
    server.rewrite_reply, server.rewrite_delay = "bicycle chain", 30.0
    second = ask(data, server, FOLLOW_UP, "--thread", first["thread"])
    assert second["search_method"] == "fallback" and "0.5 s" in second["search_note"]
    assert second["hits"][0]["path"].endswith("bikes.txt") and second["answer"]


def test_threads_list_show_export_delete(data: Path, server: FakeOllama) -> None:
    first = ask(data, server, FIRST)
    ask(data, server, FOLLOW_UP, "--thread", first["thread"])
    other = ask(data, server, "What do tomatoes need?")

    # Each command is a fresh engine and store: the threads persisted.
    proc = run(data, server.url, "threads", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert [t["id"] for t in listed] == [other["thread"], first["thread"]]
    assert all(set(t) >= {"id", "title", "turns", "updated"} for t in listed)
    assert listed[1]["turns"] == 2 and listed[1]["title"] == FIRST

    proc = run(data, server.url, "threads", "show", first["thread"])
    assert proc.returncode == 0 and FOLLOW_UP in proc.stdout and "Searched for:" in proc.stdout

    proc = run(data, server.url, "threads", "export", first["thread"])
    assert proc.returncode == 0, proc.stderr
    markdown = proc.stdout
    assert MarkdownIt("commonmark").parse(markdown)
    refs = re.findall(r"\[\^(\d+)\](?!:)", markdown)
    defs = dict(re.findall(r"^\[\^(\d+)\]: (.*)$", markdown, re.MULTILINE))
    assert refs and set(refs) == set(defs)
    for definition in defs.values():  # every footnote quotes a real passage of a real file
        link = re.match(r"\[(.*?)\]\(file://(\S+)\)", definition)
        quote = re.search(r"“(.*)”", definition)
        assert link and quote
        text = " ".join(Path(link.group(2)).read_text().split())
        assert quote.group(1).rstrip("…") in text

    proc = run(data, server.url, "threads", "delete", first["thread"])
    assert proc.returncode == 0
    proc = run(data, server.url, "threads", "list", "--json")
    assert [t["id"] for t in json.loads(proc.stdout)] == [other["thread"]]


@pytest.mark.parametrize("command", [["ask", FIRST, "--thread"], ["threads", "show"]])
def test_an_unknown_thread_exits_1_naming_how_to_list(
    data: Path, server: FakeOllama, command: list[str]
) -> None:
    proc = run(data, server.url, *command, "nosuch00")
    assert proc.returncode == 1
    assert "nosuch00" in proc.stderr and "footnotes threads list" in proc.stderr
    assert server.chats() == []


def test_a_corrupt_history_never_stops_an_answer(data: Path, server: FakeOllama) -> None:
    (data / "threads.sqlite3").write_bytes(b"garbage, not SQLite " * 300)
    proc = run(data, server.url, "ask", FIRST, "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "three thousand" in out["answer"] and out["thread"] is None and out["turn"] == 1
    assert "damaged" in proc.stderr
    assert run(data, server.url, "threads", "list").returncode == 1


def test_history_off_keeps_nothing(data: Path, server: FakeOllama) -> None:
    settings = json.loads((data / "settings.json").read_text())
    (data / "settings.json").write_text(json.dumps({**settings, "history_enabled": False}))
    out = ask(data, server, FIRST)
    assert out["thread"] is None and out["search_query"] == FIRST and out["answer"]
    assert not (data / "threads.sqlite3").exists()


def test_a_question_no_answer_came_back_for_is_not_kept(data: Path, server: FakeOllama) -> None:
    """With Ollama down, asking leaves no empty thread behind, and a follow-up that failed
    leaves its thread as it was."""
    down = "http://127.0.0.1:9"
    proc = run(data, down, "ask", FIRST, "-k", "3", "--json")
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["thread"] is None and out["answered"] is False and out["answer"] == ""
    assert json.loads(run(data, server.url, "threads", "list", "--json").stdout) == []
    text = run(data, down, "ask", FIRST, "-k", "3")
    assert "Thread " not in text.stdout  # no "follow up with" for a thread that is not there

    first = ask(data, server, FIRST)
    assert first["answered"] is True
    again = run(data, down, "ask", FOLLOW_UP, "--thread", first["thread"], "-k", "3", "--json")
    assert again.returncode == 1 and json.loads(again.stdout)["thread"] is None
    (listed,) = json.loads(run(data, server.url, "threads", "list", "--json").stdout)
    assert listed["id"] == first["thread"] and listed["turns"] == 1
