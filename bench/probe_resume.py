"""An index built through kills ranks as a clean build does (issue 30's probe, repeatable).

    python bench/probe_resume.py [--notes 150] [--kills 14] [--queries 20]

Copies notes from ../shared/data/corpus/notes, indexes them once cleanly, and once through
``--kills`` SIGKILLs (the crash tests' fault plan, ``python -m tests.faults --kill-after N``,
kills ``footnotes index`` right after its N-th index write, N growing each time; every run
resumes what the last one left), then compares the top-5 passages of ``--queries`` note
titles in both indexes. A passage's vector must not depend on what it was encoded with, so
both rank alike.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import REPO_ROOT, require_data


def footnotes(data: Path, *args: str, kill_after: int | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    run = ["-m", "app"]
    if kill_after is not None:  # ``footnotes`` with the crash tests' plan that kills it
        run = ["-m", "tests.faults", "--kill-after", str(kill_after), "--"]
    cmd = [sys.executable, *run, "--data-dir", str(data), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO_ROOT)


def top5(data: Path, query: str) -> list[tuple[str, int]]:
    out = footnotes(data, "search", query, "-k", "5", "--json")
    return [(h["path"], h["start"]) for h in json.loads(out.stdout)["hits"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=150)
    parser.add_argument("--kills", type=int, default=14)
    parser.add_argument("--queries", type=int, default=20)
    args = parser.parse_args()
    notes = sorted(require_data("corpus", "notes").rglob("*.md"))
    rng = random.Random(30)
    chosen = rng.sample(notes, args.notes)
    with tempfile.TemporaryDirectory(prefix="footnotes-resume-") as tmp:
        work = Path(tmp)
        docs = work / "docs"
        for i, note in enumerate(chosen):
            (docs / f"{i:03d}").mkdir(parents=True)
            shutil.copy(note, docs / f"{i:03d}" / note.name)
        clean, killed = work / "clean", work / "killed"
        done = footnotes(clean, "index", str(docs), "--json")
        assert done.returncode == 0, done.stderr
        writes, kills = 2, 0
        for _ in range(args.kills):
            run = footnotes(killed, "index", str(docs), "--json", kill_after=writes)
            kills += run.returncode == -9
            writes += rng.randint(1, 4)
        final = footnotes(killed, "index", str(docs), "--json")
        assert final.returncode == 0, final.stderr
        doctor = footnotes(killed, "doctor").stdout
        titles = [n.read_text(errors="replace").splitlines()[0].lstrip("# ") for n in chosen]
        queries = rng.sample(titles, args.queries)
        same = sum(top5(clean, q) == top5(killed, q) for q in queries)
        agree = "manifest and vector store agree" in doctor
        print(f"{kills} kills while indexing {args.notes} notes, then a resume")
        print(
            f"index after the kills: {json.loads(final.stdout)['chunks_total']} passages; "
            f"doctor: {'manifest and vector store agree' if agree else 'DISAGREE'}"
        )
        print(f"top-5 identical to a clean build in {same} of {len(queries)} queries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
