"""Faults around the index: Ollama failing mid-answer, SQLite busy, and a second writer.

Each case ends in a clear message (exit 1, one line on stderr, the JSON ``error`` field) and an
index that is exactly what it was, or consistent with the files. Commands run in this process
(``tests.helpers.footnotes``) except the watcher that a second writer runs into.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.config import DEFAULT_MODEL
from app.core.index.manifest import Manifest
from app.core.index.store import VectorStore
from app.core.prompt.answering import answer_question
from app.core.types import Hit
from tests.fake_ollama import _TOKEN, FakeOllama
from tests.helpers import eventually, footnotes

REPO = Path(__file__).resolve().parents[3]
QUESTION = "How often should the chain on a road bicycle be replaced?"
REPLY = "Replace the chain every three thousand kilometres [1]. Check it monthly [1]."


def command(data: Path, *args: str, host: str = "http://127.0.0.1:9") -> list[str]:
    return [sys.executable, "-m", "app", "--data-dir", str(data), "--ollama-host", host, *args]


def cli_env() -> dict[str, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    env.pop("OLLAMA_HOST", None)
    return env


def run(data: Path, *args: str, host: str = "http://127.0.0.1:9") -> subprocess.CompletedProcess:
    """``footnotes`` in this process."""
    return footnotes("--data-dir", str(data), "--ollama-host", host, *args)


def start(data: Path, *args: str, host: str = "http://127.0.0.1:9") -> subprocess.Popen[str]:
    """``footnotes`` as a separate process."""
    return subprocess.Popen(
        command(data, *args, host=host),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
    )


def set_settings(data: Path, **settings: Any) -> None:
    path = data / "settings.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **settings}))


def snapshot(data: Path) -> dict[str, Any]:
    """Everything the manifest says, to compare before and after a fault."""
    manifest = Manifest(data / "manifest.sqlite3")
    try:
        assert manifest.check() == []
        files = manifest.conn.execute(
            "SELECT path, size, mtime_ns, hash, status, error, chunks FROM files ORDER BY path"
        ).fetchall()
        chunks = manifest.conn.execute("SELECT chunk_id FROM chunks ORDER BY chunk_id").fetchall()
        return {"counts": manifest.counts(), "files": files, "chunks": chunks}
    finally:
        manifest.close()


def assert_consistent(data: Path) -> None:
    """Manifest healthy, and Chroma holds exactly one vector per distinct passage text."""
    manifest = Manifest(data / "manifest.sqlite3")
    try:
        assert manifest.check() == []
        store = VectorStore(f"{DEFAULT_MODEL}-fp32", 384, path=data / "chroma")
        assert store.all_ids() == manifest.all_hashes()
    finally:
        manifest.close()


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


# --- Ollama faults ------------------------------------------------------------------------

# name: (fake server settings, error kind, words the message must contain, content chunks kept)
FAULTS: dict[str, tuple[dict[str, Any], str, tuple[str, ...], int]] = {
    "hang": ({"hang": True}, "timeout", ("sent nothing for", "request_timeout_s"), 0),
    "stall": ({"stall_after": 3}, "timeout", ("middle of the answer",), 3),
    "closed": ({"close_after": 4}, "interrupted", ("closed the connection",), 4),
    "http500": (
        {"status": 500, "status_message": "llama runner process has terminated"},
        "http",
        ("HTTP 500", "llama runner process has terminated"),
        0,
    ),
    "malformed": ({"malformed_after": 2}, "malformed", ("could not be read",), 2),
    "error_line": ({"error_after": 2}, "server", ("reported an error",), 2),
    "not_pulled": (
        {"models": ["nomic-embed-text:latest"]},
        "model_missing",
        ("ollama pull llama3.2",),
        0,
    ),
}


def kept(chunks: int) -> str:
    """The start of the reply as kept: what came, without the blank it ended on."""
    return "".join(_TOKEN.findall(REPLY)[:chunks]).rstrip()


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(reply=REPLY) as server:
        yield server


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_core_answer_keeps_the_partial_text_and_the_reason(name: str, fake: FakeOllama) -> None:
    setup, kind, words, chunks = FAULTS[name]
    for key, value in setup.items():
        setattr(fake, key, value)
    hit = Hit(1, "/notes/bikes.txt", None, 0, 60, "The chain wears out after 3000 km.", 1.0, "c1")
    answer = answer_question(QUESTION, [hit], host=fake.url, model="llama3.2", timeout_s=0.5)
    assert answer.error_kind == kind and answer.error is not None
    assert all(word in answer.error for word in words), answer.error
    assert answer.text == kept(chunks) and answer.partial is (chunks > 0)
    assert answer.to_json()["partial"] is (chunks > 0) and answer.sources[0].n == 1
    if chunks:  # the kept text is still checked against the sources, sentence by sentence
        assert answer.sentences and answer.sentences[0].text.strip() in answer.text


def test_core_silent_tcp_peer_times_out_naming_the_setting() -> None:
    """A socket that accepts connections (the kernel does) but never reads or answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        host = f"http://127.0.0.1:{listener.getsockname()[1]}"
        answer = answer_question("Q?", [], host=host, model="llama3.2", timeout_s=0.5)
    assert answer.error_kind == "timeout" and answer.text == ""
    assert "0.5 s" in (answer.error or "") and "request_timeout_s" in (answer.error or "")


