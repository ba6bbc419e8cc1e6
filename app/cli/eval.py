"""``footnotes eval retrieval|support|claims|answers``: figures on the labelled sets."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app import evaluation as ev
from app.cli.common import HandledError, ProgressBar, print_json, visible
from app.core.api import Footnotes


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


def run(args: argparse.Namespace, fn: Footnotes) -> int:
    held_out = getattr(args, "held_out_pages", None)
    if held_out is not None and (args.what != "retrieval" or args.set not in (None, "corpus")):
        raise HandledError(
            "--held-out-pages is read by `eval retrieval --set corpus` (or `eval retrieval` with "
            "every set), over the index of the whole corpus/"
        )
    data = _data_dir(args)
    try:
        if args.what == "retrieval":
            result = _retrieval(args, fn, data)
        elif args.what == "claims":
            result = _claims(args, data)
        elif args.what == "answers":
            return _answers(args, fn, data)
        else:
            result = _support(args, fn, data)
    except ev.EvalDataError as exc:
        raise HandledError(str(exc)) from None
    if args.json:
        print_json(result)
    return 0


def _retrieval(args: argparse.Namespace, fn: Footnotes, data: Path) -> dict[str, Any]:
    engine = fn.engine  # the eval tools measure the engine itself
    out: dict[str, Any] = {}
    sets = [args.set] if args.set else ["scifact", "financebench", "corpus"]
    # read (and checked) before any set is indexed: a slip in a file kept by hand costs nothing
    held_out = getattr(args, "held_out_pages", None)
    held_out_pages = (
        ev.load_written_pages(Path(held_out).expanduser()) if held_out is not None else None
    )
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
        _print_pages(args, res)
    if "corpus" in sets:
        index = Path(args.index).expanduser().resolve() if getattr(args, "index", None) else None
        _say(args, f"Corpus: {index or 'indexing corpus/ (long the first time)'} ...")
        res = ev.run_corpus(
            engine,
            data,
            limit=args.limit,
            progress=ProgressBar(not args.json),
            index_dir=index,
            held_out_pages=held_out_pages,
        )
        out["corpus"] = res
        known, fb = res["known_item"], res["financebench"]
        _say(args, f"  known items: {known['items']} sentences pasted from the corpus")
        _say(args, f"  {'mode':8} {'half':8} {'n':>4} {'passage first':>13} {'page in top 5':>14}")
        for mode in known["modes"]:
            for name, part in [("all", known), *known["halves"].items()]:
                m = part["modes"][mode]
                n = part.get("items", known["items"])
                _say(args, f"  {mode:8} {name:8} {n:4} {m['first']:13.3f} {m['page@5']:14.3f}")
        _say(args, f"  FinanceBench over the whole corpus: {fb['questions']} questions")
        _print_pages(args, fb)
        written = res["written_pages"]
        _say(args, f"  written over the filings (all dev): {written['questions']} questions")
        _print_pages(args, written)
        if "written_pages_held_out" in res:
            written = res["written_pages_held_out"]
            _say(args, f"  written over the filings, held out: {written['questions']} questions")
            _print_pages(args, written)
        recall = res["dense_recall@10_vs_exact"]
        _say(
            args,
            f"  dense recall@10 against an exact search: shipped {recall['shipped']:.3f}, "
            f"Chroma's HNSW graph {recall['hnsw']:.3f}",
        )
    return out


def _print_pages(args: argparse.Namespace, res: dict[str, Any]) -> None:
    """FinanceBench's evidence page in the top 5 and 10, per mode, all and per half."""
    _say(args, f"  {'mode':8} {'half':8} {'n':>4} {'evidence page in top 5':>23} {'in top 10':>10}")
    for mode in res["modes"]:
        for name, part in [("all", res), *res.get("halves", {}).items()]:
            m = part["modes"][mode]
            _say(
                args,
                f"  {mode:8} {name:8} {part['questions']:4} {m['page@5']:23.3f} "
                f"{m['page@10']:10.3f}",
            )
    if "halves" in res:
        _say(args, "  (dev: the half tuned on; held_out: the other half, for reporting)")


SUPPORT_SETS = {
    "squad2": "SQuAD 2.0: indexing squad2/passages.jsonl (one file per passage)",
    "scifact": "SciFact: indexing one file per abstract",
    "corpus": "corpus/: notes, manuals and filings (FinanceBench, probes, off-topic questions)",
}


