"""The command line as scripts use it: JSON contracts, exit codes, the ``python -m app`` entry.

Commands run in this process through ``app.cli.main`` (``tests.helpers.footnotes``); only the
checks that need a fresh interpreter start one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.core.ingest.loaders import load_document
from tests.helpers import eventually
from tests.helpers import footnotes as run

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def indexed(cli_index: tuple[Path, Path, dict]) -> tuple[Path, Path, dict]:
    """One CLI-built index shared by the read-only tests (the session's ``cli_index``)."""
    return cli_index


def test_index_json_has_the_contracted_keys(indexed) -> None:
    _, corpus, report = indexed
    for key in (
        "files_seen",
        "files_indexed",
        "files_unchanged",
        "files_removed",
        "files_failed",
        "chunks_total",
        "chunks_embedded",
        "chunks_reused",
        "seconds",
        "failures",
    ):
        assert key in report
    assert report["files_indexed"] == 5 and report["files_failed"] == 1
    assert report["failures"][0]["path"] == str(corpus / "broken.md")
    assert report["failures"][0]["reason"]


def test_search_json_hits_point_at_exact_text(indexed) -> None:
    data, _, _ = indexed
    out = json.loads(
        run("--data-dir", str(data), "search", "quarterly revenue grew", "-k", "3", "--json").stdout
    )
    assert out["query"] == "quarterly revenue grew"
    assert set(out["support"]) >= {"supported", "score", "reason"}
    hit = out["hits"][0]
    assert set(hit) >= {"rank", "path", "page", "start", "end", "text", "score", "chunk_id"}
    assert hit["rank"] == 1 and hit["path"].endswith("report.pdf") and hit["page"] == 1
    page = load_document(hit["path"]).pages[hit["page"] - 1].text
    assert page[hit["start"] : hit["end"]] == hit["text"]
    assert len(out["hits"]) <= 3


def test_search_batch_prints_one_line_per_query(indexed, tmp_path: Path) -> None:
    data, _, _ = indexed
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        json.dumps({"_id": "a", "text": "tomatoes direct sun"})
        + "\n"
        + json.dumps({"_id": "b", "text": "compost nitrogen carbon"})
        + "\n"
    )
    lines = run("--data-dir", str(data), "search", "--batch", str(queries), "-k", "2").stdout
    objs = [json.loads(line) for line in lines.splitlines()]
    assert [o["_id"] for o in objs] == ["a", "b"]
    assert all(o["hits"][0]["path"].endswith("garden.md") for o in objs)


def test_status_lists_failures_and_agrees_with_index(indexed) -> None:
    data, _corpus, report = indexed
    status = json.loads(run("--data-dir", str(data), "status", "--json").stdout)
    assert status["files_indexed"] == report["files_indexed"]
    assert status["chunks"] == report["chunks_total"]
    assert status["failures"] == report["failures"]
    human = run("--data-dir", str(data), "status").stdout
    assert "broken.md" in human and "binary" in human


def test_global_options_also_work_after_the_command(indexed) -> None:
    data, _, _ = indexed
    out = run("status", "--json", "--data-dir", str(data))
    assert json.loads(out.stdout)["data_dir"] == str(data.resolve())


def test_data_dir_from_environment(indexed, monkeypatch: pytest.MonkeyPatch) -> None:
    data, _, _ = indexed
    monkeypatch.setenv("FOOTNOTES_DATA_DIR", str(data))
    proc = run("status", "--json")
    assert json.loads(proc.stdout)["files_indexed"] == 5


def test_usage_errors_exit_2_and_handled_errors_exit_1(tmp_path: Path) -> None:
    assert run("search").returncode == 2
    assert run("frobnicate").returncode == 2
    proc = run("--data-dir", str(tmp_path / "d"), "folders", "add", str(tmp_path / "nope"))
    assert proc.returncode == 1
    assert "does not exist" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_folders_add_list_remove(tmp_path: Path) -> None:
    data = tmp_path / "d"
    folder = tmp_path / "watched"
    folder.mkdir()
    run("--data-dir", str(data), "folders", "add", str(folder))
    listed = json.loads(run("--data-dir", str(data), "folders", "list", "--json").stdout)
    assert listed["folders"] == [str(folder.resolve())]
    run("--data-dir", str(data), "folders", "remove", str(folder))
    assert (
        json.loads(run("--data-dir", str(data), "folders", "list", "--json").stdout)["folders"]
        == []
    )


