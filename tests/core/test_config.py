"""Settings, the data directory rule and atomic saving: settings.json is checked key by key.

A bad key costs that key only: its default is used and the problem is recorded, printed by
the command line (one line each on stderr) and shown in the window. A file that cannot be
read as JSON is kept, and copied to settings.json.bak before anything saves over it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from app.core.config import (
    DEFAULT_IGNORE,
    DataDir,
    Settings,
    atomic_write_text,
    backup_path,
    host_problem,
    resolve_data_dir,
)


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


def test_a_missing_file_is_the_defaults_with_nothing_to_report(tmp_path: Path) -> None:
    loaded = Settings.load(tmp_path / "settings.json")
    assert loaded == Settings() and loaded.problems == []


def test_a_file_saved_by_a_windows_editor_with_a_bom_is_read(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"top_k": 4}).encode())
    loaded = Settings.load(path)
    assert loaded.top_k == 4 and loaded.problems == []


def test_a_settings_path_that_cannot_be_read_is_reported_and_never_saved_over(
    tmp_path: Path,
) -> None:
    path = tmp_path / "settings.json"
    path.mkdir()  # something there that is no file
    loaded = Settings.load(path)
    [problem] = loaded.problems
    assert problem.key == "" and "could not be read" in problem.reason
    with pytest.raises(OSError):
        loaded.save(path)
    assert path.is_dir()


def test_what_is_saved_loads_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "settings.json"  # its folder is made
    mine = Settings(ollama_model="mistral", top_k=3, ignore_patterns=["drafts"], ocr_enabled=False)
    mine.save(path)
    assert Settings.load(path) == mine
    assert set(json.loads(path.read_text())) == set(Settings().to_dict())


def test_the_command_lines_overrides_replace_only_what_they_give() -> None:
    base = Settings(ollama_host="http://a:11434", chroma_url="http://c:8000")
    assert base.with_overrides() is base
    moved = base.with_overrides(ollama_host="http://b:11434")
    assert (moved.ollama_host, moved.chroma_url) == ("http://b:11434", "http://c:8000")
    assert base.with_overrides(chroma_url="http://d:8000").ollama_host == "http://a:11434"


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("http://127.0.0.1:11434", None),
        ("localhost:11434", None),
        ("https://ollama.example.com", None),
        ("http://[::1]:11434", None),
        ("", "holds no spaces"),
        ("local host", "holds no spaces"),
        ("ftp://example.com", "should start with http:// or https://, not ftp://"),
        ("http://", "names no host"),
        ("localhost:0", "from 1 to 65535"),
        ("localhost:99999", "from 1 to 65535"),
        ("http://[::1:11434", "written in brackets"),
    ],
)
def test_an_ollama_address_is_checked_by_one_rule(host: str, why: str | None) -> None:
    found = host_problem(host)
    if why is None:
        assert found is None
    else:
        assert found is not None and why in found
    loaded = Settings.from_dict({"ollama_host": host})
    assert ("ollama_host" in problems(loaded)) == (why is not None)


def test_the_data_dir_is_the_option_then_the_variable_then_the_platforms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOOTNOTES_DATA_DIR", str(tmp_path / "from-env"))
    assert resolve_data_dir(tmp_path / "given") == (tmp_path / "given").resolve()
    assert resolve_data_dir() == (tmp_path / "from-env").resolve()
    monkeypatch.delenv("FOOTNOTES_DATA_DIR")
    default = resolve_data_dir()
    assert default.is_absolute() and default.name == "footnotes"
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_data_dir("~/notes-index") == tmp_path / "notes-index"


def test_an_atomic_write_replaces_the_file_whole_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("old")
    atomic_write_text(path, "new ünïcode")
    assert path.read_text(encoding="utf-8") == "new ünïcode"
    assert os.listdir(tmp_path) == ["settings.json"]


def test_a_failed_atomic_write_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(path, "\ud800")  # cannot be encoded: fails before the rename
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["settings.json"]


def test_every_piece_of_state_lives_inside_the_one_data_directory(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    paths = [
        data.settings_path,
        data.manifest_path,
        data.chroma_path,
        data.models_path,
        data.threads_path,
        data.ocr_cache_path,
        data.lock_path,
    ]
    assert len(set(paths)) == len(paths)
    assert all(p.parent == data.root for p in paths)
    assert not data.root.exists()  # naming the paths creates nothing


def test_ensure_makes_the_data_dir_and_loads_its_settings(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "a" / "data")
    old = os.umask(0o022)
    try:
        assert data.ensure() is data
    finally:
        os.umask(old)
    assert data.root.is_dir() and (data.root.stat().st_mode & 0o777) == 0o700
    write(data.settings_path, {"top_k": 11})
    assert data.load_settings().top_k == 11