def _support(args: argparse.Namespace, fn: Footnotes, data: Path) -> dict[str, Any]:
    """The flag per domain on held-out halves; ``--refit`` also writes new parameters."""
    from app.evaluation import support as sup

    engine = fn.engine  # the eval tools measure the engine itself

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
            path = sup.ship(model)
            out.update(held_out=report, written=str(path))
        else:
            out["held_out"] = sup.held_out(sets)
            model = sup.shipped_model()
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
    below: list[str] = []  # the kinds short of their target, held out
    held, tuning = report["halves"].get("held_out", {}), report["halves"].get("tuning", {})
    for kind in claims.KINDS:
        supported = kind in claims.SUPPORTED_KINDS
        h, t = held.get(kind), tuning.get(kind)
        if h is None and t is None:
            continue
        if h is not None and h["correct"] < CLAIM_TARGETS[supported]:
            below.append(kind)
        _say(
            args,
            f"  {kind:18} {'kept' if supported else 'flagged':12} "
            f"{_share(h):>9} {_count(h):>5}   {_share(t):>7} {_count(t):>5}",
        )
    report["targets_met_held_out"] = not below
    report["below_target_held_out"] = below
    outcome = f"NOT met ({', '.join(below)})" if below else "met"
    _say(
        args,
        "Share of sentences the checks got right. Targets (held out): >= 95% of each supported "
        f"kind kept, >= 85% of each unsupported kind flagged: {outcome}.",
    )
    report.pop("tuning_mistakes", None)
    return report


def _share(row: dict[str, Any] | None) -> str:
    return "-" if row is None else f"{row['correct']:.3f}"


def _count(row: dict[str, Any] | None) -> str:
    return "-" if row is None else str(row["n"])


ANSWER_SETS = {
    "squad": "SQuAD 2.0: indexing squad2/passages.jsonl (one file per passage)",
    "notes": "Notes: corpus/notes (a cached corpus index is reused)",
    "finance": "FinanceBench: corpus/filings (a cached corpus index is reused; long otherwise)",
}


def _answer_sets(text: str | None) -> list[str]:
    """--sets squad,notes,finance (default: all three), in that order."""
    if not text:
        return list(ANSWER_SETS)
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in ANSWER_SETS]
    if unknown or not names:
        raise HandledError(
            f"--sets: unknown set {', '.join(unknown) or text!r}; give any of squad,notes,finance"
        )
    return [n for n in ANSWER_SETS if n in names]


def _answers(args: argparse.Namespace, fn: Footnotes, data: Path) -> int:
    """Real answers through the core Ask operation: the per-kind table, JSON to a file or
    stdout with ``--json``; exit 1 with Ollama's sentence when it cannot answer at all."""
    from app.core.api import AskOptions
    from app.evaluation import answers as ans

    if getattr(args, "replay", None) or getattr(args, "write_prompts", None):
        from app.cli import replay

        return replay.run(args, fn, data, _answer_sets(getattr(args, "sets", None)), _asked)
    engine = fn.engine  # the eval tools measure the engine itself
    names = _answer_sets(getattr(args, "sets", None))
    to_file = isinstance(args.json, str) and args.json != "-"
    table = not args.json or to_file

    def say(text: str) -> None:
        if table:
            print(text, flush=True)

    root = Path(args.work).expanduser().resolve() if getattr(args, "work", None) else None
    root = root or engine.data.root
    index = Path(args.index).expanduser().resolve() if getattr(args, "index", None) else None
    prepared: list[ans.Prepared] = []
    try:
        for name in names:
            say(f"{ANSWER_SETS[name]} ...")
            bar = ProgressBar(table)
            if name == "squad":
                prepared.append(ans.prepare_squad(engine, data, root, args.limit, bar))
            elif name == "notes":
                prepared.append(ans.prepare_notes(engine, data, root, args.limit, bar, index))
            else:
                prepared.append(ans.prepare_finance(engine, data, root, args.limit, bar, index))
            bar.close()
        options = AskOptions.from_settings(
            engine.settings, k=getattr(args, "k", None), model=getattr(args, "model", None)
        )
        total = sum(len(p.questions) for p in prepared)
        say(f"Asking {total} questions of {options.model} at {options.host} (k={options.k}) ...")
        rows, used, note = ans.ask_all(prepared, options, _asked(table))
        if note:
            print(f"footnotes: {note}", file=sys.stderr, flush=True)
        result = ans.report(rows, prepared, used)
    except ans.AskFailed as exc:
        raise HandledError(str(exc)) from None
    finally:
        ans.close(prepared)
    if table:
        print_answers(result)
    if to_file:
        Path(args.json).write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n")
        say(f"Wrote {args.json}")
    elif args.json:
        print_json(result)
    return 0