def test_version() -> None:
    """Before the command or after it, as the other global options."""
    for args in (["--version"], ["status", "--version"], ["threads", "list", "--version"]):
        proc = run(*args)
        assert proc.returncode == 0 and proc.stdout.startswith("footnotes "), args


def test_python_m_app_exits_with_the_command_status(tmp_path: Path) -> None:
    """The real entry point: ``python -m app`` passes on main's status (usage 2, handled 1)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def status(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "app", *args]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)

    version = status("--version")
    assert version.returncode == 0 and version.stdout.startswith("footnotes ")
    assert status("frobnicate").returncode == 2
    missing = status("--data-dir", str(tmp_path / "d"), "folders", "add", str(tmp_path / "no"))
    assert missing.returncode == 1 and "does not exist" in missing.stderr


def test_core_never_imports_qt() -> None:
    """app.core must stay usable without Qt: importing all of it loads no PySide6."""
    code = (
        "import sys, pkgutil, importlib, app.core as c\n"
        "for m in pkgutil.walk_packages(c.__path__, 'app.core.'): importlib.import_module(m.name)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_folders_remove_respects_nested_watched_folders(tmp_path: Path, cli_data_dir: Path) -> None:
    outer = tmp_path / "outer"
    inner = outer / "inner"
    inner.mkdir(parents=True)
    (outer / "top.md").write_text("The quarry pond freezes first in December.\n")
    (inner / "deep.md").write_text("The apiary hives are wrapped in straw for winter.\n")
    d = ["--data-dir", str(cli_data_dir)]
    for folder in (outer, inner):
        assert run(*d, "folders", "add", str(folder)).returncode == 0
    assert run(*d, "index", str(outer), "--json").returncode == 0

    def known() -> set[str]:
        from app.core.index.manifest import Manifest

        m = Manifest(cli_data_dir / "manifest.sqlite3", readonly=True)
        try:
            return {os.path.basename(p) for p in m.files_under()}
        finally:
            m.close()

    removed = run(*d, "folders", "remove", str(inner))  # outer still holds it
    assert removed.returncode == 0 and "removed 0 files" in removed.stdout
    assert known() == {"top.md", "deep.md"}
    assert run(*d, "folders", "add", str(inner)).returncode == 0
    removed = run(*d, "folders", "remove", str(outer))  # inner is still watched
    assert removed.returncode == 0 and "removed 1 file from" in removed.stdout
    assert known() == {"deep.md"}


def test_watch_logs_each_change_until_stopped(
    tmp_path: Path, cli_data_dir: Path, torch_embedder
) -> None:
    """The watch command's log, in this process (stopping it by signal is tested in
    test_watcher, with a real process)."""
    from app.cli.watch import run_watch
    from app.core.api import Footnotes
    from app.core.engine import Engine

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("The heron waits in the reeds at dawn.\n")
    assert run("--data-dir", str(cli_data_dir), "folders", "add", str(docs)).returncode == 0
    engine = Engine(cli_data_dir, embedder=torch_embedder)
    lines: list[str] = []
    codes: list[int] = []
    stop = threading.Event()
    watching = threading.Thread(
        target=lambda: codes.append(
            run_watch(Footnotes(cli_data_dir, engine=engine), stop=stop, log=lines.append)
        )
    )
    watching.start()
    try:

        def logged(prefix: str) -> bool:
            return any(line.startswith(prefix) for line in lines)

        eventually(lambda: logged("Watching 1 folder"), "the watcher says it is watching")
        assert logged(f"indexed {docs / 'a.md'} (")
        (docs / "b.md").write_text("The kingfisher dives from the willow branch.\n")
        eventually(lambda: logged(f"indexed {docs / 'b.md'}"), "the new file is logged")
        (docs / "b.md").unlink()
        eventually(lambda: logged(f"removed {docs / 'b.md'}"), "the deletion is logged")
    finally:
        stop.set()
        watching.join(60)
        engine.close()
    assert codes == [0] and lines[-1] == "Everything indexed so far is saved."


def test_index_names_a_path_that_is_not_there_and_counts_each_file_once(tmp_path: Path) -> None:
    """A typo in a path is not a silent success; a file that failed before and is unchanged
    is counted as failed, not also as unchanged."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"embedding_backend": "torch"}))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Good\n\nA note about pruning apple trees in late winter.\n")
    (docs / "bad.md").write_bytes(b"\x00\x01binary\x00" * 50)
    typo = str(tmp_path / "dcos")
    proc = run("--data-dir", str(data), "index", str(docs), typo, "--json")
    assert proc.returncode == 1
    assert f"{typo}: not found" in proc.stderr
    report = json.loads(proc.stdout)
    assert report["not_found"] == [typo] and report["files_indexed"] == 1

    again = run("--data-dir", str(data), "index", str(docs))
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("2 files: 0 indexed, 1 unchanged, 0 removed, 1 failed;")


