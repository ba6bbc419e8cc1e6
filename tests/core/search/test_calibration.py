"""Per-index calibration of the support flag: the threshold chosen from the index's own probe
questions, per region where its top-level folders differ, stored in the data directory and
measured again when the index grows. (Measured on a real index in
``test_support_calibration.py``.)"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import pytest

from app.core.index.schema import INDEX_FORMAT
from app.core.search import calibration
from app.core.search.calibration import Calibration, CalibrationFile, choose_threshold

REGIONS = (
    {"folder": "/w/filings", "threshold": 0.6, "passages": 600, "probes": 20, "lookalike": True},
    {"folder": "/w/notes", "threshold": 0.3, "passages": 400, "probes": 20, "lookalike": False},
)
SPLIT = Calibration(
    0.4, 0.35, "m", 1000, "2026-01-01", 40, 24, 0.9, 0.8, 0.95, INDEX_FORMAT, REGIONS
)


def test_choose_threshold_rises_where_missing_evidence_still_scores_high() -> None:
    answerable = [0.5 + i / 100 for i in range(40)]  # 0.50 .. 0.89
    off = [i / 100 for i in range(20)]  # 0.00 .. 0.19
    # questions whose file is left out score low: the shipped threshold already flags them
    low = choose_threshold(answerable, [0.1, 0.12, 0.15, 0.18], off, shipped=0.3)
    assert low == pytest.approx(0.3 - calibration.MAX_DROP)
    # near-identical documents: with the file left out they still score 0.4 .. 0.5
    high = choose_threshold(answerable, [0.4, 0.42, 0.45, 0.5], off, shipped=0.3)
    assert 0.44 < high <= 0.5
    # never above the point that flags ANSWERABLE_FLAGGED of the answerable ones
    capped = choose_threshold(answerable, [0.8, 0.85, 0.9, 0.95], off, shipped=0.3)
    assert capped == pytest.approx(float(np.quantile(answerable, calibration.ANSWERABLE_FLAGGED)))
    # nor more than MAX_RAISE above the shipped threshold
    assert choose_threshold([0.99] * 5, [0.95] * 5, off, shipped=0.3) == pytest.approx(
        0.3 + calibration.MAX_RAISE
    )
    # nothing to learn from: the shipped threshold stays
    assert choose_threshold([], [], [], shipped=0.3) == 0.3


def test_stale_when_grown_or_for_another_model() -> None:
    cal = Calibration(0.5, 0.4, "m", 1000, "2026-01-01", index_format=INDEX_FORMAT)
    assert not calibration.stale(cal, 1100, "m")
    assert calibration.stale(cal, 1300, "m") and calibration.stale(cal, 700, "m")
    assert calibration.stale(cal, 1000, "other")
    assert calibration.stale(None, 1000, "m")
    assert not calibration.stale(None, calibration.MIN_PASSAGES - 1, "m")
    # the folders that qualify as regions are not the ones measured
    regions = ({"folder": "/d/a", "lookalike": False}, {"folder": "/d/b", "lookalike": True})
    split = dataclasses.replace(cal, regions=regions)
    assert not calibration.stale(split, 1000, "m", ["/d/b", "/d/a"])
    # measured before look-alike regions were marked: measured again
    older = dataclasses.replace(cal, regions=({"folder": "/d/a"}, {"folder": "/d/b"}))
    assert calibration.stale(older, 1000, "m", ["/d/b", "/d/a"])
    assert calibration.stale(split, 1000, "m", ["/d/a", "/d/b", "/d/c"])
    assert calibration.stale(cal, 1000, "m", ["/d/a", "/d/b"])


def test_a_question_is_judged_by_the_threshold_of_its_best_passages_folder() -> None:
    assert SPLIT.threshold_at("/w/filings/acme/2021.pdf") == 0.6
    assert SPLIT.threshold_at("/w/notes/garden.md") == 0.3
    assert SPLIT.threshold_at("/elsewhere/a.md") == SPLIT.threshold_at(None) == 0.4
    assert SPLIT.lookalike_at("/w/filings/acme/2021.pdf")
    assert not SPLIT.lookalike_at("/w/notes/garden.md") and not SPLIT.lookalike_at(None)


def test_doctor_says_how_the_flag_was_calibrated_in_one_line() -> None:
    line = SPLIT.describe()
    assert "\n" not in line
    assert line.startswith("calibrated for this index on 2026-01-01 at 1,000 passages")
    assert "threshold 0.40 (shipped 0.35)" in line
    assert "in /w/filings (600 passages, 20 questions) 0.60 (look-alike documents" in line
    assert line.endswith("in /w/notes (400 passages, 20 questions) 0.30")


def test_a_calibration_is_saved_and_loaded_back_whole(tmp_path: Path) -> None:
    calibration.save(tmp_path, SPLIT)
    assert calibration.load(tmp_path) == SPLIT
    raw = json.loads(calibration.path_for(tmp_path).read_text())
    raw["from_a_newer_version"] = 1  # keys it does not know are passed over
    calibration.path_for(tmp_path).write_text(json.dumps(raw))
    assert calibration.load(tmp_path) == SPLIT


@pytest.mark.parametrize("content", ["", "not json", '{"threshold": 0.4}', "\xff\xfe"])
def test_a_missing_or_damaged_calibration_file_is_none(tmp_path: Path, content: str) -> None:
    assert calibration.load(tmp_path) is None
    calibration.path_for(tmp_path).write_text(content, encoding="latin-1")
    assert calibration.load(tmp_path) is None


@pytest.mark.parametrize("content", ["[1, 2]", "null"])
def test_a_calibration_file_holding_no_json_object_is_none(tmp_path: Path, content: str) -> None:
    calibration.path_for(tmp_path).write_text(content)
    assert calibration.load(tmp_path) is None


def test_the_stored_file_is_read_again_only_when_it_changes(tmp_path: Path) -> None:
    stored = CalibrationFile(tmp_path)
    assert stored.current() is None
    calibration.save(tmp_path, SPLIT)
    first = stored.current()
    assert first == SPLIT and stored.current() is first  # not read again
    calibration.save(tmp_path, dataclasses.replace(SPLIT, threshold=0.5))
    assert stored.current() is not None and stored.current().threshold == 0.5  # type: ignore[union-attr]
    os.unlink(calibration.path_for(tmp_path))
    assert stored.current() is None