@pytest.fixture(scope="module")
def template(
    tmp_path_factory: pytest.TempPathFactory, cli_index: tuple[Path, Path, dict]
) -> tuple[Path, Path]:
    """One CLI-built index of a small corpus: (data dir, docs); tests copy it before writing.

    A copy of the session's ``cli_index`` (torch backend) with a short request timeout."""
    data = tmp_path_factory.mktemp("faults") / "data"
    shutil.copytree(cli_index[0], data)
    set_settings(data, request_timeout_s=2.0)
    return data, cli_index[1]


@pytest.fixture
def copied(template: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    """A private copy of the template's data dir (same docs folder, which nobody changes)."""
    data = tmp_path / "data"
    shutil.copytree(template[0], data)
    (data / "writer.lock").unlink(missing_ok=True)
    return data, template[1]


@pytest.fixture(autouse=True)
def no_ollama_host_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_ask_cli_reports_each_ollama_fault_and_leaves_the_index_alone(
    name: str, template: tuple[Path, Path], fake: FakeOllama
) -> None:
    data = template[0]
    setup, _, words, chunks = FAULTS[name]
    for key, value in setup.items():
        setattr(fake, key, value)
    before = snapshot(data)
    done = run(data, "ask", QUESTION, "--json", host=fake.url)
    code, stdout, stderr = done.returncode, done.stdout, done.stderr
    assert code == 1, stderr
    out = json.loads(stdout)
    assert one_line(stderr) == f"footnotes: {out['error']}"
    assert all(word in out["error"] for word in words), out["error"]
    assert out["answer"] == kept(chunks) and out["partial"] is (chunks > 0)
    assert out["sources"] and out["sources"][0]["path"].endswith("bikes.txt")
    assert snapshot(data) == before


def test_ask_text_output_marks_an_interrupted_answer(
    template: tuple[Path, Path], fake: FakeOllama
) -> None:
    """The same, printed as text."""
    fake.close_after = 4
    proc = run(template[0], "ask", QUESTION, host=fake.url)
    assert proc.returncode == 1
    assert kept(4).strip() in proc.stdout and "incomplete" in proc.stdout
    assert "closed the connection" in one_line(proc.stderr)


# --- SQLite busy --------------------------------------------------------------------------


@pytest.fixture
def busy_dir(copied: tuple[Path, Path], tmp_path: Path) -> tuple[Path, list[str]]:
    """An indexed data dir, and paths to index whose one new file needs a write."""
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "kites.md").write_text("# Kites\n\nA kite needs steady wind of 15 km/h.\n")
    return copied[0], [str(copied[1]), str(extra)]


def hold_write_transaction(db: Path) -> sqlite3.Connection:
    """Another program's open write transaction (a database browser, a backup tool)."""
    conn = sqlite3.connect(db, isolation_level=None, timeout=5)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('held', 'by a test')")
    return conn


def fds_on(db: Path) -> int:
    """How many of this process's open files are ``db``."""
    count = 0
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):  # an fd closed while we looked
            count += os.readlink(fd) == str(db.resolve())
    return count


