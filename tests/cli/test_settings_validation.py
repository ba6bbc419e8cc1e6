"""settings.json's problems as the front ends show them: one line each on the command line's
stderr, the bad keys named in the window's message bar.

The key-by-key checking itself (a bad key costs that key only; a file that is no JSON is kept
and backed up) is tested fast in ``tests/core/test_config.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.core.config import DEFAULT_IGNORE, DataDir
from tests.helpers import footnotes


def write(path: Path, content: str | dict[str, Any]) -> Path:
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


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