def _asked(enabled: bool) -> Any:
    def each(done: int, total: int) -> None:
        if enabled and sys.stderr.isatty():
            end = "" if done < total else "\n"
            print(f"\r  {done}/{total} questions asked", end=end, file=sys.stderr, flush=True)

    return each


HALF_TITLES = {
    "dev": "Dev half (tune here)",
    "held_out": "Held-out half (report this)",
}
EXAMPLE_TITLES = {
    "green_wrong": "Green but wrong (supported, no gold answer in it)",
    "negative_green": "Negative green (unanswerable / out of corpus / evidence missed)",
    "correct_not_green": "Correct but not green (a gold answer in it), with the verdict's reason",
}


def print_answers(result: dict[str, Any]) -> None:
    """The per-half table: one line per set and kind, then all sets; then a few examples."""
    print(
        f"Model {result['model']} at {result['host']}, k={result['k']}, "
        f"{result['questions']} questions asked through the core Ask operation"
    )
    head = (
        f"  {'set':8}{'kind':23}{'n':>4} {'sup':>4}{'part':>5}{'uns':>5}{'none':>5}{'fail':>5}"
        f"  {'green prec.':>12} {'neg. green':>11} {'correct !green':>14}"
        f"  {'claims backed':>14} {'gold|backed':>11} {'non-claim':>9}"
    )
    for h, title in HALF_TITLES.items():
        print(f"{title}:")
        print(head)
        for name, kinds in result["halves"][h].items():
            for kind, f in kinds.items():
                print("  " + _answer_line(name, kind, f))
    print(
        "  sup/part/uns/none/fail: verdict levels (supported = green). green prec.: share of "
        "green answers that contain a gold answer (green count in brackets). neg. green: share "
        "of negatives shown green. correct !green: answers holding a gold answer that are not "
        "green, of all holding one. claims backed: claim sentences marked backed, of all claim "
        "sentences; gold|backed: of the backed ones (answerable), the share holding a gold "
        "answer; non-claim: sentences marked meta (never counted)."
    )
    for kind, title in EXAMPLE_TITLES.items():
        found = result["examples"][kind]
        if not any(found.values()):
            continue
        print(f"{title}:")
        for h in HALF_TITLES:
            for e in found[h]:
                print(
                    f"  [{h}, {e['set']} {e['kind']}] Q: {visible(e['question'])}\n"
                    f"      A: {visible(_clip(e['answer']))}\n"
                    f"      {e['level']}: {visible(_clip(e['reason']))}"
                    + (f"\n      gold: {visible(_clip('; '.join(e['gold'])))}" if e["gold"] else "")
                )


def _answer_line(name: str, kind: str, f: dict[str, Any]) -> str:
    lv, s = f["levels"], f["sentences"]
    answerable = f["answerable"] > 0
    prec = _ratio(f["green_precision"], f["green"]) if answerable else "-"
    neg = _ratio(f["negatives_green"], f["negatives"]) if f["negatives"] else "-"
    cng = f"{f['correct_not_green']} of {f['correct']}" if answerable else "-"
    backed = _ratio(s["backed_share"], s["claims"])
    gold = "-" if s["backed_with_gold"] is None else f"{s['backed_with_gold']:.2f}"
    return (
        f"{name:8}{kind:23}{f['n']:>4} {lv['supported']:>4}{lv['partly_supported']:>5}"
        f"{lv['unsupported']:>5}{lv['no_answer']:>5}{lv['failed']:>5}"
        f"  {prec:>12} {neg:>11} {cng:>14}  {backed:>14} {gold:>11} {s['non_claims']:>9}"
    )


def _ratio(value: float | None, n: int) -> str:
    return "-" if value is None else f"{value:.2f} ({n})"


def _clip(text: str, width: int = 220) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"
