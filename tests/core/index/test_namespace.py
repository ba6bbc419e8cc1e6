"""Which Chroma server collection belongs to a data directory: a random id kept in it, made
once, kept across runs, and made again (a new, empty collection) when damaged."""

from __future__ import annotations

import os
import re
from pathlib import Path

from app.core.index.namespace import NAMESPACE_FILE, data_dir_namespace


def test_each_data_dir_has_its_own_id_kept_across_runs(tmp_path: Path) -> None:
    one = data_dir_namespace(tmp_path / "one")  # the folder is made for it
    assert re.fullmatch(r"[0-9a-f]{16}", one)
    assert data_dir_namespace(tmp_path / "one") == one
    assert data_dir_namespace(tmp_path / "two") != one
    assert (tmp_path / "one" / NAMESPACE_FILE).read_text().strip() == one
    assert os.listdir(tmp_path / "one") == [NAMESPACE_FILE]  # no temporary left behind


def test_a_damaged_id_is_replaced_by_a_new_one(tmp_path: Path) -> None:
    (tmp_path / NAMESPACE_FILE).write_text("not an id\n")
    fresh = data_dir_namespace(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{16}", fresh)
    assert data_dir_namespace(tmp_path) == fresh
