"""A disk that fills during ``index`` costs nothing: the run stops with one sentence, and once
space is back the index is the previous one, searchable with all its passages, healthy by
``doctor``, and the next run finishes what the full disk stopped.

The disk is real where the machine allows it: the data directory on a small tmpfs in a private
mount namespace, filled to its last byte at ten points of the run (``disk_full_run``). Where it
does not, and in the fast loop, the same points fail with an injected ``ENOSPC``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.config import DataDir
from app.core.engine import Engine
from app.core.errors import DiskFullError
from app.core.index import damage
from tests.core.index.test_store_faults import NAMESPACES, assert_consistent, write_notes
from tests.fake_ollama import FakeOllama
from tests.faults import CountWrites, NoSpaceAfter

REPO = Path(__file__).resolve().parents[3]
QUERY = "pottery kiln temperature"
KILN = "# Kiln\n\nThe pottery kiln fires at 1240 degrees for a stoneware glaze.\n"
BASE = ["alpha", "beta", "gamma", "delta"]
NEW = [f"new{i}" for i in range(8)]


def full_sentence(text: str) -> None:
    """The one sentence a full disk gets, wherever it stopped the run."""
    lines = text.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in text, text
    assert "is full (" in lines[0] and "nothing was lost" in lines[0], text
    assert "free some space" in lines[0]


def base_index(make_engine, tmp_path: Path) -> tuple[Engine, Path, Path, dict[str, int]]:
    old, new = tmp_path / "old", tmp_path / "new"
    write_notes(old, BASE)
    (old / "kiln.md").write_text(KILN)
    write_notes(new, NEW)
    engine = make_engine()
    engine.index([str(old)])
    chunks = {p: r.chunks for p, r in engine.manifest.files_under().items()}
    return engine, old, new, chunks


def test_each_write_of_a_run_that_meets_a_full_disk_leaves_the_last_committed_index(
    make_engine, tmp_path: Path
) -> None:
    engine, old, new, before = base_index(make_engine, tmp_path)
    engine.close()
    counting = CountWrites()  # the writes of the run, to choose where the disk fills
    shutil.copytree(engine.data.root, tmp_path / "probe")
    make_engine("probe", faults=counting).index([str(old), str(new)])
    total = counting.steps
    assert total >= 10 and "vectors" in counting.written, counting.written
    for point in (0, 3, total // 2, total - 1):
        data = tmp_path / f"at{point}"
        shutil.copytree(engine.data.root, data)
        plan = NoSpaceAfter(point)
        faulty = make_engine(data.name, faults=plan)
        with pytest.raises(DiskFullError) as err:
            faulty.index([str(old), str(new)])
        full_sentence(str(err.value))
        faulty.close()

        after = make_engine(data.name)  # space is back
        assert damage.survey(after.data) == []
        files = {p: r.chunks for p, r in after.manifest.files_under().items()}
        assert {p: files[p] for p in before} == before, point  # every passage still there
        assert_consistent(after)
        assert after.search(QUERY, 3).hits[0].path == str(old / "kiln.md")
        report = after.index([str(old), str(new)])
        assert report.files_failed == 0
        assert set(after.manifest.files_under()) >= set(before) | {
            str(new / f"{n}.md") for n in NEW
        }
        assert_consistent(after)


@pytest.fixture(scope="module")
def namespace_prefix() -> list[str]:
    """How to run a process with its own mounts here (root, or a user namespace)."""
    probe = Path(os.environ.get("TMPDIR", "/tmp"))
    for prefix in NAMESPACES:
        try:
            done = subprocess.run(
                [*prefix, "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$0"', str(probe)],
                capture_output=True,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    pytest.skip("no private mount namespace here: the injected-ENOSPC test covers the points")


@pytest.mark.slow  # ten runs of index on a real tmpfs, each followed by search, index, doctor
@pytest.mark.timeout(900)
def test_a_real_disk_filling_at_ten_points_of_index_loses_nothing(
    namespace_prefix: list[str], torch_embedder, tmp_path: Path
) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    write_notes(old, BASE)
    (old / "kiln.md").write_text(KILN)
    write_notes(new, NEW, paragraphs=1)  # a passage each: ten writes, little to embed
    base = tmp_path / "base"
    base.mkdir()
    (base / "settings.json").write_text(json.dumps({"embedding_backend": "torch"}))
    engine = Engine(base, embedder=torch_embedder)
    engine.index([str(old)])
    before = {p: r.chunks for p, r in engine.manifest.files_under().items()}
    engine.store().close()
    engine.close()
    spec = tmp_path / "spec.json"
    out = tmp_path / "out.json"
    with FakeOllama() as ollama:
        spec.write_text(
            json.dumps(
                {
                    "base": str(base),
                    "data": str(tmp_path / "data"),
                    "docs": str(new),
                    "query": QUERY,
                    "points": 10,
                    "ollama": ollama.url,
                }
            )
        )
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
        cmd = [*namespace_prefix, sys.executable, "-m", "tests.core.index.disk_full_run"]
        done = subprocess.run(
            [*cmd, str(spec), str(out)], capture_output=True, text=True, env=env, timeout=880
        )
    assert done.returncode == 0, done.stderr[-4000:]
    results = json.loads(out.read_text())
    print("seconds by step:", results["times"])
    assert results["clean"]["rc"] == 0, results["clean"]["stderr"]
    assert len(results["points"]) == 10, results["points"]
    new_files = {str(new / f"{n}.md") for n in NEW}
    for point in results["points"]:
        got = results[str(point)]
        failed, after, again, final = got["failed"], got["after"], got["again"], got["final"]
        where = f"disk filled after write {point}: {failed['written'][-3:]}"
        assert failed["rc"] == 1 and not failed["stdout"], (where, failed)
        full_sentence(failed["stderr"])
        if got["full_repair"] is not None:
            assert got["full_repair"]["rc"] == 1, got["full_repair"]
            full_sentence(got["full_repair"]["stderr"])
        # space is back: the previous index, whole, searchable, nothing set aside
        assert after["damaged"] == [] and after["aside"] == [], (where, after)
        assert after["problems"] == [] and after["unbacked"] == 0, (where, after)
        assert {p: after["files"][p][1] for p in before} == before, where
        assert after["hits"][:1] == [str(old / "kiln.md")], (where, after["hits"])
        # the next run finishes what the full disk stopped, reusing every stored vector
        assert again["rc"] == 0, (where, again["stderr"])
        report = json.loads(again["stdout"])
        assert report["files_failed"] == 0
        assert set(final["files"]) == set(before) | new_files, where
        assert final["waiting"] == 0 and final["unbacked"] == 0 and final["problems"] == []
        # vectors stored before the disk filled are reused, not computed again
        assert report["chunks_embedded"] == final["hashes"] - after["stored"], where
        doctor = got["doctor"]["stdout"]
        assert "Traceback" not in got["doctor"]["stderr"], got["doctor"]["stderr"]
        index_line = next(line for line in doctor.splitlines() if " index: " in line)
        assert index_line.startswith("ok") and "agree" in index_line, (where, doctor)
        assert "damaged" not in doctor, (where, doctor)


def cut_checkpoint(db: Path) -> None:
    """What a checkpoint stopped by a full disk leaves: the main file's first page already
    says the database is larger than the file, whose other pages are still in the -wal."""
    wal = (db.parent / f"{db.name}-wal").read_bytes()
    page_size = int.from_bytes(wal[8:12], "big")
    first = None
    offset = 32  # the WAL header; each frame is a 24-byte header and one page
    while offset + 24 + page_size <= len(wal):
        if int.from_bytes(wal[offset : offset + 4], "big") == 1:
            first = wal[offset + 24 : offset + 24 + page_size]
        offset += 24 + page_size
    assert first is not None
    with open(db, "r+b") as fh:
        fh.write(first)


def test_a_manifest_whose_checkpoint_a_full_disk_stopped_is_read_with_its_wal(
    make_engine, tmp_path: Path
) -> None:
    """The damage check read the main file without its -wal, called it cut short, and set a
    sound index aside (the probe's "damaged (it is cut short: 81,920 of 159,744 bytes)")."""
    engine, old, _new, before = base_index(make_engine, tmp_path)
    engine.close()
    data = tmp_path / "stopped"
    shutil.copytree(engine.data.root, data)
    manifest = data / "manifest.sqlite3"
    writer = sqlite3.connect(manifest, isolation_level=None)
    writer.execute("PRAGMA wal_autocheckpoint = 0")  # new pages stay in the -wal
    writer.execute("CREATE TABLE grown(x)")
    writer.executemany("INSERT INTO grown VALUES (?)", [("x" * 900,)] * 300)
    main, wal = manifest.read_bytes(), Path(f"{manifest}-wal").read_bytes()
    writer.close()  # its own checkpoint; the files are put back as the full disk left them
    manifest.write_bytes(main)
    Path(f"{manifest}-wal").write_bytes(wal)
    cut_checkpoint(manifest)
    header = manifest.read_bytes()[:100]
    pages, page_size = int.from_bytes(header[28:32], "big"), int.from_bytes(header[16:18], "big")
    assert manifest.stat().st_size < pages * page_size  # shorter than its header says

    assert damage.manifest_problem(DataDir(data)) is None
    again = make_engine("stopped")
    files = {p: r.chunks for p, r in again.manifest.files_under().items()}
    assert files == before and list(data.glob("*.damaged-*")) == []
    assert again.search(QUERY, 3).hits[0].path == str(old / "kiln.md")
    assert again.manifest.conn.execute("SELECT COUNT(*) FROM grown").fetchone()[0] == 300


def test_a_manifest_cut_short_without_its_wal_is_still_damage(tmp_path: Path) -> None:
    db = tmp_path / "cut.sqlite3"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE t(x)")
    conn.executemany("INSERT INTO t VALUES (?)", [("x" * 900,)] * 300)
    conn.commit()
    conn.close()
    whole = db.read_bytes()
    db.write_bytes(whole[: len(whole) // 2])
    assert "cut short" in (damage.sqlite_problem(db) or "")
