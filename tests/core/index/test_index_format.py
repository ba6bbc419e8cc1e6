"""Index formats: passages embedded with their context, and an older index rebuilt without loss.

An index built before passages carried their context line (format 1: the vector of the bare
passage) is made here the way that version left it; ``footnotes index`` then rebuilds it,
is killed in the middle (a real SIGKILL, by the crash-test hook), searches meanwhile, and
resumes: nothing is lost and nothing is left behind.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.index import lexical
from app.core.index.schema import INDEX_FORMAT
from app.core.ingest.context import embedding_text
from app.core.text import text_hash
from tests.helpers import paragraph

REPO = Path(__file__).resolve().parents[3]


def write_notes(root: Path, count: int = 6) -> Path:
    import random

    rng = random.Random(7)
    root.mkdir(parents=True)
    for i in range(count):
        body = "\n\n".join(paragraph(rng, 70) for _ in range(4))
        (root / f"note_{i}.md").write_text(f"# Harbour log {i}\n\n## Tides\n\n{body}\n")
    (root / "kelp.md").write_text(
        "# Kelp farming handbook\n\n## Harvest\n\nCut the fronds a hand above the holdfast "
        "so the plant grows back within six weeks.\n"
    )
    return root


def cli(
    data: Path, *args: str, kill_after: int | None = None, python: tuple[str, ...] = ("-m", "app")
) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    if kill_after is not None:  # ``footnotes`` with a plan that kills it after that write
        python = ("-m", "tests.faults", "--kill-after", str(kill_after), "--")
    return subprocess.run(
        [sys.executable, *python, "--data-dir", str(data), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_chunks_carry_their_context_and_are_keyed_by_what_is_embedded(make_engine, tmp_path):
    docs = write_notes(tmp_path / "docs", count=1)
    engine = make_engine()
    engine.index([str(docs)])
    kelp = docs / "kelp.md"
    [row] = engine.manifest.chunks_of(str(kelp))
    assert row.context == "Kelp farming handbook > Harvest"
    assert row.text == kelp.read_text().strip()  # what is shown stays the exact passage
    assert row.text_hash == text_hash(embedding_text(row.context, row.text))
    assert row.text_hash in engine.store().all_ids()
    hit = engine.search("kelp handbook harvest", k=1).hits[0]
    assert hit.path.endswith("kelp.md") and hit.heading == "Kelp farming handbook > Harvest"
    # A rename keeps every vector: the context comes from the content, not the name.
    kelp.rename(docs / "seaweed.md")
    report = engine.index([str(docs)])
    assert report.chunks_embedded == 0
    assert engine.search("seaweed", k=3, mode="lexical").hits[0].path.endswith("seaweed.md")


@pytest.mark.parametrize(("older", "read_again"), [(4, 4), (5, 3)])
def test_a_format_that_reads_only_some_types_anew_reads_no_other_file_again(
    make_engine, tmp_path, older, read_again
):
    """Format 5 reads PDF tables anew and cuts every format's tables another way, format 6
    reads PDF pages' figures and Markdown's indented tables anew: the next sync reads again
    the PDF and the Markdown notes (and, from format 4, the web page), and raises the other
    files' format in place, with nothing read or embedded (a person's ten thousand scripts
    need not wait for a better reading of their statements). A file's type is its name's
    last suffix, a compressed file's inner one: a text file named "….pdf.txt" is plain text,
    a gzipped note is Markdown."""
    import gzip

    import pymupdf

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.txt").write_text("High tide at the harbour mouth comes at dawn in spring.\n")
    (docs / "kelp.py").write_text('"""Kelp harvest: cut the fronds above the holdfast."""\n')
    (docs / "dues.md").write_text("# Dues\n\n| Year | Dues |\n|---|---|\n| 2021 | 40 |\n")
    (docs / "fees.html").write_text("<table><tr><td>Fees</td><td>2021</td></tr></table>\n")
    (docs / "minutes.pdf.txt").write_text("The harbour board met on the quay at noon.\n")
    (docs / "tolls.md.gz").write_bytes(gzip.compress(b"# Tolls\n\n    | Year | Toll |\n"))
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), "Harbour dues rose in the spring.", fontsize=11)
    pdf.save(docs / "Dues.PDF")
    pdf.close()
    engine = make_engine()
    engine.index([str(docs)])
    with engine.manifest.conn:
        engine.manifest.conn.execute("UPDATE files SET format = ?", (older,))
    assert engine.manifest.outdated() == 7
    # each file of another type counted once, however many formats it goes up
    assert engine.manifest.raise_formats() == 7 - read_again

    report = engine.index([str(docs)])
    assert report.files_indexed == read_again  # the PDF, the notes (and the web page)
    assert report.files_unchanged == 7 - read_again
    assert report.chunks_embedded == 0  # their texts are what they were: vectors reused
    assert engine.manifest.outdated() == 0
    formats = {r[0] for r in engine.manifest.conn.execute("SELECT format FROM files")}
    assert formats == {INDEX_FORMAT}
    assert engine.search("harbour dues spring", k=1).hits[0].path.endswith("Dues.PDF")


def downgrade_to_format_1(data: Path) -> int:
    """Make the index what format 1 left: bare-passage hashes and context-free rows."""
    db = sqlite3.connect(data / "manifest.sqlite3")
    lexical.register(db)  # the full-text triggers call it: a connection without it cannot write
    rows = db.execute("SELECT id, text FROM chunks").fetchall()
    db.executemany(
        "UPDATE chunks SET text_hash = ?, context = '' WHERE id = ?",
        [(text_hash(text), row_id) for row_id, text in rows],
    )
    db.execute("UPDATE files SET format = 1")
    db.commit()
    db.close()
    # Vectors for the bare passages, as format 1 stored them; the context ones are orphans.
    script = (
        "import sys; from app.core.engine import Engine; e = Engine(sys.argv[1]); "
        "e.acquire_writer('test'); v = e.indexer().vectors; v.repair(); v.collect_garbage(); "
        "e.close()"
    )
    subprocess.run(
        [sys.executable, "-c", script, str(data)],
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=300,
    )
    return len(rows)


def formats(data: Path) -> list[int]:
    db = sqlite3.connect(data / "manifest.sqlite3")
    try:
        return [r[0] for r in db.execute("SELECT format FROM files ORDER BY path")]
    finally:
        db.close()


@pytest.mark.slow
def test_an_older_index_is_rebuilt_and_a_kill_midway_loses_nothing(
    cli_data_dir: Path, tmp_path: Path
) -> None:
    data = cli_data_dir
    docs = write_notes(tmp_path / "docs")
    first = cli(data, "index", str(docs), "--json")
    assert first.returncode == 0, first.stderr
    passages = downgrade_to_format_1(data)
    assert set(formats(data)) == {1}

    # Search works on the old index before and during the rebuild.
    found = json.loads(cli(data, "search", "fronds holdfast", "--json").stdout)
    assert found["hits"][0]["path"].endswith("kelp.md")

    killed = cli(data, "index", str(docs), "--json", kill_after=4)
    assert killed.returncode == -9, killed.stderr
    midway = formats(data)
    assert 1 in midway and INDEX_FORMAT in midway  # some files rebuilt, some not yet
    status = json.loads(cli(data, "status", "--json").stdout)
    assert status["files_outdated"] == midway.count(1)
    found = json.loads(cli(data, "search", "fronds holdfast", "--json").stdout)
    assert found["hits"][0]["path"].endswith("kelp.md")

    resumed = cli(data, "index", str(docs), "--json")
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert set(formats(data)) == {INDEX_FORMAT}
    assert report["chunks_total"] == passages and report["files_failed"] == 0
    doctor = cli(data, "doctor")
    assert "manifest and vector store agree" in doctor.stdout, doctor.stdout
    assert f"format {INDEX_FORMAT}" in doctor.stdout and "older format" not in doctor.stdout
    again = json.loads(cli(data, "index", str(docs), "--json").stdout)
    assert again["chunks_embedded"] == 0 and again["files_unchanged"] == again["files_seen"]
