"""The data directory is the owner's alone: folders 0700, every file in it 0600."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.config import DataDir
from app.core.threads.store import ThreadStore
from tests.helpers import footnotes

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The probe's umask (a usual desktop default): new files 0644 unless Footnotes says not."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def readable_by_others(root: Path) -> list[str]:
    """Every path in ``root`` (itself included) whose group or other bits are set."""
    paths = [root, *root.rglob("*")]
    return sorted(
        f"{p.relative_to(root.parent)} {stat.S_IMODE(p.lstat().st_mode):o}"
        for p in paths
        if not p.is_symlink() and p.lstat().st_mode & 0o077
    )


def test_a_new_data_dir_and_its_parents_are_owner_only(tmp_path: Path, umask_022: None) -> None:
    data = DataDir(tmp_path / "home" / ".local" / "share" / "footnotes").ensure()
    for folder in (data.root, data.root.parent, data.root.parent.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_every_file_an_index_and_a_thread_write_is_private(
    tmp_path: Path, make_engine, umask_022: None
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.md").write_text("# Orchard\n\nThe orchard has forty apple trees.\n")
    engine = make_engine("data")
    engine.index([str(docs)])
    assert engine.retriever.search("apple trees", k=1)
    threads = ThreadStore(engine.data.threads_path)
    try:
        threads.create("How many apple trees?")
    finally:
        threads.close()
    assert readable_by_others(engine.data.root) == []


def test_a_wide_data_dir_is_tightened_on_open(tmp_path: Path, umask_022: None) -> None:
    root = tmp_path / "data"
    (root / "chroma").mkdir(parents=True)
    os.chmod(root, 0o755)
    (root / "threads.sqlite3").write_bytes(b"")
    os.chmod(root / "threads.sqlite3", 0o644)
    (root / "chroma" / "chroma.sqlite3").write_bytes(b"")
    data = DataDir(root).ensure()
    assert readable_by_others(root) == []
    assert len(data.tightened) == 4  # the folder, chroma/ and the two files


@pytest.mark.slow
def test_doctor_says_a_wide_data_dir_was_made_owner_only(
    tmp_path: Path, cli_data_dir: Path
) -> None:
    os.chmod(cli_data_dir, 0o755)
    os.chmod(cli_data_dir / "settings.json", 0o644)
    proc = footnotes("--data-dir", str(cli_data_dir), "doctor")
    line = next(x for x in proc.stdout.splitlines() if "privacy:" in x)
    assert line.startswith("ok") and "now owner-only" in line
    assert readable_by_others(cli_data_dir) == []
