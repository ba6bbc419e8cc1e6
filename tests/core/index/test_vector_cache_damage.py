"""A damaged vector cache (vectors.npz) is rebuilt from the store, never a broken search."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.core.index import vectors
from app.core.index.matrix_cache import CACHE_FILE
from app.core.index.vectors import VectorMatrix


def saved(tmp_path: Path) -> Path:
    matrix = VectorMatrix(4)
    matrix.add(["a", "b", "c"], np.eye(3, 4, dtype=np.float32))
    path = tmp_path / CACHE_FILE
    vectors.save(matrix, path, "tok")
    assert vectors.load(path, 4, "tok") is not None
    assert not path.with_name(path.name + ".tmp").exists()
    return path


@pytest.mark.parametrize("damage", ["empty", "half", "garbage", "tail"])
def test_a_damaged_cache_loads_as_none(tmp_path: Path, damage: str) -> None:
    path = saved(tmp_path)
    data = path.read_bytes()
    cut = {"empty": b"", "half": data[: len(data) // 2], "garbage": b"PK\x03\x04" + b"\0" * 64}
    path.write_bytes(cut.get(damage, data[:-30]))
    assert vectors.load(path, 4, "tok") is None


@pytest.mark.slow
def test_search_works_after_the_cache_is_cut_short(tmp_path: Path, make_engine) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.md").write_text("# Orchard\n\nThe orchard has forty apple trees.\n")
    engine = make_engine("data")
    engine.index([str(docs)])
    assert engine.retriever.search("apple trees", k=1).hits
    cache = engine.data.root / CACHE_FILE
    engine.close()
    if cache.exists():
        cache.write_bytes(cache.read_bytes()[:20])
    else:
        cache.write_bytes(b"")
    again = make_engine("data")
    hits = again.retriever.search("how many apple trees", k=1).hits
    assert hits and "forty apple trees" in hits[0].text
