"""``footnotes doctor`` counts agree with their nouns: "1 file, 1 passage", not "1 files"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.doctor import _check_index


def test_one_file_of_one_passage_is_said_in_the_singular(make_engine: Any, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "one.md").write_text("# One\n\nA single short note about lighthouses.\n")
    engine = make_engine()
    engine.index([str(notes)])
    ok, line = _check_index(engine)
    assert ok, line
    assert line.startswith("index: 1 file, 1 passage, 0 failed;"), line
