"""The run-time model export keeps its temporary files inside the data directory, and what a
killed export left there is removed by the next one."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from app.core.index.int8_export import _remove_stale_tmp, temp_files_in


def test_temporary_files_made_during_the_export_land_in_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "models" / ".tmp-export"
    folder.mkdir(parents=True)
    with temp_files_in(folder), tempfile.TemporaryDirectory() as made:
        assert Path(made).parent == folder  # as optimum's export makes its own
    assert tempfile.gettempdir() != str(folder)  # restored afterwards


def test_a_folder_left_by_a_killed_export_is_removed_and_a_running_ones_kept(
    tmp_path: Path,
) -> None:
    models = tmp_path / "models"
    dead = subprocess.Popen(["true"])
    dead.wait()
    slug = "all-MiniLM-L6-v2-onnx-int8-avx2"
    left = models / f".tmp-{slug}-{dead.pid}-x1y2"
    running = models / f".tmp-{slug}-{os.getpid()}-a3b4"
    for folder in (left, running):
        (folder / "onnx").mkdir(parents=True)
        (folder / "onnx" / "model.onnx").write_bytes(b"\0" * 1024)
    _remove_stale_tmp(models, slug)
    assert not left.exists()  # its process is gone: a kill left it
    assert running.exists()  # this process's own export is still being made
