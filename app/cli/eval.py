"""``footnotes eval retrieval|support|claims``: figures on the labelled sets (../shared/data)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from app import evaluation as ev
from app.cli.common import HandledError, ProgressBar, print_json
from app.core.engine import Engine
from app.core.search import support


def _data_dir(args: argparse.Namespace) -> Path:
    folder = Path(args.data).expanduser().resolve() if args.data else ev.default_data_dir()
    if not folder.is_dir():
        raise HandledError(
            f"evaluation data not found in {folder}: pass --data DIR (the shared data folder)"
        )
    return folder


def _say(args: argparse.Namespace, text: str) -> None:
    if not args.json:
        print(text, flush=True)


def run(args: argparse.Namespace, engine: Engine) -> int:
    data = _data_dir(args)
    try:
        if args.what == "retrieval":
            result = _retrieval(args, engine, data)
        elif args.what == "claims":
            result = _claims(args, data)
        else:
            result = _support(args, engine, data)
    except ev.EvalDataError as exc:
        raise HandledError(str(exc)) from None
    if args.json:
        print_json(result)
    return 0


def _retrieval(args: argparse.Namespace, engine: Engine, data: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    sets = [args.set] if args.set else ["scifact", "financebench", "corpus"]
    if "scifact" in sets:
        _say(args, f"SciFact: indexing one file per abstract in {engine.data.root / 'eval'} ...")
        res = ev.run_scifact(engine, data, limit=args.limit, progress=ProgressBar(not args.json))
        out["scifact"] = res
        _say(
            args,
            f"SciFact dev: {res['queries']} queries, {res['index']['chunks_total']} passages "
            f"(a document counts at its best passage; nDCG@10 from the shipped search's "
            f"{res['candidates_per_retriever']} candidates per retriever, Recall@100 from 100)",
        )
        _say(args, f"  {'mode':8} {'nDCG@10':>8} {'Recall@100':>11}")
        for mode, m in res["modes"].items():
            _say(args, f"  {mode:8} {m['ndcg@10']:8.4f} {m['recall@100']:11.4f}")
    if "financebench" in sets:
        _say(args, "FinanceBench: indexing corpus/filings (long the first time) ...")
        res = ev.run_financebench(
            engine, data, limit=args.limit, progress=ProgressBar(not args.json)
        )
        out["financebench"] = res
        _say(
            args,
            f"FinanceBench dev questions with their PDF present: {res['questions']} "
            f"({res['index']['chunks_total']} passages, "
            f"{res['index']['files_failed']} files failed)",
        )
        _say(args, f"  {'mode':8} {'evidence page in top 5':>23} {'in top 10':>10}")
        for mode, m in res["modes"].items():
            _say(args, f"  {mode:8} {m['page@5']:23.3f} {m['page@10']:10.3f}")
    if "corpus" in sets:
        index = Path(args.index).expanduser().resolve() if getattr(args, "index", None) else None
        _say(args, f"Corpus: {index or 'indexing corpus/ (long the first time)'} ...")
        res = ev.run_corpus(
            engine, data, limit=args.limit, progress=ProgressBar(not args.json), index_dir=index
        )
        out["corpus"] = res
        known, fb = res["known_item"], res["financebench"]
        _say(args, f"  known items: {known['items']} sentences pasted from the corpus")
        _say(args, f"  {'mode':8} {'passage first':>13} {'page in top 5':>14}")
        for mode, m in known["modes"].items():
            _say(args, f"  {mode:8} {m['first']:13.3f} {m['page@5']:14.3f}")
        _say(args, f"  FinanceBench over the whole corpus: {fb['questions']} questions")
        _say(args, f"  {'mode':8} {'evidence page in top 5':>23} {'in top 10':>10}")
        for mode, m in fb["modes"].items():
            _say(args, f"  {mode:8} {m['page@5']:23.3f} {m['page@10']:10.3f}")
        recall = res["dense_recall@10_vs_exact"]
        _say(
            args,
            f"  dense recall@10 against an exact search: shipped {recall['shipped']:.3f}, "
            f"Chroma's HNSW graph {recall['hnsw']:.3f}",
        )
    return out


SUPPORT_SETS = {
    "squad2": "SQuAD 2.0: indexing squad2/passages.jsonl (one file per passage)",
    "scifact": "SciFact: indexing one file per abstract",
    "corpus": "corpus/: notes, manuals and filings (FinanceBench, probes, off-topic questions)",
}


def _support(args: argparse.Namespace, engine: Engine, data: Path) -> dict[str, Any]:
    """The flag per domain on held-out halves; ``--refit`` also writes new parameters."""
    from app.evaluation import support as sup

    names = [args.set] if getattr(args, "set", None) in SUPPORT_SETS else list(SUPPORT_SETS)
    index_dir = getattr(args, "index", None)
    sets: list[sup.DevSet] = []
    try:
        for name in names:
            _say(args, f"{SUPPORT_SETS[name]}, then searching its questions ...")
            bar = ProgressBar(not args.json)
            each = _counter(args)
            if name == "squad2":
                sets.append(sup.squad_set(engine, data, args.limit, bar, each))
            elif name == "scifact":
                sets.append(sup.scifact_set(engine, data, args.limit, bar, each))
            else:
                folder = Path(index_dir).expanduser().resolve() if index_dir else None
                sets.append(sup.corpus_set(engine, data, args.limit, bar, each, folder))
        out: dict[str, Any] = {
            "indexes": {s.name: s.summary for s in sets},
            "rows": {s.name: len(s.rows) for s in sets},
        }
        if args.refit:
            model, report = sup.refit(sets)
            path = support.shipped_path()
            model.save(path)
            support.reload_shipped()
            out.update(held_out=report, written=str(path))
        else:
            out["held_out"] = sup.held_out(sets)
            model = support.SupportModel.load()
            out["shipped"] = {
                "fitted_on": model.fitted_on,
                "threshold": model.threshold,
                "figures": sup.shipped_figures(sets, model),
            }
    finally:
        sup.close(sets)
    held = out["held_out"]
    _say(args, "Held out: fitted on one half of the articles/documents, scored on the other.")
    _print_support(args, "Threshold as fitted:", held["shipped_threshold"])
    if "calibrated_per_index" in held:
        _print_support(args, "Threshold calibrated on each index:", held["calibrated_per_index"])
        _say(
            args,
            "  thresholds (fitted -> calibrated): "
            + "; ".join(
                f"{name}: {c['shipped_threshold']:.3f} -> {c['threshold']:.3f}" + _regions(c)
                for name, c in held["calibrations"].items()
            ),
        )
    if args.refit:
        _say(args, f"Wrote {out['written']}")
    else:
        _print_support(
            args,
            f"Shipped parameters ({model.fitted_on}; in-sample if fitted on these rows):",
            out["shipped"]["figures"],
        )
    return out


def _regions(cal: dict[str, Any]) -> str:
    """A calibration's region thresholds, by folder name, in brackets."""
    parts = [f"{Path(r['folder']).name} {r['threshold']:.3f}" for r in cal.get("regions", ())]
    return f" ({', '.join(parts)})" if parts else ""


