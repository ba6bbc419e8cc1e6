"""Crash safety: SIGKILL the indexing process at many points, restart, sync — a clean index.

Each kill is real: a separate process runs ``footnotes index`` (``app.cli.main``) and dies by
SIGKILL right after its N-th index write, or a few milliseconds later so the kill lands inside
a write (the fault plan ``tests.faults.KillAfter``, given to ``main``).
Importing torch, sentence-transformers and Chroma takes most of a process start, so a small
fork server pays it once and forks one fresh indexing process per run (nothing app-related is
imported before the fork). The restart and the checks run in this process on a new connection.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import long_markdown, paragraph

REPO = Path(__file__).resolve().parents[3]
JOB_TIMEOUT_S = 240.0


def serve_forks() -> None:
    """Fork server (own interpreter): import the slow libraries, then fork a child per job line."""
    import chromadb  # noqa: F401 - the point is to import these once
    import sentence_transformers  # noqa: F401
    import torch  # noqa: F401

    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(job)
        deadline = time.monotonic() + JOB_TIMEOUT_S
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                status = None
                break
            time.sleep(0.02)
        if status is None:
            code: int | str = "timeout"
        else:
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        print(json.dumps({"status": code}), flush=True)


def _child(job: dict[str, Any]) -> None:
    try:
        fd = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        from app.cli import main
        from tests.faults import CountWrites, KillAfter

        plan = KillAfter.parse(job["kill"]) if job["kill"] else CountWrites()
        code = main(job["argv"], faults=plan)
        if job.get("steps"):
            Path(job["steps"]).write_text(str(plan.steps))
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(70)


class Forks:
    """Runs ``footnotes index`` in fresh forked processes, optionally killed by a fault plan."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.runs = 0
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from tests.core.index.test_crash import serve_forks; serve_forks()",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO,
        )
        self.ready = False  # it imports while the test prepares its folders

    def _read(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, f"the fork server ended (exit {self.proc.poll()})"
        return line

    def index(self, data: Path, docs: Path, kill: str = "", steps: Path | None = None) -> int | str:
        """Exit status of one ``index`` run (-9: killed)."""
        if not self.ready:
            assert json.loads(self._read()) == {"ready": True}
            self.ready = True
        self.runs += 1
        log = self.logs / f"run{self.runs:03}.log"
        job = {
            "argv": ["--data-dir", str(data), "index", str(docs), "--json"],
            "kill": kill,
            "log": str(log),
            "steps": str(steps) if steps else None,
        }
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        status = json.loads(self._read())["status"]
        what = f"run {self.runs} ({kill or 'no kill'})"
        assert status in (0, -9), f"{what}: {status}\n{log.read_text()}"
        return status

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="module")
def forks(tmp_path_factory: pytest.TempPathFactory):
    server = Forks(tmp_path_factory.mktemp("fork-logs"))
    yield server
    server.close()


def new_data_dir(path: Path, embedder) -> Path:
    """A data dir that reuses the session's int8 model export instead of making its own."""
    (path / "models").mkdir(parents=True)
    (path / "models" / embedder.path.name).symlink_to(embedder.path)
    return path


def copy_data_dir(template: Path, path: Path) -> Path:
    shutil.copytree(template, path, symlinks=True)
    (path / "writer.lock").unlink(missing_ok=True)
    return path


def note(rng: random.Random, n: int) -> str:
    body = "\n\n".join(paragraph(rng, rng.randint(30, 90)) for _ in range(3))
    return f"# Note {n}\n\n{body}\n"


def version_a(docs: Path) -> None:
    """About 40 files: notes, a duplicate, a long file, a broken file, nested folders."""
    rng = random.Random(11)
    for i in range(30):
        sub = docs / ("deep/er" if i % 7 == 0 else "notes" if i % 3 else "")
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"n{i:02}.md").write_text(note(rng, i))
    (docs / "copy-of-n01.md").write_text((docs / "notes" / "n01.md").read_text())
    (docs / "long.md").write_text(long_markdown(seed=5, paragraphs=60))
    (docs / "broken.md").write_bytes(b"\x00\x01binary\x00" * 40)
    (docs / "notes" / "plain.txt").write_text("A plain text file about lanterns.\n")


