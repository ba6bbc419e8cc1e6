"""Owner-only modes for the data directory: folders 0700, files 0600, tightened when opened."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.private import make_private_dir, secure, tighten, too_open

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def umask_022() -> Iterator[None]:
    """A usual desktop umask, put back afterwards (``secure`` narrows the process's own)."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_the_data_dir_and_the_parents_it_makes_are_owner_only(
    tmp_path: Path, umask_022: None
) -> None:
    root = tmp_path / "home" / ".local" / "footnotes"
    before = mode(tmp_path)
    created = make_private_dir(root)
    assert created == [tmp_path / "home", tmp_path / "home" / ".local", root]
    assert all(mode(p) == 0o700 for p in created)
    assert mode(tmp_path) == before  # what was there is left alone
    assert make_private_dir(root) == []  # there already: nothing made


def test_what_others_could_read_is_found_and_tightened(tmp_path: Path, umask_022: None) -> None:
    root = tmp_path / "data"
    (root / "chroma").mkdir(parents=True)
    (root / "manifest.sqlite3").write_text("x")
    (root / "chroma" / "data.bin").write_text("y")
    os.chmod(root, 0o755)
    os.chmod(root / "chroma", 0o750)
    os.chmod(root / "manifest.sqlite3", 0o644)
    os.chmod(root / "chroma" / "data.bin", 0o600)  # already private
    wide = set(too_open(root))
    assert wide == {root, root / "chroma", root / "manifest.sqlite3"}
    assert set(tighten(root)) == wide
    assert (mode(root), mode(root / "chroma"), mode(root / "manifest.sqlite3")) == (
        0o700,
        0o700,
        0o600,
    )
    assert too_open(root) == [] and tighten(root) == []


def test_a_link_in_the_data_dir_never_leads_a_chmod_elsewhere(
    tmp_path: Path, umask_022: None
) -> None:
    outside = tmp_path / "shared.txt"
    outside.write_text("someone else's")
    os.chmod(outside, 0o644)
    root = tmp_path / "data"
    root.mkdir(mode=0o700)
    os.chmod(root, 0o700)
    (root / "link").symlink_to(outside)
    assert too_open(root) == []
    tighten(root)
    assert mode(outside) == 0o644


def test_secure_makes_what_the_process_writes_later_private(
    tmp_path: Path, umask_022: None
) -> None:
    root = tmp_path / "data"
    root.mkdir()
    os.chmod(root, 0o755)
    assert secure(root) == [root]  # what another user could read until now
    later = root / "threads.sqlite3-wal"
    later.write_text("written by SQLite after the open")
    (root / "ocr-cache").mkdir()
    assert mode(later) == 0o600 and mode(root / "ocr-cache") == 0o700


def test_a_missing_folder_has_nothing_open(tmp_path: Path) -> None:
    assert too_open(tmp_path / "nothing") == []
