"""The isolated parser process: a slow, huge or vanishing file costs only that file."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.ingest.parsing import ParseLimits
from app.core.ingest.reader_pool import ParserPool


def write_notes(folder: Path, n: int) -> list[str]:
    paths = []
    for i in range(n):
        p = folder / f"note{i}.txt"
        p.write_text(f"Note number {i} talks about kettle number {i}.\n")
        paths.append(str(p))
    return paths


def test_results_come_back_in_order_with_hashes(tmp_path: Path) -> None:
    paths = write_notes(tmp_path, 6)
    with ParserPool() as pool:
        results = list(pool.parse_many((p, None) for p in paths))
    assert [r.path for r in results] == paths
    assert all(r.error is None and r.hash and r.chunks for r in results)
    assert "kettle number 3" in results[3].chunks[0].text


def test_known_hash_short_circuits_parsing(tmp_path: Path) -> None:
    (path,) = write_notes(tmp_path, 1)
    with ParserPool() as pool:
        first = next(pool.parse_many([(path, None)]))
        second = next(pool.parse_many([(path, first.hash)]))
    assert second.unchanged and second.chunks == []


def test_slow_file_times_out_and_the_rest_go_on(tmp_path: Path) -> None:
    slow = tmp_path / "slow.txt"
    slow.write_text("word " * 6_000_000)  # one 30 MB line: seconds of chunking
    notes = write_notes(tmp_path, 4)
    paths, after = [notes[0], notes[1], str(slow)], notes[2:]
    with ParserPool(ParseLimits(timeout_s=0.5)) as pool:
        results = {r.path: r for r in pool.parse_many((p, None) for p in paths + after)}
    assert "longer than the 0.5 s limit" in (results[str(slow)].error or "")
    assert [(results[p].error, bool(results[p].chunks)) for p in after] == [(None, True)] * 2


@pytest.mark.slow
def test_memory_hungry_file_fails_with_the_limit_named(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    with big.open("w") as fh:
        for _ in range(80):
            fh.write(("lorem ipsum dolor sit amet " * 40 + "\n\n") * 1000)  # ~90 MB
    (small,) = write_notes(tmp_path, 1)
    with ParserPool(ParseLimits(memory_mb=200, timeout_s=120)) as pool:
        results = list(pool.parse_many([(str(big), None), (small, None)]))
    assert "memory" in (results[0].error or "")
    assert results[1].error is None and results[1].chunks


def test_vanished_and_unreadable_paths_are_reasons_not_crashes(tmp_path: Path) -> None:
    with ParserPool() as pool:
        results = list(pool.parse_many([(str(tmp_path / "gone.txt"), None), (str(tmp_path), None)]))
    assert results[0].error == "the file disappeared before it could be read"
    assert results[1].error == "it is a folder, not a file"
