"""Retrieval over the whole corpus, a baseline tree over its own index beside this checkout
over its own, in one run: ``footnotes eval retrieval --set corpus`` of each, side by side.

    python bench/bench_retrieval.py --before-index DIR --after-index DIR [--baseline main]

Each index is a data directory that indexes ``corpus/`` (``footnotes index``), built by the
tree that reads it: "before" is the ``--baseline`` revision (checked out in a git worktree
under ``--work``) over ``--before-index``, "after" this checkout over ``--after-index``.
Printed per half (dev: tuned on; held_out: reported), for the hybrid search as shipped:
FinanceBench's evidence page in the top 5 and the top 10, and a pasted sentence's passage
first and its page in the top 5 (known items). A tree whose eval has no halves (before they
were printed) shows its figures on all questions only.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, print_table, require_data


def worktree(rev: str, work: Path) -> Path:
    path = work / f"tree-{rev}"
    if not (path / "app").is_dir():
        subprocess.run(
            ["git", "-C", str(REPO_ROOT), "worktree", "add", "--detach", str(path), rev],
            check=True,
            capture_output=True,
        )
    return path


def run_eval(tree: Path, index: Path, work: Path, limit: int | None) -> dict[str, Any]:
    """``eval retrieval --set corpus --index`` of one tree (this venv's packages), as JSON."""
    code = (
        f"import sys; sys.path.insert(0, {str(tree)!r}); from app.cli import main; sys.exit(main())"
    )
    out = work / f"eval-{tree.name}.json"
    cmd = [sys.executable, "-c", code, "--data-dir", str(work / f"data-{tree.name}")]
    cmd += ["eval", "retrieval", "--set", "corpus", "--index", str(index)]
    cmd += ["--data", str(require_data()), "--json", str(out)]
    if limit:
        cmd += ["--limit", str(limit)]
    done = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"eval failed in {tree}: {done.stderr[-1500:]}")
    text = out.read_text() if out.exists() and out.stat().st_size else done.stdout
    return json.loads(text[text.index("{") :])["corpus"]


def rows_of(label: str, part: dict[str, Any], keys: tuple[str, ...]) -> dict[str, list[Any]]:
    """The hybrid figures of one set, all and per half: {name: [n, figure...]}."""
    out = {"all": [part.get("questions", part.get("items")), *_figs(part, keys)]}
    for name, half in part.get("halves", {}).items():
        out[name] = [half.get("questions", half.get("items")), *_figs(half, keys)]
    return out


def _figs(part: dict[str, Any], keys: tuple[str, ...]) -> list[float]:
    return [part["modes"]["hybrid"][k] for k in keys]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before-index", type=Path, required=True)
    ap.add_argument("--after-index", type=Path, required=True)
    ap.add_argument("--baseline", default="main", help="git revision that is 'before'")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "fn-retrieval")
    ap.add_argument("--limit", type=int, help="at most N questions and known items")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    old = worktree(args.baseline, args.work)
    before = run_eval(old, args.before_index.resolve(), args.work, args.limit)
    after = run_eval(REPO_ROOT, args.after_index.resolve(), args.work, args.limit)
    table = []
    for title, key, figs in (
        ("FinanceBench evidence page", "financebench", ("page@5", "page@10")),
        ("known item", "known_item", ("first", "page@5")),
    ):
        b, a = rows_of("before", before[key], figs), rows_of("after", after[key], figs)
        for half, arow in a.items():
            brow = b.get(half)
            for i, fig in enumerate(figs, start=1):
                was = brow[i] if brow else float("nan")
                table.append([f"{title} {fig} [{half}, n={arow[0]}]", was, arow[i]])
    print(f"before: {args.baseline} over {args.before_index}; after: this tree over "
          f"{args.after_index}; hybrid search as shipped")  # fmt: skip
    print_table(["figure", "before", "after"], table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
