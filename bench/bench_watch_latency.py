"""Live-watching latency: time from a file's save to `search` returning the new sentence.

Copies ../shared/data/corpus/notes (1,873 Markdown notes; ``--manuals`` adds the manuals'
plain text) to a folder, indexes and watches it, then 20 times appends a unique sentence to a
note and polls a second engine's search until a hit from that note contains it (each edit is
undone afterwards, so edits do not compete in the ranking). Prints median and p90 of
save→indexed and save→searchable, and chunks embedded per edit. ``--workdir`` keeps the copy
and its index for the next run (whose start-up check then only stats files).

    .venv/bin/python bench/bench_watch_latency.py [--edits 20] [--models-dir DIR] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from _common import print_table, require_data

from app.core.engine import Engine
from app.core.index.embedding import load_embedder
from app.core.index.indexer import Progress
from app.core.watch.change_queue import QUIET_S
from app.core.watch.watcher import Watcher, WatchStatus

DEADLINE_S = 30.0
WORDS = ["amber", "basalt", "cirrus", "dynamo", "fennel", "gossamer", "halcyon", "jasper"]


def copy_corpus(dest: Path, manuals: bool) -> Path:
    """The notes (and optionally the manuals' .txt files) in a folder we may edit."""
    if (dest / "notes").is_dir():
        return dest  # kept from an earlier run (--workdir)
    shutil.copytree(require_data("corpus", "notes"), dest / "notes")
    if manuals:
        (dest / "manuals").mkdir()
        for txt in sorted(require_data("corpus", "manuals").glob("*.txt")):
            shutil.copy(txt, dest / "manuals" / txt.name)
    return dest


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=20, help="number of timed edits")
    parser.add_argument("--manuals", action="store_true", help="also watch the manuals' text")
    parser.add_argument("--models-dir", type=Path, help="keep the int8 model export here (reused)")
    parser.add_argument("--workdir", type=Path, help="keep the corpus copy and index here (reused)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="footnotes-watch-bench-") as tmp:
        root = args.workdir.resolve() if args.workdir else Path(tmp)
        docs = copy_corpus(root / "docs", args.manuals)
        models = args.models_dir or root / "models"
        embedder = load_embedder(models_dir=models)
        writer = Engine(root / "data", embedder=embedder)
        reader = Engine(root / "data", embedder=embedder)
        writer.add_folder(str(docs))
        indexed_at: dict[str, float] = {}

        def on_progress(p: Progress) -> None:
            if p.event == "indexed":
                indexed_at[p.path] = time.perf_counter()

        def on_status(s: WatchStatus) -> None:
            if s.state in ("error", "polling", "missing"):
                print(f"watcher: {s.message}", flush=True)

        watcher = Watcher(writer, on_progress=on_progress, on_status=on_status)
        started = time.perf_counter()
        watcher.start()
        if not watcher.wait_idle(3600) or watcher.last_sync is None:
            raise SystemExit(f"the start-up index did not finish: {watcher.error}")
        sync = watcher.last_sync
        print(
            f"Start-up sync: {sync.files_seen} files ({sync.files_indexed} indexed), "
            f"{sync.chunks_total} passages ({sync.chunks_embedded} embedded) in "
            f"{time.perf_counter() - started:.1f} s",
            flush=True,
        )

        rng = random.Random(3)
        notes = sorted((docs / "notes").rglob("*.md"))
        rows, to_index, to_search, embedded = [], [], [], []
        try:
            for i in range(args.edits):
                target = rng.choice(notes)
                sentence = f"Benchmark edit {i} mentions {' '.join(rng.sample(WORDS, 4))} zq{i}x."
                original = target.read_bytes()
                before = watcher.stats.chunks_embedded
                indexed_at.pop(str(target), None)
                saved = time.perf_counter()
                with target.open("a", encoding="utf-8") as fh:
                    fh.write(f"\n\n{sentence}\n")
                while True:
                    hits = reader.search(sentence, k=10).hits
                    if any(h.path == str(target) and sentence in h.text for h in hits):
                        break
                    if time.perf_counter() - saved > DEADLINE_S:
                        raise SystemExit(f"edit {i}: not searchable after {DEADLINE_S:g} s")
                    time.sleep(0.01)
                found = time.perf_counter()
                watcher.wait_idle(60)
                to_search.append(found - saved)
                to_index.append(indexed_at.get(str(target), found) - saved)
                embedded.append(watcher.stats.chunks_embedded - before)
                rows.append(
                    (
                        i,
                        target.relative_to(docs).as_posix()[:48],
                        to_index[-1],
                        to_search[-1],
                        embedded[-1],
                    )
                )
                target.write_bytes(original)  # undo, untimed
                time.sleep(QUIET_S)
                watcher.wait_idle(60)
        finally:
            watcher.stop()
            writer.close()
            reader.close()

    print_table(["edit", "file", "save→indexed s", "save→searchable s", "embedded"], rows)
    print()
    print_table(
        ["measure", "median s", "p90 s", "max s"],
        [
            (
                "save → indexed",
                statistics.median(to_index),
                percentile(to_index, 0.9),
                max(to_index),
            ),
            (
                "save → searchable",
                statistics.median(to_search),
                percentile(to_search, 0.9),
                max(to_search),
            ),
        ],
    )
    print(
        f"\nDebounce quiet period {QUIET_S:g} s (included above). Chunks embedded per edit: "
        f"mean {statistics.mean(embedded):.2f}, max {max(embedded)}. "
        f"Target: median save → searchable ≤ 1.5 s."
    )


if __name__ == "__main__":
    main()
