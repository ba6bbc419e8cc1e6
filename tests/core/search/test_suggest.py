"""A first question drawn from the indexed files: a heading's subject, never a generic section."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.index.manifest import Manifest
from app.core.search.suggest import first_question, question_about

BODY = "They need six hours of direct sun and deep watering twice a week in summer. "


def suggested(make_engine: Any, folder: Path) -> Any:
    engine = make_engine()
    engine.index([str(folder)])
    reader = Manifest(engine.data.manifest_path, readonly=True)
    try:
        return first_question(reader)
    finally:
        reader.close()


def test_the_question_is_about_a_heading_of_an_indexed_passage(
    make_engine: Any, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "garden.md").write_text(
        f"# Garden\n\n## License\n\n{BODY * 2}\n\n## Tomatoes\n\n{BODY * 3}\n"
    )
    got = suggested(make_engine, notes)
    assert got is not None and got.path.endswith("garden.md")
    assert got.question == "What do my files say about tomatoes?"  # not "License"


def test_without_headings_the_files_name_stands_in(make_engine: Any, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "bikes.txt").write_text(BODY * 3 + "\n")
    got = suggested(make_engine, notes)
    assert got is not None and got.question == "What is in bikes.txt?"


def test_an_empty_index_suggests_nothing(make_engine: Any, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert suggested(make_engine, empty) is None


def test_a_heading_that_asks_is_kept_and_names_keep_their_capitals() -> None:
    assert question_about("How do I reset the router?") == "How do I reset the router?"
    assert question_about("Ulta Beauty") == "What do my files say about Ulta Beauty?"
