"""``--in`` a path that is neither on disk nor in the index is a usage error (exit 2), in
``search`` and ``ask`` alike; a path that is there is searched as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import footnotes


@pytest.mark.parametrize("command", ["search", "ask"])
def test_a_typo_in_in_is_a_usage_error(tmp_path: Path, command: str) -> None:
    typo = str(tmp_path / "dcos")
    proc = footnotes("--data-dir", str(tmp_path / "data"), command, "lanterns", "--in", typo)
    assert proc.returncode == 2
    assert f"--in {typo}: no such file or folder, and nothing indexed from it" in proc.stderr
    assert proc.stdout == ""
