"""The verdict before and after, side by side in one run, on a file of given answers.

Runs ``footnotes eval answers --replay FILE --json`` in a baseline tree (``--baseline REV``,
checked out in a git worktree; the default is 052c196, the first revision with ``--replay``,
whose verdict is the one of 91d7e28) and in this checkout, over the same eval indexes, and
prints per half and label the answers shown green (and grey, for declines) by each, with what
the label asks of them.

    .venv/bin/python bench/bench_replay.py --data-dir DIR [--index CORPUS] [FILE]

``FILE`` defaults to the dev set (app/evaluation/sets/fluent-answers-dev.jsonl); ``--data-dir``
holds the eval indexes the replay builds or reuses (``eval/squad2``); ``--index`` a data
directory indexing corpus/ (notes and filings). The baseline uses this checkout's virtual
environment.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "app/evaluation/sets/fluent-answers-dev.jsonl"
WANT = {
    "faithful": "green",
    "faithful_long": "green",
    "invented_detail": "not green",
    "contradicts": "not green",
    "misread_figure": "not green",
    "false_premise": "not green",
    "invented": "not green",
    "declines": "grey",
}


def replay(tree: Path, answers: Path, args: argparse.Namespace, out: Path) -> dict:
    cmd = [sys.executable, "-m", "app", "--data-dir", args.data_dir, "eval", "answers"]
    cmd += ["--replay", str(answers), "--data", args.data, "--json", str(out)]
    if args.index:
        cmd += ["--index", args.index]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run(cmd, cwd=tree, env=env, check=True, capture_output=True, text=True)
    return json.loads(out.read_text())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default=str(DEV))
    ap.add_argument("--baseline", default="052c196")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--index", default=None)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    args = ap.parse_args()
    answers = Path(args.file).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(base), args.baseline],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        try:
            before = replay(base, answers, args, Path(tmp) / "before.json")
            after = replay(ROOT, answers, args, Path(tmp) / "after.json")
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False
            )
    print(f"{answers.name}: baseline {args.baseline} beside this checkout, one run")
    for half in ("dev", "held_out"):
        b, a = before["halves"].get(half, {}), after["halves"].get(half, {})
        if not a:
            continue
        print(f"\n{half}:  label                 n   should be   green before -> after   grey")
        for label, want in WANT.items():
            if label not in a:
                continue
            n = a[label]["n"]
            gb, ga = b.get(label, {}).get("green", 0), a[label]["green"]
            yb, ya = b.get(label, {}).get("grey", 0), a[label]["grey"]
            print(
                f"        {label:18}{n:>4}   {want:>9}   {gb:>5} -> {ga:<5}        {yb:>3} -> {ya}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
