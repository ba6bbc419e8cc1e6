"""Searchable before embedded: a file is found by its words as soon as it is read, its vectors
fill in behind, and the support flag says the index is still being built meanwhile.

The kill is real: ``footnotes index`` runs in its own process and is SIGKILLed by the crash-test
hook right after it wrote the last file's passages, before the embedding stage stored a vector.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.core.index.test_index_format import cli, write_notes
from tests.helpers import eventually, long_markdown

NOTES = 6  # write_notes: six harbour logs and the kelp handbook


def pending(data: Path) -> int:
    with sqlite3.connect(data / "manifest.sqlite3") as conn:
        return int(conn.execute("SELECT COUNT(*) FROM vectors_pending").fetchone()[0])


@pytest.mark.slow  # eight CLI processes, each loading the model: ~40 s
def test_a_kill_between_the_stages_leaves_a_searchable_index_whose_vectors_come_next(
    cli_data_dir: Path, tmp_path: Path
) -> None:
    data = cli_data_dir
    docs = write_notes(tmp_path / "docs", count=NOTES)

    # One write per file read (its row, passages and full-text rows); the next would be vectors.
    killed = cli(data, "index", str(docs), "--json", kill_after=NOTES + 1)
    assert killed.returncode == -9, killed.stderr
    waiting = pending(data)
    assert waiting > 0

    status = json.loads(cli(data, "status", "--json").stdout)
    assert status["files_indexed"] == NOTES + 1
    assert status["vectors_pending"] == waiting and status["chunks_waiting"] >= waiting
    doctor = cli(data, "doctor").stdout  # waiting is a stage, not damage
    assert "manifest and vector store agree" in doctor and "wait for their vectors" in doctor

    # Found by its words although no vector exists; an unanswerable question is not called
    # unsupported outright while passages lack their vectors.
    found = json.loads(cli(data, "search", "fronds holdfast", "--json").stdout)
    assert found["hits"][0]["path"].endswith("kelp.md")
    assert found["hits"][0]["dense_score"] is not None  # scored from its text on the spot
    off = json.loads(cli(data, "search", "who won the 1954 world cup final", "--json").stdout)
    assert off["support"]["supported"] is False and off["support"]["building"] is True
    assert "still being built" in off["support"]["reason"]

    resumed = json.loads(cli(data, "index", str(docs), "--json").stdout)
    assert resumed["files_unchanged"] == NOTES + 1 and resumed["chunks_embedded"] == waiting
    assert pending(data) == 0
    doctor = cli(data, "doctor")
    assert "manifest and vector store agree" in doctor.stdout, doctor.stdout
    dense = json.loads(cli(data, "search", "cutting kelp so it regrows", "--json").stdout)
    assert any(h["path"].endswith("kelp.md") and h["dense_rank"] for h in dense["hits"])
    off = json.loads(cli(data, "search", "who won the 1954 world cup final", "--json").stdout)
    assert (
        off["support"]["building"] is False and "still being built" not in off["support"]["reason"]
    )


@pytest.mark.slow
def test_an_unchanged_rescan_opens_neither_the_model_nor_the_store(
    cli_data_dir: Path, tmp_path: Path
) -> None:
    data = cli_data_dir
    docs = write_notes(tmp_path / "docs", count=2)
    assert cli(data, "index", str(docs), "--json").returncode == 0
    # A child that imports chromadb or loads the model prints it: sys.modules at exit.
    probe = (
        "import sys, atexit; "
        "atexit.register(lambda: print('LOADED', 'chromadb' in sys.modules, "
        "'sentence_transformers' in sys.modules, file=sys.stderr)); "
        "from app.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    again = cli(data, "index", str(docs), "--json", python=("-c", probe))
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["files_unchanged"] == 3
    assert "LOADED False False" in again.stderr, again.stderr


@pytest.mark.slow  # four CLI processes
def test_a_kill_after_a_removal_leaves_no_orphan_vector_behind(
    cli_data_dir: Path, tmp_path: Path
) -> None:
    """The store was found complete by the last sync; a file is deleted and the next sync is
    killed right after it dropped the file's passages, before their vectors were deleted.
    The sync after that must still find and remove those vectors."""
    data = cli_data_dir
    docs = write_notes(tmp_path / "docs", count=2)
    assert cli(data, "index", str(docs), "--json").returncode == 0
    (docs / "kelp.md").unlink()
    killed = cli(data, "index", str(docs), "--json", kill_after=1)
    assert killed.returncode == -9, killed.stderr
    assert cli(data, "index", str(docs), "--json").returncode == 0
    doctor = cli(data, "doctor").stdout
    assert "manifest and vector store agree" in doctor, doctor


@pytest.mark.slow
def test_a_file_saved_while_a_folder_is_embedded_is_searchable_before_the_vectors_end(
    tmp_path: Path, make_engine
) -> None:
    """The watcher computes vectors in slices between changes: a note saved while a large
    folder's vectors are being computed is written (searchable by its words) at the next
    slice boundary, long before the folder's vectors are done."""
    from app.core.index.report import Progress
    from app.core.watch.watcher import Watcher

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(60):  # ~1,500 passages: several slices of vectors
        (docs / f"log{i:02d}.md").write_text(long_markdown(seed=i, paragraphs=24))
    events: list[Progress] = []
    engine = make_engine()
    engine.add_folder(str(docs))
    watcher = Watcher(engine, on_progress=events.append, quiet=0.2, max_wait=1.0)
    watcher.start()
    try:
        eventually(lambda: any(p.event == "embedded" for p in events), "the vectors stage began")
        (docs / "ferry.md").write_text("# Ferry\n\nThe harbour ferry leaves at seven.\n")
        eventually(
            lambda: any(p.event == "indexed" and p.path.endswith("ferry.md") for p in events),
            "the new note is written",
        )
        written = next(
            i for i, p in enumerate(events) if p.event == "indexed" and p.path.endswith("ferry.md")
        )
        stage_end = [i for i, p in enumerate(events) if p.event == "embedded" and p.done >= p.total]
        assert not stage_end or stage_end[0] > written, "the note waited for every vector"
        assert watcher.wait_idle(600)
        assert engine.manifest.counts()["vectors_pending"] == 0
    finally:
        watcher.stop()
