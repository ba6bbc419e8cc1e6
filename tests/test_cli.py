"""The command line as scripts use it: real subprocesses, JSON contracts, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.ingest.loaders import load_document
from tests.helpers import make_corpus

REPO = Path(__file__).resolve().parents[1]


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "app", *args], capture_output=True, text=True, env=env, timeout=300
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}: {proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """One CLI-built index shared by this module's read-only tests."""
    root = tmp_path_factory.mktemp("cli")
    data = root / "data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"embedding_backend": "torch"}))
    corpus = make_corpus(root / "docs")
    out = run("--data-dir", str(data), "index", str(corpus), "--json")
    return data, corpus, json.loads(out.stdout)


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


def test_data_dir_from_environment(indexed) -> None:
    data, _, _ = indexed
    env = {**os.environ, "FOOTNOTES_DATA_DIR": str(data), "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "app", "status", "--json"], capture_output=True, text=True, env=env
    )
    assert json.loads(proc.stdout)["files_indexed"] == 5


def test_usage_errors_exit_2_and_handled_errors_exit_1(tmp_path: Path) -> None:
    assert run("search", check=False).returncode == 2
    assert run("frobnicate", check=False).returncode == 2
    proc = run(
        "--data-dir", str(tmp_path / "d"), "folders", "add", str(tmp_path / "nope"), check=False
    )
    assert proc.returncode == 1
    assert "not a folder" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


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
    assert run("--version").stdout.startswith("footnotes ")


def test_core_never_imports_qt() -> None:
    """app.core must stay usable without Qt: importing all of it loads no PySide6."""
    code = (
        "import sys, pkgutil, importlib, app.core as c\n"
        "for m in pkgutil.iter_modules(c.__path__): importlib.import_module('app.core.' + m.name)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_folders_remove_respects_nested_watched_folders(
    tmp_path: Path, cli_data_dir: Path, capsys, monkeypatch
) -> None:
    from app.cli import main

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    outer = tmp_path / "outer"
    inner = outer / "inner"
    inner.mkdir(parents=True)
    (outer / "top.md").write_text("The quarry pond freezes first in December.\n")
    (inner / "deep.md").write_text("The apiary hives are wrapped in straw for winter.\n")
    d = ["--data-dir", str(cli_data_dir)]
    for folder in (outer, inner):
        assert main([*d, "folders", "add", str(folder)]) == 0
    assert main([*d, "index", str(outer), "--json"]) == 0
    capsys.readouterr()

    def known() -> set[str]:
        from app.core.index.manifest import Manifest

        m = Manifest(cli_data_dir / "manifest.sqlite3", readonly=True)
        try:
            return {os.path.basename(p) for p in m.files_under()}
        finally:
            m.close()

    assert main([*d, "folders", "remove", str(inner)]) == 0  # outer still holds it
    assert "removed 0 files" in capsys.readouterr().out
    assert known() == {"top.md", "deep.md"}
    assert main([*d, "folders", "add", str(inner)]) == 0
    assert main([*d, "folders", "remove", str(outer)]) == 0  # inner is still watched
    assert "removed 1 files" in capsys.readouterr().out
    assert known() == {"deep.md"}
