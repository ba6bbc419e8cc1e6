"""End-to-end indexing speed against raw encoding of the same chunk texts, in one run.

Prints: indexing chunks/s of ../shared/data/corpus (or a sub-folder), raw encoding chunks/s of
a sample of the same chunk texts with the same model, their ratio (target ≥ 0.85); the time
until 90% of the files are searchable by their words against the whole index time (target
≤ 0.15: files are written before their vectors are computed); the unchanged-corpus rescan
time (in a fresh process: no model, no store opened); and peak RSS (this process and the
parser; target ≤ 1.5 GB).

    .venv/bin/python bench/bench_index.py [--folder corpus/notes] [--sample 2000]
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import peak_rss_mb, print_table, require_data

from app.core.engine import Engine
from app.core.index.report import Progress


class Timeline:
    """When each file became searchable (its passages written) and when the vectors ended."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.planned = 0
        self.searchable: list[float] = []
        self.embedded_at = 0.0

    def __call__(self, p: Progress) -> None:
        now = time.perf_counter() - self.start
        if p.event == "planned":
            self.planned = p.total
        elif p.event in ("indexed", "unchanged", "failed") and p.path:
            self.searchable.append(now)
        elif p.event == "embedded":
            self.embedded_at = now

    def until(self, share: float) -> float:
        """Seconds until ``share`` of the planned files were searchable."""
        need = max(1, int(share * self.planned + 0.999))
        return self.searchable[need - 1] if len(self.searchable) >= need else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", default="corpus", help="inside ../shared/data (default: corpus)")
    ap.add_argument("--sample", type=int, default=2000, help="texts for the raw-encoding figure")
    ap.add_argument("--keep", metavar="DIR", help="use/keep this data dir instead of a temp one")
    args = ap.parse_args()

    corpus = require_data(*Path(args.folder).parts)
    data_dir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="fn-bench-"))
    engine = Engine(data_dir)
    try:
        engine.embedder()  # load (and export, on first use) outside the timed run
        timeline = Timeline()
        t0 = time.perf_counter()
        first = engine.index([str(corpus)], progress=timeline)
        first_s = time.perf_counter() - t0
        lexical_90 = timeline.until(0.9)

        texts = list(engine.manifest.texts_for_hashes(engine.manifest.all_hashes()).values())
        random.Random(0).shuffle(texts)
        sample = texts[: args.sample]
        t0 = time.perf_counter()
        engine.embedder().encode(sample)
        raw_s = time.perf_counter() - t0

        parser_mb = parser_rss_mb(engine)
        engine.close()
        t0 = time.perf_counter()
        rescan = subprocess.run(
            [sys.executable, "-m", "app", "--data-dir", str(data_dir), "index", str(corpus)],
            capture_output=True,
            check=True,
            cwd=Path(__file__).resolve().parents[1],
        )
        rescan_s = time.perf_counter() - t0
        del rescan

        index_rate = first.chunks_embedded / first_s if first.chunks_embedded else float("nan")
        raw_rate = len(sample) / raw_s if sample else float("nan")
        print(f"corpus: {corpus}  data dir: {data_dir}  model: {engine.embedder().model_id}")
        print(
            f"files seen {first.files_seen}, indexed {first.files_indexed}, failed "
            f"{first.files_failed}, skipped {first.files_skipped}; passages {first.chunks_total} "
            f"({first.chunks_embedded} distinct texts embedded)"
        )
        print_table(
            ["measure", "value"],
            [
                ["indexing, seconds", round(first_s, 1)],
                ["indexing, chunks embedded/s (end to end)", round(index_rate, 1)],
                [f"raw encoding of {len(sample)} of the same texts, chunks/s", round(raw_rate, 1)],
                ["ratio indexing / raw encoding (target >= 0.85)", round(index_rate / raw_rate, 3)],
                ["90% of files searchable by words, seconds", round(lexical_90, 1)],
                ["vectors complete, seconds", round(timeline.embedded_at, 1)],
                [
                    "ratio 90% searchable / whole index (target <= 0.15)",
                    round(lexical_90 / first_s, 3),
                ],
                ["unchanged rescan, new process, seconds (target <= 1)", round(rescan_s, 2)],
                ["peak RSS, this process, MiB", round(peak_rss_mb(), 1)],
                ["peak RSS, parser process, MiB", round(parser_mb, 1)],
            ],
        )
        for path, reason in first.failures:
            print(f"  failed: {path}: {reason}")
    finally:
        engine.close()
        if not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
    return 0


def parser_rss_mb(engine: Engine) -> float:
    """The reader process's peak resident memory (Linux: VmHWM), NaN where not readable.

    Not RUSAGE_CHILDREN: on Linux a child started by fork and exec reports at least the
    parent's resident size at the fork, so it would show this process's peak again.
    """
    proc = engine.indexer().pool._proc
    try:
        status = Path(f"/proc/{proc.pid}/status").read_text()
    except (AttributeError, OSError):
        return float("nan")
    kib = next((line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")), "")
    return int(kib) / 1024 if kib else float("nan")


if __name__ == "__main__":
    sys.exit(main())
