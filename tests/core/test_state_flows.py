"""Settings flow as one snapshot, and what searches reuse belongs to the engine that made it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from app.core.search import calibration, support


def test_new_settings_replace_the_old_ones_whole_and_the_next_run_reads_by_them(
    tmp_path: Path, make_engine
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "keep.md").write_text("# Keep\n\nThe lighthouse lamp is lit at dusk.\n")
    (docs / "drop.log").write_text("The lighthouse log says the lamp failed twice.\n")
    engine = make_engine()
    first = engine.index([str(docs)])
    assert first.files_indexed == 2

    new = dataclasses.replace(engine.settings, ignore_patterns=["*.log"])
    engine.apply_settings(new)
    assert engine.settings is new  # the snapshot itself, not a patched copy
    engine.index([str(docs)])
    indexed = set(engine.manifest.files_under())
    assert str(docs / "keep.md") in indexed
    assert str(docs / "drop.log") not in indexed  # the new rules were read, no field patched


def test_each_engine_keeps_its_own_search_cache_and_sees_a_new_calibration(
    tmp_path: Path, make_engine
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.md").write_text("# Kiln\n\nThe pottery kiln fires at 1240 degrees.\n")
    one, two = make_engine("one"), make_engine("two")
    one.index([str(docs)])
    two.index([str(docs)])
    assert one.retriever.cache is one.retriever.cache  # kept between searches
    assert one.retriever.cache is not two.retriever.cache  # never shared between indexes

    question = "How hot does the pottery kiln fire?"
    before = one.search(question)
    model = support.SupportModel.load()
    strict = calibration.Calibration(0.999, model.threshold, model.key, 1, "2026-12-02")
    calibration.save(one.data.root, strict)  # as a calibration run in another process would
    after = one.search(question)
    assert before.support.supported and not after.support.supported
    assert two.search(question).support.supported  # the other index keeps its own threshold
