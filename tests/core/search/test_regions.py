"""Parts of an index that calibrate the support flag apart: its top-level folders, each with
enough passages to measure, over a real manifest."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.index.manifest import Manifest
from app.core.index.records import FileRecord
from app.core.search.regions import MAX_REGIONS, folder_of, regions
from app.core.text import text_hash
from app.core.types import Chunk


@pytest.fixture
def manifest(tmp_path: Path) -> Iterator[Manifest]:
    m = Manifest(tmp_path / "manifest.sqlite3")
    yield m
    m.close()


def add(manifest: Manifest, path: str, passages: int) -> None:
    texts = [f"passage {i} of {path}" for i in range(passages)]
    chunks = [Chunk(path, None, i, i + 1, t, text_hash(t)) for i, t in enumerate(texts)]
    manifest.replace_file(FileRecord(path, 1, 1, "h", "indexed"), chunks)


def test_the_top_level_folders_of_a_watched_folder_are_its_regions(manifest: Manifest) -> None:
    manifest.add_folder("/w")
    add(manifest, "/w/filings/acme/2021.pdf", 30)
    add(manifest, "/w/filings/globex.pdf", 20)
    add(manifest, "/w/notes/garden.md", 12)
    add(manifest, "/w/loose.txt", 11)  # files directly in the folder form a region of their own
    add(manifest, "/w/tiny/one.md", 3)
    assert regions(manifest, min_passages=10) == [
        ("/w/filings", 50),
        ("/w/notes", 12),
        ("/w", 11),
    ]


def test_an_index_without_watched_folders_splits_below_the_folder_its_files_share(
    manifest: Manifest,
) -> None:
    add(manifest, "/home/me/docs/manuals/r.pdf", 15)
    add(manifest, "/home/me/docs/notes/a.md", 15)
    assert regions(manifest, min_passages=10) == [
        ("/home/me/docs/manuals", 15),
        ("/home/me/docs/notes", 15),
    ]


def test_fewer_than_two_regions_large_enough_is_none(manifest: Manifest) -> None:
    manifest.add_folder("/w")
    add(manifest, "/w/big/a.md", 50)
    add(manifest, "/w/small/b.md", 5)
    assert regions(manifest, min_passages=10) == []
    assert len(regions(manifest, min_passages=5)) == 2  # both count at a lower bar


def test_at_most_the_largest_regions_are_measured(manifest: Manifest) -> None:
    manifest.add_folder("/w")
    for i in range(MAX_REGIONS + 2):
        add(manifest, f"/w/f{i}/a.md", 10 + i)
    found = regions(manifest, min_passages=1)
    assert len(found) == MAX_REGIONS
    assert found[0] == (f"/w/f{MAX_REGIONS + 1}", 10 + MAX_REGIONS + 1)


def test_a_path_belongs_to_the_deepest_region_holding_it() -> None:
    folders = ["/w", "/w/filings", "/w/filings-old"]
    assert folder_of("/w/filings/a.pdf", folders) == "/w/filings"
    assert folder_of("/w/filings-old/a.pdf", folders) == "/w/filings-old"
    assert folder_of("/w/notes/a.md", folders) == "/w"
    assert folder_of("/elsewhere/a.md", folders) is None
    assert folder_of("/w", folders) is None  # the folder itself holds no passage
