"""``footnotes ask`` and ``doctor`` (run in this process) against a stand-in Ollama server."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_ollama import FakeOllama
from tests.helpers import footnotes

QUESTION = "How often should the chain on a road bicycle be replaced?"


def run(data: Path, host: str, *args: str) -> subprocess.CompletedProcess[str]:
    return footnotes("--data-dir", str(data), "--ollama-host", host, *args)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(autouse=True)
def no_ollama_host_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)


@pytest.fixture
def indexed(cli_index: tuple[Path, Path, dict]) -> Path:
    """A CLI-built index (torch backend, like ``cli_data_dir``) shared by the read-only tests."""
    return cli_index[0]


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(echo=True) as fake:
        yield fake


def test_ask_json_has_answer_sources_verdict_and_marks(indexed: Path, server: FakeOllama) -> None:
    proc = run(indexed, server.url, "ask", QUESTION, "-k", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for key in ("query", "hits", "support", "answer", "model", "sources", "sentences", "error"):
        assert key in out
    assert out["error"] is None and out["model"] == "llama3.2"
    assert "three thousand kilometres" in out["answer"] and "[1]" in out["answer"]
    # one decisive passage: it alone is sent (the others stay in "hits"); numbers are ranks
    assert [h["rank"] for h in out["hits"]] == [1, 2, 3]
    assert [s["n"] for s in out["sources"]] == [1]
    assert out["sources"][0]["path"].endswith("bikes.txt")
    assert out["support"]["supported"] is True and out["support"]["reason"]
    assert out["sentences"] and out["sentences"][0]["supported"] is True
    assert out["sentences"][0]["sources"] == [1]
    chat = server.chats()[0].body
    assert chat["model"] == "llama3.2" and "three thousand" in chat["messages"][-1]["content"]


def test_ask_prints_answer_and_sources_as_text(indexed: Path, server: FakeOllama) -> None:
    proc = run(indexed, server.url, "ask", QUESTION, "--model", "llama3.2:latest")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Supported")
    assert "three thousand kilometres" in proc.stdout
    assert "Sources:" in proc.stdout and "[1] " in proc.stdout and "bikes.txt" in proc.stdout


def test_ask_with_ollama_down_exits_1_and_still_prints_sources(indexed: Path) -> None:
    proc = run(indexed, f"http://127.0.0.1:{free_port()}", "ask", QUESTION, "--json")
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "not running" in lines[0] and "ollama serve" in lines[0]
    out = json.loads(proc.stdout)
    assert out["error"] and "not running" in out["error"]
    assert out["hits"] and out["sources"][0]["n"] == 1
    assert out["support"]["supported"] is True and out["answer"] == ""


def test_refuse_mode_does_not_ask_the_model_when_unsupported(
    cli_index: tuple[Path, Path, dict], cli_data_dir: Path, server: FakeOllama
) -> None:
    shutil.copytree(cli_index[0], cli_data_dir, dirs_exist_ok=True)  # the corpus, embedded once
    settings = json.loads((cli_data_dir / "settings.json").read_text())
    (cli_data_dir / "settings.json").write_text(
        json.dumps({**settings, "unsupported_mode": "refuse", "history_enabled": True})
    )
    assert run(cli_data_dir, server.url, "index", str(cli_index[1])).returncode == 0
    proc = run(
        cli_data_dir,
        server.url,
        "ask",
        "Which symphony did Gustav Mahler leave unfinished?",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["support"]["supported"] is False and out["answered"] is False
    assert out["answer"] == "" and out["error"] is None and out["sources"]
    assert server.chats() == []
    assert out["thread"] is None  # nothing was answered: no thread of "(no answer)" kept


def test_doctor_all_ok(indexed: Path, server: FakeOllama) -> None:
    proc = run(indexed, server.url, "doctor")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.strip().splitlines()
    checks = {line.split(None, 1)[1].split(":")[0] for line in lines}
    assert all(line.startswith("ok ") for line in lines), lines
    assert {"support flag", "privacy"} <= checks and len(lines) >= 8
    assert any(line.split(None, 1)[1].startswith("support flag: ") for line in lines)
    assert "0.6.5" in proc.stdout and "manifest and vector store agree" in proc.stdout


def test_doctor_reports_each_problem_on_its_line(cli_data_dir: Path) -> None:
    with FakeOllama(models=["qwen2.5:latest"]) as fake:
        proc = run(cli_data_dir, fake.url, "doctor")
    # the default model missing while another chat model answers: a warning, not a failure
    assert proc.returncode == 0 and proc.stderr == ""
    (line,) = [ln for ln in proc.stdout.splitlines() if "ollama pull llama3.2" in ln]
    assert line.startswith("warning") and "meanwhile qwen2.5:latest answers" in line
    down = run(cli_data_dir, f"http://127.0.0.1:{free_port()}", "doctor")
    assert down.returncode == 1
    problems = [ln for ln in down.stdout.splitlines() if ln.startswith("problem")]
    assert len(problems) == 2 and "ollama serve" in problems[0]


def test_doctor_names_a_watched_folder_that_cannot_be_read(
    cli_data_dir: Path, server: FakeOllama, tmp_path: Path
) -> None:
    drive = tmp_path / "usb"
    drive.mkdir()
    assert run(cli_data_dir, server.url, "folders", "add", str(drive)).returncode == 0
    drive.rmdir()  # unplugged
    proc = run(cli_data_dir, server.url, "doctor")
    assert proc.returncode == 1
    (line,) = [ln for ln in proc.stdout.splitlines() if ln.split()[1] == "folders:"]
    assert line.startswith("problem") and str(drive) in line and "stay in the index" in line


@pytest.mark.slow  # indexes a folder and runs three processes (about 12 s)
def test_a_source_the_model_read_in_part_says_so(tmp_path: Path, server: FakeOllama) -> None:
    """Eight statements of similar score are over the sources' budget: those after the best
    are sent as their rows about the question, and the text output and the JSON say so."""
    docs = tmp_path / "statements"
    docs.mkdir()
    rows = [
        "Net income", "Depreciation and amortization", "Stock-based compensation",
        "Changes in inventories", "Purchases of property, plant and equipment",
        "Proceeds from sale of property", "Acquisitions, net of cash acquired",
        "Purchases of marketable securities", "Dividends paid", "Repayment of debt",
    ]  # fmt: skip
    for year in range(2011, 2019):
        cells = [
            f"{row}\n{(i + 3) * year // 7:,}\n{(i + 5) * year // 9:,}" for i, row in enumerate(rows)
        ]
        text = f"Statement of cash flows {year}\n(Millions)\n{year}\n{year - 1}\n" + "\n".join(
            cells
        )
        (docs / f"cash-flows-{year}.txt").write_text(text + "\n", encoding="utf-8")
    data = tmp_path / "data"
    assert footnotes("--data-dir", str(data), "index", str(docs)).returncode == 0
    question = "What were the purchases of property, plant and equipment in the cash flows?"
    proc = run(data, server.url, "ask", question, "--json")
    assert proc.returncode == 0, proc.stderr
    sources = json.loads(proc.stdout)["sources"]
    assert len(sources) >= 2 and sources[0]["sent"] is None  # the best one goes whole
    cut = [s for s in sources if s["sent"] is not None]
    assert cut and all(s["truncated"] is False for s in cut)
    for s in cut:
        read = " ".join(s["text"][a:b] for a, b in s["sent"])
        assert "Purchases of property, plant and equipment" in read and "Dividends" not in read
    text = run(data, server.url, "ask", question).stdout
    assert text.count("(read in part)") == len(cut)
    # and the turn, reopened from the history, still says so
    thread = re.search(r"Thread (\S+), turn 1", text)
    assert thread is not None, text
    shown = run(data, server.url, "threads", "show", thread.group(1)).stdout
    assert shown.count("(read in part)") == len(cut)
