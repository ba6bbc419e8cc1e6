"""The verdict's latency: from the answer's last token to its verdict, with the parser included.

Replays the dev set of fluent answers (``app/evaluation/sets/fluent-answers-dev.jsonl``)
through the app's own search and prompt with no model, keeping each answer with the sources it
was judged on, then times, per answer, the sentence marks and the headline verdict:

- **streamed**, as ``ask`` runs it: the sources were parsed while the answer streamed
  (``marks.prepare``, untimed), so only the answer's own sentences are parsed at the end;
- **cold**: every parse cache emptied first (no overlap with the stream at all);

and, once, the parser's load in a fresh process (``ask`` starts it when a question starts, so a
first question's search and generation hide it). Prints p50/p95/max in milliseconds at the
default number of passages; the target is the streamed p95 within 150 ms on two cores.

    .venv/bin/python bench/bench_verdict.py [--data-dir DIR] [--index CORPUS] [--limit N]

``--data-dir`` names a data directory that already holds the eval indexes (``eval/squad2`` and
``eval/corpus``, made by ``footnotes eval answers``); without them they are built first.
``--index`` names a data directory indexing corpus/ (notes and filings), as for
``bench_replay.py``.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from _common import print_table, require_data

from app.core.ask import AskOptions
from app.core.engine import Engine
from app.core.verdict import parse
from app.core.verdict.marks import mark_sentences, prepare
from app.core.verdict.relations import _cached_reading
from app.evaluation import replay as rp

SET = Path(__file__).resolve().parents[1] / "app/evaluation/sets/fluent-answers-dev.jsonl"


def ms(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] * 1000


def load_seconds() -> float:
    """The parser's load in a fresh process (import and model)."""
    code = (
        "import time; t = time.perf_counter(); from app.core.verdict import parse; "
        "parse.parser(); print(time.perf_counter() - t)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    return float(out.stdout.strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get("FOOTNOTES_DATA_DIR", "bench/out/data"))
    ap.add_argument("--index", default=None, help="a data directory indexing corpus/")
    ap.add_argument("--limit", type=int, default=None, help="at most N answers")
    args = ap.parse_args()
    data = require_data()
    engine = Engine(Path(args.data_dir))
    objs = rp.read_lines(SET)[: args.limit]
    names = [n for n in ("squad", "notes", "finance") if n in {rp.set_of(o) for o in objs}]
    index = Path(args.index).expanduser().resolve() if args.index else None
    sets = rp.prepare(engine, data, engine.data.root, names, None, index)
    options = AskOptions.from_settings(engine.settings)
    lines = rp.resolve(objs, {q.id: q for s in sets for q in s.questions})
    done = rp.replay(lines, sets, options)
    answers = [o.answer for _, o in done if o.answer is not None and o.answer.text]
    streamed: list[float] = []
    cold: list[float] = []
    for answer in answers:
        support = None
        parse._docs.clear()
        _cached_reading.cache_clear()
        t = time.perf_counter()
        answer.sentences = mark_sentences(answer.text, answer.sources, question=answer.question)
        answer.verdict = None
        answer.judge(support)
        cold.append(time.perf_counter() - t)
        parse._docs.clear()
        _cached_reading.cache_clear()
        prepare(answer.sources)  # while the answer streams
        t = time.perf_counter()
        answer.sentences = mark_sentences(answer.text, answer.sources, question=answer.question)
        answer.verdict = None
        answer.judge(support)
        streamed.append(time.perf_counter() - t)
    for s in sets:
        s.engine.close()
    load = load_seconds()
    print(
        f"{len(answers)} answers of {SET.name}, k={options.k}, on {platform.machine()} "
        f"({os.cpu_count()} cores); parser {parse.MODEL}"
    )
    rows = [
        ("streamed (sources parsed during the answer)", streamed),
        ("cold (every cache empty)", cold),
    ]
    print_table(
        ["last token -> verdict", "p50 ms", "p95 ms", "max ms"],
        [[name, f"{ms(v, 50):.1f}", f"{ms(v, 95):.1f}", f"{ms(v, 100):.1f}"] for name, v in rows],
    )
    print(f"parser load in a fresh process: {load:.2f} s (started when a question starts)")
    print(f"target: streamed p95 <= 150 ms: {'met' if ms(streamed, 95) <= 150 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
