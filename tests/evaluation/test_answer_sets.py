"""The answer sets kept in the repository (``app/evaluation/sets/fluent-answers-*.jsonl``): every
line is one the replay reads, labelled with a label it knows, with the note that says what is
right or wrong in it; a malformed line would stop ``eval answers --replay`` halfway through."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.evaluation.replay import LABELS, read_lines, set_of

SETS = sorted((Path(__file__).resolve().parents[2] / "app/evaluation/sets").glob("fluent-*.jsonl"))


def test_the_sets_are_found() -> None:
    assert len(SETS) >= 6  # dev and the five rounds after it


@pytest.mark.parametrize("path", SETS, ids=[p.name for p in SETS])
def test_every_line_is_one_the_replay_reads(path: Path) -> None:
    lines = read_lines(path)
    assert lines
    for obj in lines:
        where = f"{path.name}:{obj['_n']}"
        assert obj.get("id") or obj.get("question"), where
        assert obj.get("label") in LABELS, where
        assert str(obj.get("note") or "").strip(), where
        assert set_of(obj) in ("squad", "notes", "finance"), where
        assert obj["answer"].count("[[") == obj["answer"].count("]]"), where


@pytest.mark.parametrize("path", SETS, ids=[p.name for p in SETS])
def test_no_line_is_kept_twice_in_a_set(path: Path) -> None:
    seen = [(o.get("id") or o.get("question"), o["label"], o["answer"]) for o in read_lines(path)]
    assert len(seen) == len(set(seen))
