"""Damage has a way back: a damaged manifest is refused with a sentence and kept aside, never
taken for a new index; ``doctor`` names each damaged file; ``repair`` rebuilds what is derived."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.core.config import DataDir
from app.core.index import damage
from tests.helpers import footnotes


@pytest.fixture
def data(tmp_path: Path, cli_index: tuple[Path, Path, dict]) -> Path:
    """A copy of the shared CLI index, ours to damage."""
    copy = tmp_path / "data"
    shutil.copytree(cli_index[0], copy)
    assert footnotes("--data-dir", str(copy), "folders", "add", str(cli_index[1])).returncode == 0
    return copy


def _one_line_refusal(proc, what: str = "damaged") -> None:
    assert proc.returncode == 1, proc.stdout
    assert "Traceback" not in proc.stderr and what in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_a_truncated_manifest_is_refused_and_kept_aside(data: Path) -> None:
    manifest = data / "manifest.sqlite3"
    whole = manifest.read_bytes()
    manifest.write_bytes(whole[: len(whole) // 2])
    status = footnotes("--data-dir", str(data), "status", "--json")
    _one_line_refusal(status)
    assert "footnotes repair" in status.stderr
    (aside,) = data.glob("manifest.sqlite3.damaged-*[0-9]")
    assert aside.read_bytes() == whole[: len(whole) // 2]  # kept, byte for byte
    for command in (["search", "copper"], ["ask", "copper?"]):
        _one_line_refusal(footnotes("--data-dir", str(data), *command), "set aside")
    assert not manifest.exists()  # a reading command never starts an empty index
    doctor = footnotes("--data-dir", str(data), "doctor")
    assert doctor.returncode == 1 and "Traceback" not in doctor.stderr
    assert "damaged: " in doctor.stdout and "manifest.sqlite3" in doctor.stdout
    # the damage is the index's: the embedding model still loads, and nothing else says
    # "damaged" again (a person told the model does not load would reinstall for nothing)
    lines = doctor.stdout.splitlines()
    assert any(line.startswith("ok       embedding model") for line in lines), doctor.stdout
    assert sum("damaged" in line for line in lines) == 2  # the file, and the index not read


def test_an_empty_manifest_beside_vectors_is_not_a_new_index(
    data: Path, cli_index: tuple[Path, Path, dict]
) -> None:
    (data / "manifest.sqlite3").write_bytes(b"")
    proc = footnotes("--data-dir", str(data), "folders", "list", "--json")
    _one_line_refusal(proc)
    assert "not taken for a new index" in proc.stderr
    # the way back the sentence names: index the folders again, reusing every vector
    index = footnotes("--data-dir", str(data), "index", str(cli_index[1]), "--json")
    assert index.returncode == 0, index.stderr
    report = json.loads(index.stdout)
    assert report["files_indexed"] > 0 and report["chunks_embedded"] == 0


def test_doctor_names_each_damaged_file_with_its_repair(data: Path) -> None:
    (data / "threads.sqlite3").write_bytes(b"SQLite format 3\x00" + b"\x00" * 50)
    (data / "vectors.npz").write_bytes(b"PK\x03\x04 cut short")
    (data / "settings.json").write_text("{not json")
    doctor = footnotes("--data-dir", str(data), "doctor")
    assert doctor.returncode == 1 and "Traceback" not in doctor.stderr
    damaged = [line for line in doctor.stdout.splitlines() if "damaged:" in line]
    assert any("threads.sqlite3" in line and "footnotes repair" in line for line in damaged)
    assert any("vectors.npz" in line and "footnotes repair" in line for line in damaged)
    assert any(line.startswith("problem  settings.json") for line in doctor.stdout.splitlines())


def test_repair_rebuilds_a_damaged_vector_store(data: Path) -> None:
    chroma = data / "chroma" / "chroma.sqlite3"
    whole = chroma.read_bytes()
    chroma.write_bytes(whole[: len(whole) // 3])
    (found,) = damage.survey(DataDir(data))  # what doctor names
    assert found.path == chroma and "footnotes repair" in found.repair
    repair = footnotes("--data-dir", str(data), "repair")
    assert repair.returncode == 0, repair.stderr
    assert "set aside as chroma.damaged-" in repair.stdout
    assert list(data.glob("chroma.damaged-*"))
    search = footnotes("--data-dir", str(data), "search", "copper lantern", "--json")
    assert search.returncode == 0, search.stderr
    assert json.loads(search.stdout)["hits"]
    doctor = footnotes("--data-dir", str(data), "doctor")
    assert "damaged:" not in doctor.stdout
    assert "manifest and vector store agree" in doctor.stdout


@pytest.mark.slow  # four CLI processes
def test_repair_rebuilds_a_truncated_manifest_with_every_folder_from_the_files(
    data: Path, cli_index: tuple[Path, Path, dict], tmp_path: Path
) -> None:
    """The probe's break: repair exited 1 with the same message, and indexing again forgot
    the watched folders and every other folder indexed."""
    docs = cli_index[1]
    other = tmp_path / "other"
    other.mkdir()
    (other / "kiln.md").write_text("# Kiln\n\nThe pottery kiln fires at 1240 degrees.\n")
    assert footnotes("--data-dir", str(data), "index", str(other)).returncode == 0
    manifest = data / "manifest.sqlite3"
    whole = manifest.read_bytes()
    manifest.write_bytes(whole[: len(whole) // 2])

    repair = footnotes("--data-dir", str(data), "repair")
    assert repair.returncode == 0, repair.stderr
    assert "set aside as manifest.sqlite3.damaged-" in repair.stdout
    assert "1 watched folder and 1 other path read again" in repair.stdout, repair.stdout
    assert " 0 embedded)" in repair.stdout, repair.stdout  # every vector reused
    listed = footnotes("--data-dir", str(data), "folders", "list", "--json")
    assert json.loads(listed.stdout)["folders"] == [str(docs)]
    for query, where in (("copper lantern", docs), ("pottery kiln", other)):
        found = footnotes("--data-dir", str(data), "search", query, "--json")
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["hits"][0]["path"].startswith(str(where))