def test_search_batch_reports_a_bad_line_and_goes_on(indexed, tmp_path: Path) -> None:
    data, _, _ = indexed
    queries = tmp_path / "q.jsonl"
    lines = [
        json.dumps({"_id": "a", "text": "tomatoes direct sun"}),
        "not json",
        json.dumps({"_id": "c", "text": "   "}),
        json.dumps({"_id": "d", "text": "compost nitrogen carbon"}),
    ]
    queries.write_text("\n".join(lines) + "\n")
    proc = run("--data-dir", str(data), "search", "--batch", str(queries), "-k", "2")
    assert proc.returncode == 0
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [o["_id"] for o in out] == ["a", None, "c", "d"]
    assert out[1]["error"].startswith("line 2:") and out[2]["error"].startswith("line 3:")
    assert '"text" is not a question' in out[2]["error"] and "hits" not in out[2]
    assert out[3]["hits"][0]["path"].endswith("garden.md")
    assert "2 of 4 queries failed" in proc.stderr

    missing = run("--data-dir", str(data), "search", "--batch", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert missing.stderr.startswith("footnotes: cannot read ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "   "], "the QUERY is empty"),
        (["search", "x", "--batch", "q.jsonl"], "not both"),
        (["search", "x", "-k", "0"], "give 1 to 50"),
        (["ask", "x", "-k", "51"], "give 1 to 50"),
        (["search", "x", "--since", "2024-02-01", "--until", "2024-01-01"], "after it ends"),
        (["search", "x", "--ollama-host", "not a url"], "not an Ollama address"),
        (["search", "x", "--ollama-host", "ftp://example.com"], "http:// or https://"),
    ],
)
def test_usage_errors_show_the_commands_usage(args: list[str], message: str) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert f"usage: footnotes {args[0]} " in proc.stderr


@pytest.mark.slow
def test_output_into_a_closed_pipe_stops_quietly(indexed, tmp_path: Path) -> None:
    """``footnotes search ... | head -1`` must not end in a traceback: more output than a pipe
    holds, and a reader that leaves after the first line."""
    data, _, _ = indexed
    queries = tmp_path / "q.jsonl"
    line = json.dumps({"_id": 1, "text": "tomatoes direct sun"})
    queries.write_text((line + "\n") * 100)
    cmd = [sys.executable, "-m", "app", "--data-dir", str(data), "search", "--batch", str(queries)]
    proc = subprocess.run(
        f"{' '.join(cmd)} | head -c 1",
        shell=True,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.stdout == "{"
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


def test_folders_add_says_what_is_wrong_and_what_happens_next(tmp_path: Path) -> None:
    data = tmp_path / "data"
    docs = tmp_path / "docs"
    (docs / "inner").mkdir(parents=True)
    (docs / "note.md").write_text("# Note\n\nA note.\n")

    def add(path: Path) -> subprocess.CompletedProcess[str]:
        return run("--data-dir", str(data), "folders", "add", str(path))

    missing = add(tmp_path / "nope")
    assert missing.returncode == 1 and "does not exist" in missing.stderr
    a_file = add(docs / "note.md")
    assert a_file.returncode == 1 and "is a file, not a folder" in a_file.stderr
    first = add(docs)
    assert first.returncode == 0 and "run `footnotes watch`" in first.stdout
    assert add(docs).stdout.startswith(f"Already watching {docs}")
    assert f"inside {docs}" in add(docs / "inner").stdout


def test_a_search_on_an_empty_index_loads_no_model_and_no_vector_store(tmp_path: Path) -> None:
    """A new data folder's first command answers at once: with nothing indexed there is no
    query vector to make, so neither the embedding model nor Chroma is loaded."""
    code = (
        "import sys\n"
        "from app.cli import main\n"
        f"status = main(['--data-dir', {str(tmp_path / 'data')!r}, 'search', 'tomato sun'])\n"
        "heavy = [m for m in ('chromadb', 'onnxruntime', 'torch') if m in sys.modules]\n"
        "print('STATUS', status, 'HEAVY', heavy)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert "no passages for this question yet" in done.stdout
    assert "HEAVY []" in done.stdout, done.stdout + done.stderr