def version_b(docs: Path) -> None:
    """Renames and copies (nothing to embed), a few edits, deletions, additions and a fix."""
    rng = random.Random(12)
    notes = sorted(p for p in docs.rglob("n*.md") if p.name != "n01.md")
    for path in notes[2:5]:
        parts = path.read_text().split("\n\n")
        parts[2] = paragraph(rng, 40)
        path.write_text("\n\n".join(parts))
    deleted_text = notes[5].read_text()
    for path in [docs / "notes" / "n01.md", *notes[5:8]]:  # n01's texts live on in its copy
        path.unlink()
    for path in notes[8:20]:
        path.rename(path.with_name("renamed-" + path.name))
    (docs / "new").mkdir()
    for i in range(2):
        (docs / "new" / f"fresh{i}.md").write_text(note(rng, 100 + i))
    (docs / "new" / "resurrected.md").write_text(deleted_text)
    shutil.copy(notes[20], docs / "new" / "copied.md")
    long_md = docs / "long.md"
    long_md.write_text(long_md.read_text().replace("\n\n", "\n\nAn inserted heron line.\n\n", 1))
    (docs / "broken.md").write_text("Now a real note about otters.\n")
    (docs / "new" / "bad.md").write_bytes(b"\x00\xffjunk\x00" * 40)


def fingerprint(data: Path, embedder) -> dict[str, Any]:
    """What the index holds, after checking it is internally consistent."""
    from app.core.engine import Engine

    engine = Engine(data, embedder=embedder)
    try:
        m = engine.manifest
        assert m.check() == []
        hashes, vectors = m.all_hashes(), engine.store().all_ids()
        assert vectors == hashes, "orphan or missing vectors"
        rows = m.conn.execute("SELECT chunk_id, text_hash FROM chunks").fetchall()
        assert len({r[0] for r in rows}) == len(rows)
        counted = dict(m.conn.execute("SELECT file_id, COUNT(*) FROM chunks GROUP BY file_id"))
        for file_id, status, chunks in m.conn.execute("SELECT id, status, chunks FROM files"):
            assert counted.get(file_id, 0) == chunks
            assert status == "indexed" or chunks == 0
        fts = m.conn.execute("SELECT COUNT(*) FROM chunks_fts").fetchone()[0]
        assert fts == len(rows)
        return {
            "files": {
                p: (r.size, r.mtime_ns, r.hash, r.status, r.chunks)
                for p, r in m.files_under().items()
            },
            "chunk_ids": sorted(r[0] for r in rows),
            "hashes": sorted(hashes),
        }
    finally:
        engine.close()


def kill_plans(total: int) -> list[list[str]]:
    """22 kill points: 16 write boundaries spread over the run, 4 inside writes, 2 in recovery."""
    plans = [[str(n)] for n in sorted({round(1 + i * (total - 1) / 15) for i in range(16)})]
    plans += [[f"{n}:0.01"] for n in (1, total // 3, total // 2, total - 1)]  # inside a write
    plans += [[str(total // 2), "2"], [str(total - 2), "1:0.01"]]  # killed again while recovering
    return plans


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_sigkill_at_many_points_then_sync_equals_a_clean_index(
    forks: Forks, tmp_path: Path, embedder
) -> None:
    from app.core.engine import Engine

    docs = tmp_path / "docs"
    version_a(docs)
    template = new_data_dir(tmp_path / "template", embedder)
    assert forks.index(template, docs) == 0
    version_b(docs)

    clean = new_data_dir(tmp_path / "clean", embedder)
    assert forks.index(clean, docs) == 0
    expected = fingerprint(clean, embedder)
    assert len(expected["files"]) > 30 and any(v[3] == "failed" for v in expected["files"].values())

    steps = tmp_path / "steps.txt"
    whole = copy_data_dir(template, tmp_path / "whole")
    assert forks.index(whole, docs, steps=steps) == 0  # the same update, uninterrupted
    assert fingerprint(whole, embedder) == expected
    total = int(steps.read_text())
    assert total >= 20, f"only {total} writes: too few distinct kill points"

    killed, plans = 0, kill_plans(total)
    for n, plan in enumerate(plans):
        data = copy_data_dir(template, tmp_path / f"kill{n:02}")
        for spec in plan:
            killed += forks.index(data, docs, kill=spec) == -9
        restarted = Engine(data, embedder=embedder)
        try:
            restarted.index([str(docs)])
        finally:
            restarted.close()
        assert fingerprint(data, embedder) == expected, f"after kill plan {plan}"
    assert killed >= 20, f"only {killed} kills landed in {len(plans)} plans over {total} writes"
