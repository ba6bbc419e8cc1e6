"""The full-disk probe, run as root in a private mount namespace (``test_disk_full``).

For each point N of ``footnotes index`` (0: before its first write; else right after its N-th
index write) the data directory is put on a fresh small tmpfs, ``index NEW`` runs with a plan
that fills that disk at N (``tests.faults.FillDiskAfter``), the filler is removed, and what a
person would see next is recorded: the failed run's exit status and stderr, the index's
counts and health, a search, and a second ``index NEW`` that must finish. Each command is a
forked process (the slow imports are paid once, before any fork), like ``test_crash``'s.

    python -m tests.core.index.disk_full_run SPEC.json OUT.json
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

TIMES: dict[str, float] = {}


def forked(fn: Any, *args: Any, timeout: float = 240.0) -> Any:
    """``fn(*args)`` in a forked child; its JSON-able result (or its traceback as an error)."""
    started = time.monotonic()
    try:
        return _forked(fn, *args, timeout=timeout)
    finally:
        name = fn.__name__ if fn is not cli else f"cli {args[0][-2] if len(args[0]) > 1 else ''}"
        TIMES[name] = TIMES.get(name, 0.0) + time.monotonic() - started


def _forked(fn: Any, *args: Any, timeout: float = 240.0) -> Any:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            out: Any = {"result": fn(*args)}
        except BaseException:
            out = {"error": traceback.format_exc()}
        with os.fdopen(write, "w") as fh:
            json.dump(out, fh)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as fh:
        deadline = time.monotonic() + timeout
        text = fh.read()
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.02)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    got = json.loads(text) if text else {"error": "the child died without a word"}
    if "error" in got:
        raise RuntimeError(got["error"])
    return got["result"]


def cli(argv: list[str], faults: Any = None) -> dict[str, Any]:
    """``footnotes ARGV`` in this (forked) process: exit status, stdout and stderr."""
    from app.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv, faults=faults)
        except SystemExit as exc:  # argparse
            code = int(exc.code or 0)
    return {"rc": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def index_filling_at(data: str, docs: str, point: int, filler: str) -> dict[str, Any]:
    from tests.faults import FillDiskAfter

    plan = FillDiskAfter(point, Path(filler))
    done = cli(["--data-dir", data, "index", docs, "--json"], plan)
    return {**done, "steps": plan.steps, "written": plan.written}


def counting_run(data: str, docs: str) -> dict[str, Any]:
    from tests.faults import CountWrites

    plan = CountWrites()
    done = cli(["--data-dir", data, "index", docs, "--json"], plan)
    return {**done, "steps": plan.steps, "written": plan.written}


def look(data: str, query: str) -> dict[str, Any]:
    """What the index holds once space is back, read as the commands read it."""
    from app.core.config import DataDir
    from app.core.engine import Engine
    from app.core.index import damage

    engine = Engine(Path(data))
    try:
        damaged = [str(d) for d in damage.survey(DataDir(Path(data)))]
        files = {
            path: [rec.status, rec.chunks] for path, rec in engine.manifest.files_under().items()
        }
        problems = engine.manifest.check()
        waiting = {
            r[0] for r in engine.manifest.conn.execute("SELECT text_hash FROM vectors_pending")
        }
        hashes = engine.manifest.all_hashes()
        stored = engine.store().existing(hashes)
        hits = [h.path for h in engine.search(query, 5).hits]
        aside = sorted(p.name for p in Path(data).glob("*.damaged-*"))
    finally:
        engine.close()
    return {
        "damaged": damaged,
        "files": files,
        "problems": problems,
        "unbacked": len(hashes - stored - waiting),  # neither a vector nor waiting for one
        "waiting": len(waiting),
        "hashes": len(hashes),
        "stored": len(stored),
        "hits": hits,
        "aside": aside,
    }


def mount(where: Path, size_kb: int) -> None:
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(where)], check=True
    )


def umount(where: Path) -> None:
    subprocess.run(["umount", str(where)], check=True)


def main(spec_path: str, out_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text())
    # The reader process forks from the command's, which imported everything already.
    os.environ["FOOTNOTES_START_METHOD"] = "fork"
    import chromadb  # noqa: F401 - imported once, before any fork
    import sentence_transformers  # noqa: F401
    import torch  # noqa: F401

    import app.cli.main
    import app.core.engine  # noqa: F401

    base, docs, query = Path(spec["base"]), spec["docs"], spec["query"]
    data = Path(spec["data"])
    data.mkdir(exist_ok=True)
    used_kb = sum(f.stat().st_size for f in base.rglob("*") if f.is_file()) // 1024
    size_kb = used_kb + spec.get("room_kb", 8192)
    results: dict[str, Any] = {}

    def fresh() -> None:
        mount(data, size_kb)
        shutil.copytree(base, data, dirs_exist_ok=True, symlinks=True)

    fresh()
    clean = forked(counting_run, str(data), docs)
    umount(data)
    results["clean"] = clean
    total = clean["steps"]
    # 0: full before the first write; total - 1: full before the last one
    want = min(spec["points"], total)
    results["points"] = sorted({round(i * (total - 1) / (want - 1)) for i in range(want)})
    for point in results["points"]:
        fresh()
        filler = data / "filler"
        started = time.monotonic()
        try:
            failed = forked(index_filling_at, str(data), docs, point, str(filler))
            # repair on the full disk: a sentence too (it printed a traceback from the lock)
            full_repair = forked(cli, ["--data-dir", str(data), "repair"]) if not point else None
            filler.unlink(missing_ok=True)
            after = forked(look, str(data), query)
            again = forked(cli, ["--data-dir", str(data), "index", docs, "--json"])
            final = forked(look, str(data), query)
            doctor = forked(
                cli, ["--data-dir", str(data), "--ollama-host", spec["ollama"], "doctor"]
            )
        finally:
            umount(data)
        results[str(point)] = {
            "failed": failed,
            "after": after,
            "again": again,
            "final": final,
            "doctor": doctor,
            "full_repair": full_repair,
            "seconds": time.monotonic() - started,
        }
    results["times"] = TIMES
    Path(out_path).write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