def test_index_waits_for_a_busy_database_then_succeeds(
    busy_dir: tuple[Path, list[str]],
) -> None:
    data, paths = busy_dir
    db = data / "manifest.sqlite3"
    holder = hold_write_transaction(db)
    done: list[subprocess.CompletedProcess[str]] = []
    try:
        held = fds_on(db)
        args = ("index", *paths, "--json")
        indexing = threading.Thread(target=lambda: done.append(run(data, *args)))
        indexing.start()
        # Once it has the database open, its next step is BEGIN IMMEDIATE, which must wait.
        eventually(lambda: fds_on(db) > held or done, "index opens the database")
        assert indexing.is_alive(), done  # waiting on the busy timeout, not failed
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    indexing.join(300)
    (proc,) = done
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["files_indexed"] == 1 and report["files_removed"] == 0
    assert_consistent(data)


def test_index_gives_up_on_a_database_locked_for_good(
    busy_dir: tuple[Path, list[str]],
) -> None:
    """Past the busy timeout (the busy_timeout_s setting, 1 s here): a clear message and nothing
    changed; readers say why."""
    data, paths = busy_dir
    set_settings(data, busy_timeout_s=1.0)
    before = snapshot(data)
    holder = hold_write_transaction(data / "manifest.sqlite3")
    try:
        procs = {
            "index": run(data, "index", *paths, "--json"),
            "status": run(data, "status", "--json"),
            "search": run(data, "search", "kite wind", "--json"),
        }
        done = {name: (p.stdout, p.stderr, p.returncode) for name, p in procs.items()}
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    _, stderr, code = done["index"]
    assert code == 1
    message = one_line(stderr)
    assert "manifest.sqlite3" in message and "locked by another program" in message
    for name in ("status", "search"):  # work beside it, or say clearly why they cannot
        stdout, stderr, code = done[name]
        if code == 0:
            assert json.loads(stdout)
        else:
            assert code == 1 and "locked by another program" in one_line(stderr)
    # The manifest is as it was. A vector written just before the manifest gave up may remain
    # in Chroma (the designed crash state); the next writer's repair pass removes it.
    assert snapshot(data) == before
    again = run(data, "index", *paths, "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["files_indexed"] == 1
    assert_consistent(data)


# --- a second writer ----------------------------------------------------------------------


def lines_of(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    out: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.put(line)
        out.put("")

    threading.Thread(target=pump, daemon=True).start()
    return out


def wait_for_line(lines: queue.Queue[str], text: str) -> None:
    seen = []
    while True:
        line = lines.get(timeout=240)
        if line == "":
            raise AssertionError(f"exited before {text!r}: {''.join(seen)}")
        seen.append(line)
        if text in line:
            return


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_second_writer_is_refused_readers_work_and_a_killed_writer_leaves_no_lock(
    copied: tuple[Path, Path], fake: FakeOllama
) -> None:
    data, docs = copied
    assert run(data, "folders", "add", str(docs)).returncode == 0
    watch = start(data, "watch")
    try:
        wait_for_line(lines_of(watch), "Watching 1 folder")
        holder = json.loads((data / "writer.lock").read_text())
        assert holder["pid"] == watch.pid and holder["what"] == "footnotes watch"

        refused = run(data, "index", str(docs))
        assert refused.returncode == 1
        message = one_line(refused.stderr)
        assert f"footnotes watch (process {watch.pid}," in message and "stop it first" in message

        status = run(data, "status", "--json")
        assert status.returncode == 0 and json.loads(status.stdout)["files_indexed"] == 5
        search = run(data, "search", "road bicycle chain", "--json")
        assert search.returncode == 0
        assert json.loads(search.stdout)["hits"][0]["path"].endswith("bikes.txt")
        fake.echo = True
        ask = run(data, "ask", QUESTION, "--json", host=fake.url)
        assert ask.returncode == 0, ask.stderr
        assert "three thousand kilometres" in json.loads(ask.stdout)["answer"]
    finally:
        watch.send_signal(signal.SIGKILL)
        watch.wait(60)
    # The lock file outlives its writer, still naming it; the flock died with the process.
    assert json.loads((data / "writer.lock").read_text())["pid"] == watch.pid
    after = run(data, "index", str(docs), "--json")
    assert after.returncode == 0, after.stderr
    report = json.loads(after.stdout)
    assert report["files_indexed"] == report["files_removed"] == 0
    assert_consistent(data)