def _counter(args: argparse.Namespace) -> Any:
    def each(done: int, total: int) -> None:
        if not args.json and sys.stderr.isatty() and (done % 100 == 0 or done == total):
            end = "" if done < total else "\n"
            print(f"\r  {done}/{total} questions", end=end, file=sys.stderr, flush=True)

    return each


def _print_support(args: argparse.Namespace, title: str, rows: dict[str, dict]) -> None:
    """AUROC and the share flagged of each kind, one line per domain (n in brackets)."""
    _say(args, title)
    _say(
        args,
        f"  {'domain':18} {'AUROC':>6} {'vs off':>6} {'off-topic':>12} {'retrieved':>12} "
        f"{'not retr.':>12} {'unanswerable':>12}",
    )
    for name, r in rows.items():
        cells = [
            _cell(r.get(f"flagged_{c}"), r["n"].get(c, 0))
            for c in ("off_topic", "retrieved", "not_retrieved", "unanswerable")
        ]
        aucs = ["-" if r.get(k) is None else f"{r[k]:.3f}" for k in ("auroc", "auroc_vs_off_topic")]
        _say(
            args,
            f"  {name:18} {aucs[0]:>6} {aucs[1]:>6} " + " ".join(f"{c:>12}" for c in cells),
        )
    _say(
        args,
        "  (share flagged, n in brackets; retrieved = answerable with an evidence passage in "
        "the top 5; not retr. = missed by search or its evidence left out; AUROC of retrieved "
        "against all other questions, and against the off-topic ones)",
    )


def _cell(value: float | None, n: int) -> str:
    return "-" if value is None else f"{value:.3f} ({n})"


CLAIM_TARGETS = {True: 0.95, False: 0.85}  # kept (supported kinds), flagged (unsupported kinds)


def _claims(args: argparse.Namespace, data: Path) -> dict[str, Any]:
    """The claim checks on a dev set built from the SQuAD 2.0 passages (fixed seed)."""
    from app.evaluation import claims

    examples = claims.build_dev_set(claims.load_passages(data))
    if args.limit:
        examples = claims.limit_per_kind(examples, args.limit)
    report = claims.evaluate(examples)
    report["seed"] = claims.SEED
    report["examples"] = len(examples)
    titles = {h: sorted({e.title for e in examples if e.half == h}) for h in (0, 1)}
    tune = claims.TUNE_HALF
    _say(
        args,
        f"Claim checks on {len(examples)} answer sentences built from squad2/passages.jsonl "
        f"(seed {claims.SEED}); each cites [1] among three passages of its article.",
    )
    _say(
        args,
        f"Tuned on {len(titles[tune])} articles ({', '.join(titles[tune])}); "
        f"reported on the other {len(titles[1 - tune])}, held out.",
    )
    _say(args, f"  {'kind':18} {'should be':12} {'held out':>9} {'n':>5}   {'tuning':>7} {'n':>5}")
    met = True
    held, tuning = report["halves"].get("held_out", {}), report["halves"].get("tuning", {})
    for kind in claims.KINDS:
        supported = kind in claims.SUPPORTED_KINDS
        h, t = held.get(kind), tuning.get(kind)
        if h is None and t is None:
            continue
        if h is not None and h["correct"] < CLAIM_TARGETS[supported]:
            met = False
        _say(
            args,
            f"  {kind:18} {'kept' if supported else 'flagged':12} "
            f"{_share(h):>9} {_count(h):>5}   {_share(t):>7} {_count(t):>5}",
        )
    report["targets_met_held_out"] = met
    _say(
        args,
        "Share of sentences the checks got right. Targets (held out): >= 95% of each supported "
        f"kind kept, >= 85% of each unsupported kind flagged: {'met' if met else 'NOT met'}.",
    )
    report.pop("tuning_mistakes", None)
    return report


def _share(row: dict[str, Any] | None) -> str:
    return "-" if row is None else f"{row['correct']:.3f}"


def _count(row: dict[str, Any] | None) -> str:
    return "-" if row is None else str(row["n"])
