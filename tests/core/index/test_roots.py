"""The folders a data directory indexes live apart from the manifest (``roots.json``), so that
``repair`` rebuilds a damaged manifest from the files with every folder, reusing each vector."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.errors import DamagedError
from app.core.index.roots import ROOTS_FILE, RootsFile
from tests.core.index.test_store_faults import write_notes


def roots(data: Path) -> dict[str, list[str]]:
    raw = json.loads((data / ROOTS_FILE).read_text())
    return {"watched": raw["watched"], "indexed": raw["indexed"]}


def truncate(path: Path) -> None:
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])


def test_watched_folders_and_indexed_paths_are_remembered_and_forgotten(
    make_engine, tmp_path: Path
) -> None:
    notes, other, loose = tmp_path / "notes", tmp_path / "other", tmp_path / "loose"
    write_notes(notes, ["a"], paragraphs=1)
    write_notes(other / "sub", ["b"], paragraphs=1)
    write_notes(loose, ["c", "d"], paragraphs=1)
    engine = make_engine()
    engine.add_folder(str(notes))
    engine.index([str(notes), str(other / "sub"), str(loose / "c.md"), str(tmp_path / "nothere")])
    assert roots(engine.data.root) == {
        "watched": [str(notes)],
        "indexed": [str(loose / "c.md"), str(other / "sub")],  # inside a watched one: no entry
    }
    engine.index([str(other)])  # an outer folder takes the place of what it holds
    assert roots(engine.data.root)["indexed"] == [str(loose / "c.md"), str(other)]
    engine.manifest.remove_folder(str(notes))
    engine.indexer().remove([str(other)])  # `folders remove`: its files leave on purpose
    assert roots(engine.data.root) == {"watched": [], "indexed": [str(loose / "c.md")]}


def test_repair_rebuilds_a_damaged_manifest_from_the_files_reusing_every_vector(
    make_engine, tmp_path: Path
) -> None:
    watched, other = tmp_path / "watched", tmp_path / "other"
    write_notes(watched, ["alpha", "beta"])
    write_notes(other, ["gamma"])
    engine = make_engine()
    engine.add_folder(str(watched))
    engine.index([str(watched), str(other)])
    before = {p: r.chunks for p, r in engine.manifest.files_under().items()}
    vectors = engine.store().count()
    engine.close()
    truncate(engine.data.manifest_path)

    again = make_engine()
    with pytest.raises(DamagedError, match="footnotes repair"):
        again.manifest.files_under()
    lines = again.repair()
    assert any("1 watched folder and 1 other path read again" in line for line in lines), lines
    assert {p: r.chunks for p, r in again.manifest.files_under().items()} == before
    assert again.manifest.folders() == [str(watched)]
    assert again.store().count() == vectors
    rebuilt = next(line for line in lines if "rebuilt from your files" in line)
    assert rebuilt.endswith(" 0 embedded)"), rebuilt  # nothing computed again
    assert again.search("lantern", 3).hits


def test_a_new_manifest_beside_a_damaged_one_starts_with_the_watched_folders(
    make_engine, tmp_path: Path
) -> None:
    watched = tmp_path / "watched"
    write_notes(watched, ["alpha"], paragraphs=1)
    engine = make_engine()
    engine.add_folder(str(watched))
    engine.index([str(watched)])
    engine.close()
    truncate(engine.data.manifest_path)
    refused = make_engine()
    with pytest.raises(DamagedError):
        refused.index([str(tmp_path / "elsewhere")])  # sets it aside
    refused.close()
    fresh = make_engine()
    fresh.index([str(watched)])
    assert fresh.manifest.folders() == [str(watched)]  # not forgotten


def test_a_data_directory_from_before_roots_json_writes_it_from_its_manifest(
    make_engine, tmp_path: Path
) -> None:
    watched, other = tmp_path / "watched", tmp_path / "other"
    write_notes(watched, ["alpha"], paragraphs=1)
    write_notes(other, ["beta"], paragraphs=1)
    engine = make_engine()
    engine.add_folder(str(watched))
    engine.index([str(watched), str(other)])
    engine.close()
    (engine.data.root / ROOTS_FILE).unlink()
    make_engine().manifest.folders()  # a writer opens it
    assert roots(engine.data.root) == {
        "watched": [str(watched)],
        "indexed": [str(other / "beta.md")],  # what it held: never more than that
    }


def test_without_roots_json_repair_reads_what_the_damaged_manifest_still_holds(
    make_engine, tmp_path: Path
) -> None:
    watched = tmp_path / "watched"
    write_notes(watched, ["alpha", "beta"])
    engine = make_engine()
    engine.add_folder(str(watched))
    engine.index([str(watched)])
    engine.close()
    (engine.data.root / ROOTS_FILE).unlink()
    manifest = engine.data.manifest_path
    page = int.from_bytes(manifest.read_bytes()[16:18], "big")
    whole = manifest.read_bytes()
    manifest.write_bytes(whole[: len(whole) - page])  # its last page lost
    again = make_engine()
    lines = again.repair()
    assert again.manifest.folders() == [str(watched)], lines
    assert RootsFile(engine.data.root).load().watched == [str(watched)]
