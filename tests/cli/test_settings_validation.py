"""settings.json is checked key by key against the schema in ``app.core.config``.

A bad key costs that key only: its default is used and the problem is recorded, printed by
the command line (one line each on stderr) and shown in the window. A file that cannot be
read as JSON is kept, and copied to settings.json.bak before anything saves over it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.core.config import DEFAULT_IGNORE, DataDir, Settings, backup_path
from tests.helpers import footnotes


def write(path: Path, content: str | dict[str, Any]) -> Path:
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def problems(settings: Settings) -> dict[str, str]:
    return {p.key: p.reason for p in settings.problems}


def test_unparseable_json_is_kept_and_backed_up_before_it_is_saved_over(tmp_path: Path) -> None:
    broken = '{"ollama_model": "mistral", "top_k": 12,,}\n'  # a stray comma from a hand edit
    path = write(tmp_path / "settings.json", broken)

    loaded = Settings.load(path)
    assert loaded == Settings()  # every setting has its default...
    [problem] = loaded.problems  # ...and one problem names the whole file
    assert problem.key == "" and "not valid JSON" in problem.reason
    assert str(problem).startswith("settings.json: it is not valid JSON")
    assert path.read_text() == broken  # loading never rewrites it

    loaded.save(path)  # Apply in the window, with the defaults it fell back to
    assert backup_path(path) == tmp_path / "settings.json.bak"
    assert backup_path(path).read_text() == broken
    assert Settings.load(path).problems == []

    Settings(top_k=9).save(path)  # a later save of a clean file keeps the backup as it was
    assert backup_path(path).read_text() == broken
    assert Settings.load(path).top_k == 9


@pytest.mark.parametrize(
    "content", ["[1, 2]", "null", '"just a string"', "\ufeff{\n", "\xff\xfe{}"]
)
def test_a_file_that_is_no_json_object_gets_defaults_and_a_backup(
    tmp_path: Path, content: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(content.encode("latin-1" if content.startswith("\xff") else "utf-8"))
    original = path.read_bytes()
    loaded = Settings.load(path)
    assert loaded == Settings() and len(loaded.problems) == 1
    loaded.save(path)
    assert backup_path(path).read_bytes() == original


def test_a_clean_file_is_saved_over_without_a_backup(tmp_path: Path) -> None:
    path = write(tmp_path / "settings.json", {"top_k": 5, "ocr_enabled": False})
    loaded = Settings.load(path)
    assert loaded.problems == [] and loaded.top_k == 5 and loaded.ocr_enabled is False
    loaded.save(path)
    assert not backup_path(path).exists()
    assert json.loads(path.read_text())["top_k"] == 5
    assert "problems" not in json.loads(path.read_text())


def test_a_string_for_the_ignore_patterns_is_an_error_never_split_into_characters(
    tmp_path: Path,
) -> None:
    path = write(tmp_path / "settings.json", {"ignore_patterns": "*.tmp"})
    loaded = Settings.load(path)
    assert loaded.ignore_patterns == DEFAULT_IGNORE
    reason = problems(loaded)["ignore_patterns"]
    assert "should be a list" in reason and '"*.tmp"' in reason

    items = Settings.from_dict({"ignore_patterns": ["*.log", 7]})
    assert items.ignore_patterns == DEFAULT_IGNORE
    assert "item [1]" in problems(items)["ignore_patterns"]


def test_out_of_range_numbers_and_wrong_types_are_reported_with_their_defaults() -> None:
    bad = {
        "top_k": 0,
        "max_file_mb": -5,
        "max_pages": 2.5,
        "parse_timeout_s": 1e9,
        "request_timeout_s": "120",
        "max_chunks_per_file": True,
        "ocr_enabled": "no",
        "unsupported_mode": "sometimes",
        "embedding_backend": "gpu",
        "ollama_host": "",
    }
    loaded = Settings.from_dict(bad)
    assert set(problems(loaded)) == set(bad)
    assert loaded == Settings()
    found = problems(loaded)
    assert found["top_k"].startswith("it should be greater than or equal to 1, not 0")
    assert found["top_k"].endswith("using the default 8")
    assert "greater than 0, not -5" in found["max_file_mb"]
    assert "less than or equal to 86400" in found["parse_timeout_s"]
    assert "'flag' or 'refuse'" in found["unsupported_mode"]
    assert "should not be empty" in found["ollama_host"]


def test_valid_keys_are_kept_beside_bad_and_unknown_ones(tmp_path: Path) -> None:
    path = write(
        tmp_path / "settings.json",
        {
            "ollama_model": "mistral",
            "top_k": 12,
            "max_file_mb": 40,
            "chroma_url": None,
            "ignore_patterns": ["*.log", "drafts"],
            "max_pages": "lots",
            "top-k": 3,
        },
    )
    loaded = Settings.load(path)
    assert (loaded.ollama_model, loaded.top_k, loaded.max_file_mb) == ("mistral", 12, 40.0)
    assert loaded.ignore_patterns == ["*.log", "drafts"]
    assert loaded.max_pages == Settings().max_pages
    assert set(problems(loaded)) == {"max_pages", "top-k"}
    assert "not a setting this version knows" in problems(loaded)["top-k"]
    kept = loaded.with_overrides(ollama_host="http://elsewhere:11434")
    assert kept.problems == loaded.problems  # the command line's overrides keep the record


def test_the_cli_reports_each_problem_on_stderr_and_still_indexes(
    tmp_path: Path, cli_data_dir: Path
) -> None:
    settings = cli_data_dir / "settings.json"
    write(settings, {"embedding_backend": "torch", "ignore_patterns": "*.tmp", "top_k": 500})
    before = settings.read_text()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kettle.md").write_text("The copper kettle whistles when the water boils.\n")
    (docs / "notes.txt").write_text("Quillfeather keeps the lighthouse ledger.\n")

    proc = footnotes("--data-dir", str(cli_data_dir), "index", str(docs), "--json")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "settings.json" in line]
    assert len(lines) == 2
    assert lines[0].startswith("footnotes: settings.json: ignore_patterns: it should be a list")
    assert lines[1].startswith("footnotes: settings.json: top_k: it should be less than")
    assert json.loads(proc.stdout)["files_indexed"] == 2  # "*" did not ignore every file

    found = footnotes("--data-dir", str(cli_data_dir), "search", "Quillfeather", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["hits"][0]["path"] == str(docs / "notes.txt")
    assert settings.read_text() == before  # commands never rewrite the person's file


def test_the_window_names_the_bad_keys_in_its_message_bar(qapp: Any, tmp_path: Path) -> None:
    from app.ui.main import build

    data = DataDir(tmp_path / "data").ensure()
    write(data.settings_path, {"top_k": "eight", "ignore_patterns": "*.tmp"})
    gui = build(data.root, app=qapp)  # not started: no engine process is needed here
    try:
        bar = gui.window.errors
        assert not bar.isHidden()
        text = bar.message.text()
        assert "top_k" in text and "ignore_patterns" in text
        assert gui.service.settings.ignore_patterns == DEFAULT_IGNORE
    finally:
        gui.quit()
        assert gui.service.wait_stopped(60)
        gui.window.close()
        gui.window.deleteLater()
