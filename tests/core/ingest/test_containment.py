"""Containment at open time: a file is read only where its open descriptor really lies."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.index.manifest import Manifest
from app.core.index.plan import plan
from app.core.index.report import IndexReport
from app.core.ingest.containment import DATA_DIR, OUTSIDE
from app.core.ingest.loaders import LoadError, read_file
from app.core.ingest.parsing import ParseLimits, parse_file
from app.core.ingest.scanning import IgnoreRules, normalize

SECRET = "the outside secret is hunter2"


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A watched folder with one inside file, and a private folder outside it."""
    root = tmp_path / "watched"
    root.mkdir()
    (root / "inside.txt").write_text("an ordinary note about the orchard\n")
    outside = tmp_path / "private"
    outside.mkdir(mode=0o700)
    (outside / "secret.txt").write_text(SECRET + "\n")
    return root, outside


def test_read_file_refuses_a_link_out_of_the_folder(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    (root / "link.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(LoadError) as err:
        read_file(str(root / "link.txt"), within=normalize(root))
    assert err.value.reason == OUTSIDE
    assert read_file(str(root / "inside.txt"), within=normalize(root)).startswith(b"an ordinary")


def test_read_file_follows_a_link_that_stays_inside(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    (root / "alias.txt").symlink_to(root / "inside.txt")
    assert read_file(str(root / "alias.txt"), within=normalize(root)).startswith(b"an ordinary")


def test_read_file_refuses_the_data_folder(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text("{}")
    with pytest.raises(LoadError) as err:
        read_file(str(data / "settings.json"), excluded=[normalize(data)])
    assert err.value.reason == DATA_DIR


def test_a_link_swapped_in_after_the_plan_is_not_read(
    layout: tuple[Path, Path], tmp_path: Path
) -> None:
    """The scan saw an inside link; by the time the reader opens it, it leads outside."""
    root, outside = layout
    race = root / "race.txt"
    race.symlink_to(root / "inside.txt")
    manifest = Manifest(tmp_path / "manifest.sqlite3")
    try:
        manifest.add_folder(normalize(root))
        changed = plan(manifest, [normalize(root)], IgnoreRules([]), IndexReport(), bool).changed
    finally:
        manifest.close()
    (fs,) = [fs for fs in changed if fs.path.endswith("race.txt")]
    swapped = root / "swap.tmp"
    swapped.symlink_to(outside / "secret.txt")
    os.replace(swapped, race)
    result = parse_file(fs.path, None, ParseLimits(), within=fs.within)
    assert result.error == OUTSIDE
    assert not any(SECRET in c.text for c in result.chunks)


def test_a_watched_path_that_leads_out_is_not_planned(
    layout: tuple[Path, Path], tmp_path: Path
) -> None:
    """A watcher event names R/race.txt, a link out of R: it is not read (it was, by os.stat)."""
    root, outside = layout
    (root / "race.txt").symlink_to(outside / "secret.txt")
    (root / "sub").symlink_to(outside, target_is_directory=True)
    manifest = Manifest(tmp_path / "manifest.sqlite3")
    try:
        manifest.add_folder(normalize(root))
        paths = [str(root / "race.txt"), str(root / "sub"), str(root / "inside.txt")]
        changed = plan(manifest, paths, IgnoreRules([]), IndexReport(), bool).changed
    finally:
        manifest.close()
    assert [os.path.basename(fs.path) for fs in changed] == ["inside.txt"]


def test_the_data_folder_inside_a_watched_folder_is_never_planned(tmp_path: Path) -> None:
    root = tmp_path / "watched"
    data = root / "footnotes-data"
    data.mkdir(parents=True)
    (root / "note.txt").write_text("a note\n")
    (data / "settings.json").write_text("{}")
    (data / "models").mkdir()
    (data / "models" / "vocab.txt").write_text("[PAD]\n[UNK]\n")
    (root / "alias.txt").symlink_to(data / "models" / "vocab.txt")
    manifest = Manifest(data / "manifest.sqlite3")
    try:
        manifest.add_folder(normalize(root))
        report = IndexReport()
        changed = plan(
            manifest, [normalize(root), str(data / "settings.json")], IgnoreRules([]), report,
            bool, [str(data)],
        ).changed  # fmt: skip
    finally:
        manifest.close()
    assert [os.path.basename(fs.path) for fs in changed] == ["note.txt"]
