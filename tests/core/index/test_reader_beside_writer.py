"""A search beside a running writer never fails.

A probe saw 2 of ~16 searches fail with Chroma's "Error executing plan: Internal error: Error
finding id" while another process was storing vectors: a read met segments being rewritten.
Here a real writer process indexes batch after batch while this process searches over and
over, each time reading the vectors afresh, as a second window or a CLI search would.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.engine import Engine
from tests.helpers import paragraph

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.slow  # a writer process and forty searches: ~30 s
def test_searches_beside_a_running_writer_all_succeed(tmp_path: Path, embedder) -> None:
    data = tmp_path / "data"
    docs = tmp_path / "docs"
    docs.mkdir()
    rng = random.Random(11)
    (docs / "kiln.md").write_text("# Kiln\n\nThe pottery kiln fires at 1240 degrees.\n")
    engine = Engine(data, embedder=embedder)
    engine.index([str(docs)])  # a first batch of vectors, so the store exists
    engine.close()
    for i in range(160):
        (docs / f"n{i:03d}.md").write_text(f"# Note {i}\n\n{paragraph(rng, 80)}\n")

    script = (
        "import sys; from app.cli import main; "
        "sys.exit(main(['--data-dir', sys.argv[1], 'index', sys.argv[2]]))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    writer = subprocess.Popen(
        [sys.executable, "-c", script, str(data), str(docs)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    failures: list[str] = []
    searches = 0
    try:
        while writer.poll() is None and searches < 40:
            reader = Engine(data, embedder=embedder)  # reads the vectors afresh
            try:
                hits = reader.search("How hot does the pottery kiln fire?", 3).hits
                assert hits and hits[0].path.endswith("kiln.md")
            except Exception as exc:  # every failure a person would see
                failures.append(repr(exc))
            finally:
                reader.close()
            searches += 1
    finally:
        _, err = writer.communicate(timeout=600)
    assert writer.returncode == 0, err
    assert searches >= 5, "the writer finished before the reader could search beside it"
    assert failures == []
