"""``footnotes eval answers --replay FILE`` / ``--write-prompts FILE``: given answers judged
with no model, and the sources ``ask`` sends, written out to answer against."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.cli.common import ProgressBar, print_json, visible
from app.core.api import Footnotes


def run(
    args: argparse.Namespace,
    fn: Footnotes,
    data: Path,
    names: list[str],
    asked: Callable[[bool], Any],
) -> int:
    """Replay ``--replay``'s answers (the sets their questions need), or write the prompts of
    ``names``' questions; ``asked`` makes the progress counter."""
    from app.core.api import AskOptions
    from app.evaluation import answers as ans
    from app.evaluation import replay as rp

    engine = fn.engine  # the eval tools measure the engine itself

    to_file = isinstance(args.json, str) and args.json != "-"
    table = not args.json or to_file
    root = Path(args.work).expanduser().resolve() if getattr(args, "work", None) else None
    root = root or engine.data.root
    index = Path(args.index).expanduser().resolve() if getattr(args, "index", None) else None
    objs = rp.read_lines(Path(args.replay)) if args.replay else []
    if args.replay:
        names = [n for n in ("squad", "notes", "finance") if n in {rp.set_of(o) for o in objs}]
    options = AskOptions.from_settings(engine.settings, k=getattr(args, "k", None))
    bar = ProgressBar(table)
    prepared = rp.prepare(engine, data, root, names, bar, index)
    bar.close()
    try:
        if not args.replay:
            half = None if args.half == "both" else args.half
            n = rp.write_prompts(
                prepared,
                options,
                Path(args.write_prompts),
                half=half,
                limit=args.limit,
                each=asked(table),
            )
            print(f"Wrote {n} questions with the sources ask sends to {args.write_prompts}")
            return 0
        questions = {q.id: q for s in prepared for q in s.questions}
        lines = rp.resolve(objs, questions)
        done = rp.replay(lines, prepared, options, asked(table))
        rows = [row for row, _ in done]
        result: dict[str, Any] = {
            "file": str(args.replay),
            "k": options.k,
            "answers": len(rows),
            "halves": rp.figures(rows),
            "rows": [r.to_json() for r in rows],
        }
        if getattr(args, "ablate", False):
            result["ablation"] = rp.ablate(done)
    finally:
        ans.close(prepared)
    if table:
        print_replay(result)
    if to_file:
        Path(args.json).write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n")
        print(f"Wrote {args.json}")
    elif args.json:
        print_json(result)
    return 0


HALF_TITLES = {"dev": "Dev half (tune here)", "held_out": "Held-out half (report this)"}
WANT = {"green": "green", "not_green": "not green", "grey": "grey"}


def print_replay(result: dict[str, Any]) -> None:
    """Per half, one line per label: the levels and the share the verdict got right."""
    from app.evaluation.replay import LABELS

    print(f"{result['answers']} given answers from {result['file']}, k={result['k']}")
    head = (
        f"  {'label':17}{'n':>4} {'sup':>4}{'part':>5}{'uns':>5}{'none':>5}{'fail':>5}"
        f"  {'should be':>10} {'right':>7}"
    )
    for half, title in HALF_TITLES.items():
        per = result["halves"].get(half)
        if not per:
            continue
        print(f"\n{title}\n{head}")
        for label, f in per.items():
            lv = f["levels"]
            print(
                f"  {label:17}{f['n']:>4} {lv['supported']:>4}{lv['partly_supported']:>5}"
                f"{lv['unsupported']:>5}{lv['no_answer']:>5}{lv['failed']:>5}"
                f"  {WANT.get(f['want'], '?'):>10} {f['right_share']:>7.2f}"
            )
    unknown = sorted({r["label"] for r in result["rows"]} - set(LABELS))
    if unknown:
        print(f"\nLabels the report does not know (counted, not judged): {', '.join(unknown)}")
    unmapped = sum(bool(r["unmapped"]) for r in result["rows"])
    if unmapped:
        print(
            f"\n{unmapped} answers cite a file no source came from (the search found other "
            "passages than when they were written): such a citation cites no source.",
            file=sys.stderr,
        )
    if "ablation" in result:
        print_ablation(result["ablation"])


def print_ablation(ablation: dict[str, Any]) -> None:
    """Per check: how many answers of each half the verdict gets right without it."""
    print("\nEach check switched off alone (answers the verdict gets right; change from all on)")
    print(f"  {'check':28}{'dev':>10}{'held out':>12}   dev labels it changes")
    base = ablation["all"]
    print(f"  {'(all on)':28}{base.get('dev', 0):>10}{base.get('held_out', 0):>12}")
    for name, right in ablation["checks"].items():
        cells = [
            f"{right.get(h, 0)} ({right.get(h, 0) - base.get(h, 0):+d})"
            for h in ("dev", "held_out")
        ]
        moved = _label_changes(ablation, name)
        print(f"  {visible(name):28}{cells[0]:>10}{cells[1]:>12}   {moved}")


def _label_changes(ablation: dict[str, Any], name: str) -> str:
    """The dev labels a check's absence changes, as "faithful +2, contradicts -3": a check
    whose total moves by one can trade several right answers of one kind for another's."""
    base = ablation.get("all_labels", {}).get("dev", {})
    off = ablation.get("labels", {}).get(name, {}).get("dev", {})
    moved = [(label, off.get(label, 0) - n) for label, n in base.items()]
    return ", ".join(f"{label} {d:+d}" for label, d in moved if d)
