"""``footnotes ask`` verdicts, ``ask --batch``, the model fallback and ``doctor``'s model list,
run in this process against a stand-in Ollama server over real HTTP."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_ollama import FakeOllama
from tests.helpers import footnotes

QUESTION = "How often should the chain on a road bicycle be replaced?"
COPIED = "The chain on a road bicycle should be replaced every three thousand kilometres [1]."
INVENTED = "The lunar archive was founded by Captain Zanzibar Quillfeather in 1642."


def run(data: Path, host: str, *args: str) -> subprocess.CompletedProcess[str]:
    return footnotes("--data-dir", str(data), "--ollama-host", host, *args)


@pytest.fixture(autouse=True)
def no_ollama_host_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)


@pytest.fixture
def indexed(cli_index: tuple[Path, Path, dict]) -> Path:
    return cli_index[0]


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        yield fake


def ask_json(data: Path, server: FakeOllama, reply: str, *extra: str) -> dict:
    server.reply = reply
    proc = run(data, server.url, "ask", QUESTION, "-k", "3", "--json", *extra)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_invented_sentence_makes_the_answer_partly_supported(
    indexed: Path, server: FakeOllama
) -> None:
    out = ask_json(indexed, server, f"{COPIED} {INVENTED}")
    assert out["support"]["supported"] is True  # retrieval alone says strong, as in `search`
    assert set(out["support"]) >= {"supported", "score", "reason"}
    v = out["verdict"]
    assert v["level"] == "partly_supported"
    assert (v["claim_sentences"], v["unsupported_sentences"]) == (2, 1) and v["reason"]
    assert [(s["kind"], s["supported"]) for s in out["sentences"]] == [
        ("claim", True),
        ("claim", False),
    ]


@pytest.mark.parametrize(
    ("reply", "level"),
    [
        (COPIED, "supported"),
        (COPIED.replace("three thousand", "four thousand"), "unsupported"),
        (COPIED.replace("should be", "should not be"), "unsupported"),
        ("The sources do not contain the answer.", "no_answer"),
    ],
    ids=["verbatim", "swapped-number", "inserted-negation", "no-answer"],
)
def test_verdict_levels(indexed: Path, server: FakeOllama, reply: str, level: str) -> None:
    out = ask_json(indexed, server, reply)
    assert out["verdict"]["level"] == level
    kinds = {s["kind"] for s in out["sentences"]}
    assert kinds == ({"meta"} if level == "no_answer" else {"claim"})


def test_first_line_is_the_verdict_on_the_finished_answer(
    indexed: Path, server: FakeOllama
) -> None:
    server.reply = f"{COPIED} {INVENTED}"
    proc = run(indexed, server.url, "ask", QUESTION)
    assert proc.returncode == 0, proc.stderr
    first, *rest = proc.stdout.splitlines()
    assert first.startswith("Partly supported (retrieval strong, ")
    assert "1 of the answer's 2 sentences is not backed" in first
    assert any("Quillfeather" in line for line in rest)


def test_batch_one_object_per_line_and_a_bad_line_does_not_stop_it(
    indexed: Path, server: FakeOllama, tmp_path: Path
) -> None:
    batch = tmp_path / "questions.jsonl"
    batch.write_text(
        json.dumps({"_id": "q1", "text": QUESTION})
        + "\nnot json at all\n"
        + json.dumps({"_id": "q3"})
        + "\n\n"
        + json.dumps({"_id": "q4", "text": "What does a compost heap want?"})
        + "\n"
    )
    server.reply = COPIED
    proc = run(indexed, server.url, "ask", "--batch", str(batch), "-k", "3")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["_id"] for line in lines] == ["q1", None, "q3", "q4"]
    good = [lines[0], lines[3]]
    for line in good:
        assert line["error"] is None and line["answer"] == COPIED
        assert {"query", "hits", "support", "verdict", "sources", "sentences", "model"} <= set(line)
    assert lines[0]["verdict"]["level"] == "supported"
    assert lines[1]["error"].startswith("line 2:") and lines[2]["error"].startswith("line 3:")
    assert "2 of 4 questions failed" in proc.stderr
    assert len(server.chats()) == 2


def test_batch_with_ollama_down_gives_each_line_its_error(indexed: Path, tmp_path: Path) -> None:
    batch = tmp_path / "q.jsonl"
    batch.write_text(json.dumps({"_id": 1, "text": QUESTION}) + "\n")
    proc = run(indexed, "http://127.0.0.1:9", "ask", "--batch", str(batch))
    (line,) = [json.loads(x) for x in proc.stdout.splitlines()]
    assert line["_id"] == 1 and "not running" in line["error"] and line["hits"]
    assert line["verdict"]["level"] == "no_answer"


def test_missing_model_falls_back_and_says_so_once(
    indexed: Path, server: FakeOllama, tmp_path: Path
) -> None:
    server.models = ["nomic-embed-text:latest", "qwen2.5:3b"]
    out = ask_json(indexed, server, COPIED)
    assert out["model"] == "qwen2.5:3b" and out["model_requested"] == "llama3.2"
    assert out["verdict"]["level"] == "supported"

    batch = tmp_path / "q.jsonl"
    batch.write_text("".join(json.dumps({"_id": i, "text": QUESTION}) + "\n" for i in range(3)))
    proc = run(indexed, server.url, "ask", "--batch", str(batch))
    assert proc.returncode == 0, proc.stderr
    notes = [ln for ln in proc.stderr.splitlines() if "is not installed" in ln]
    assert len(notes) == 1 and "qwen2.5:3b" in notes[0] and "ollama pull llama3.2" in notes[0]
    assert {json.loads(ln)["model"] for ln in proc.stdout.splitlines()} == {"qwen2.5:3b"}


def test_a_named_model_that_is_not_installed_is_an_error_naming_the_installed_ones(
    indexed: Path, server: FakeOllama
) -> None:
    """--model is the model the person wants: no silent fallback to another one."""
    server.models = ["nomic-embed-text:latest", "qwen2.5:3b"]
    proc = run(indexed, server.url, "ask", QUESTION, "--model", "nonexist:7b")
    assert proc.returncode == 1
    assert "'nonexist:7b' is not installed" in proc.stderr
    assert "Installed: qwen2.5:3b." in proc.stderr  # chat models only
    assert server.answers() == [] or all(
        r.body.get("model") == "nonexist:7b" for r in server.answers()
    )


def test_no_chat_model_prints_the_pull_command(indexed: Path, server: FakeOllama) -> None:
    server.models = ["nomic-embed-text:latest"]
    proc = run(indexed, server.url, "ask", QUESTION)
    assert proc.returncode == 1
    assert "`ollama pull llama3.2`" in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_doctor_lists_installed_models_and_the_one_in_use(
    indexed: Path, server: FakeOllama
) -> None:
    server.models = ["llama3.2:latest", "qwen2.5:3b", "nomic-embed-text:latest"]
    proc = run(indexed, server.url, "doctor")
    assert proc.returncode == 0, proc.stdout
    (line,) = [ln for ln in proc.stdout.splitlines() if "model llama3.2" in ln]
    assert line.startswith("ok") and "answers questions" in line
    assert "llama3.2:latest, qwen2.5:3b" in line and "embedding only: nomic-embed-text" in line

    # A fresh install with a model of the person's own: worth a warning, not a failure.
    server.models = ["qwen2.5:3b", "nomic-embed-text:latest"]
    proc = run(indexed, server.url, "doctor")
    assert proc.returncode == 0, proc.stdout
    (line,) = [ln for ln in proc.stdout.splitlines() if "model llama3.2" in ln]
    assert line.startswith("warning") and "ollama pull llama3.2" in line
    assert "meanwhile qwen2.5:3b answers questions" in line

    server.models = ["nomic-embed-text:latest"]  # nothing can answer: that is a problem
    proc = run(indexed, server.url, "doctor")
    assert proc.returncode == 1
    (line,) = [ln for ln in proc.stdout.splitlines() if "model llama3.2" in ln]
    assert line.startswith("problem") and "no installed model can answer" in line


def test_a_misspelt_model_is_answered_with_the_installed_name_it_resembles(
    indexed: Path, server: FakeOllama
) -> None:
    """`--model smollm2:135m-q8` was told to run `ollama pull smollm2:135m-q8`, the installed
    smollm2:135m-q8_0 listed only after it."""
    server.models = ["smollm2:135m", "smollm2:135m-q8_0", "gemma3:270m-pt"]
    proc = run(indexed, server.url, "ask", QUESTION, "--model", "smollm2:135m-q8")
    assert proc.returncode == 1
    said = proc.stderr
    assert "Did you mean `smollm2:135m-q8_0`?" in said
    assert said.index("Did you mean") < said.index("ollama pull")


def test_doctor_says_which_installed_model_a_misspelt_setting_means() -> None:
    from app.cli.doctor import _model_line
    from app.core.ollama.models import ModelInfo

    installed = [ModelInfo("smollm2:135m"), ModelInfo("smollm2:135m-q8_0")]
    level, line = _model_line(installed, "smollm2:135m-q8")
    assert level == "warning" and "did you mean smollm2:135m-q8_0?" in line
    assert "meanwhile smollm2:135m-q8_0 answers" in line
