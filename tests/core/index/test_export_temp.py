"""The run-time model export keeps its temporary files inside the data directory and removes
them on success (test_embedding's first use), on failure, and after a kill (the next load)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from app.core.errors import EmbeddingError
from app.core.index.embedding import load_embedder
from app.core.index.int8_export import export_int8, remove_left_exports, temp_files_in


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
    assert remove_left_exports(models) == [left]
    assert not left.exists()  # its process is gone: a kill left it
    assert running.exists()  # this process's own export is still being made


def test_a_failed_export_leaves_nothing(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    target = models / "broken-onnx-int8-avx2"
    with pytest.raises(EmbeddingError):
        export_int8("broken", str(tmp_path / "no-such-model"), target, models)
    assert list(models.iterdir()) == []  # no .tmp- folder, no half export


def test_what_a_killed_export_left_goes_at_the_next_load_whatever_it_loads(
    tmp_path: Path,
) -> None:
    models = tmp_path / "models"
    dead = subprocess.Popen(["true"])
    dead.wait()
    left = models / f".tmp-all-MiniLM-L6-v2-onnx-int8-avx2-{dead.pid}-k1ll"
    (left / "scratch" / "tmpab12").mkdir(parents=True)
    (left / "scratch" / "tmpab12" / "model.onnx").write_bytes(b"\0" * 4096)
    with pytest.raises(EmbeddingError):  # no export is made (a model name that is not here)
        load_embedder("no-such-model", backend="torch", models_dir=models)
    assert not left.exists()
