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


def _support(args: argparse.Namespace, engine: Engine, data: Path) -> dict[str, Any]:
    _say(
        args,
        "SQuAD 2.0: indexing squad2/passages.jsonl (one file per passage), then asking "
        "every development question ...",
    )
    bar = ProgressBar(not args.json)

    def each(done: int, total: int) -> None:
        if not args.json and sys.stderr.isatty() and (done % 100 == 0 or done == total):
            print(
                f"\r  {done}/{total} questions",
                end="" if done < total else "\n",
                file=sys.stderr,
                flush=True,
            )

    summary, samples = ev.search_squad2(engine, data, limit=args.limit, progress=bar, each=each)
    found = [s.found_passage for s in samples if s.question.kind == "answerable"]
    out: dict[str, Any] = {
        "index": summary,
        "answerable_passage_in_hits": round(sum(found) / max(1, len(found)), 4),
    }
    if args.refit:
        model, report = ev.refit_support(samples)
        path = support.shipped_path()
        model.save(path)
        support.reload_shipped()
        out.update(refit=report, written=str(path))
        for name, rep in report["held_out"].items():
            if rep is not None:
                _print_figures(args, f"Held out ({name.replace('_', ' ')}):", rep)
        _print_figures(
            args, "All questions, parameters fitted on all (in-sample):", report["in_sample"]
        )
        _say(args, f"Wrote {path}")
    else:
        model = support.SupportModel.load()
        rows = [support.features(s.question.question, s.hits) for s in samples]
        out["report"] = ev.support_report(samples, rows, model)
        _print_figures(args, f"Shipped parameters ({model.fitted_on}):", out["report"])
    _say(
        args,
        "Answerable questions whose own passage is among the hits: "
        f"{out['answerable_passage_in_hits']:.3f}",
    )
    return out


def _print_figures(args: argparse.Namespace, title: str, report: dict[str, Any]) -> None:
    _say(args, title)
    _say(
        args,
        f"  {'verdict':24} {'AUROC ooc':>9} {'AUROC unans':>11} {'ooc flagged':>11} "
        f"{'answerable flagged':>18} {'unans flagged':>13}",
    )
    for name, r in report.items():
        label = (
            f"model (threshold {r['threshold']:.3f})"
            if name == "model"
            else name.replace("_", " cut-off ")
        )
        _say(
            args,
            f"  {label:24} {r['auroc_vs_out_of_corpus']:9.3f} "
            f"{r['auroc_vs_unanswerable_in_corpus']:11.3f} "
            f"{r['flagged_out_of_corpus']:11.3f} {r['flagged_answerable']:18.3f} "
            f"{r['flagged_unanswerable_in_corpus']:13.3f}",
        )


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
