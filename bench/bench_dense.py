"""Dense retrieval: Chroma's HNSW graph against the exact in-memory search, in one run.

Over an existing index (a data dir made by ``footnotes index``), with real questions from the
shared data as queries, prints for each method: recall@10 against the exact cosine top 10,
how often its top 1 is the true nearest passage, and query latency (p50/p95, the query
embedding included); then the exact search's latency at 100k vectors (the index's own vectors
padded with perturbed copies), the whole shipped search's latency over the index, the time to
read the matrix, and peak memory.

    .venv/bin/python bench/bench_dense.py --data-dir DIR [--queries 300]
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np
from _common import peak_rss_mb, print_table, read_jsonl, require_data

from app.core.engine import Engine
from app.core.index.vectors import VectorMatrix


def questions(count: int) -> list[str]:
    """Questions from FinanceBench, SQuAD 2.0 and SciFact, shuffled with a fixed seed."""
    out = [q["question"] for q in read_jsonl(require_data("financebench", "questions.jsonl"))]
    out += [q["question"] for q in read_jsonl(require_data("squad2", "questions.jsonl"))][:2000]
    out += [q["text"] for q in read_jsonl(require_data("scifact", "queries.jsonl"))]
    random.Random(1).shuffle(out)
    return out[:count]


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(values), p)) * 1000.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True, type=Path, help="an index made by footnotes")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()

    engine = Engine(args.data_dir)
    embedder, store = engine.embedder(), engine.store()
    qs = questions(args.queries)
    embedder.encode(qs[:4])  # warm up
    started = time.perf_counter()
    store.nearest(embedder.encode(["warm"])[0], 1)  # reads the matrix
    load_s = time.perf_counter() - started
    n_vectors = store.count()

    exact, approx, t_exact, t_approx = [], [], [], []
    for q in qs:
        t0 = time.perf_counter()
        vec = embedder.encode([q])[0]
        t_embed = time.perf_counter() - t0
        t0 = time.perf_counter()
        ex = [d.text_hash for d in store.nearest(vec, args.k)]
        t_exact.append(t_embed + time.perf_counter() - t0)
        t0 = time.perf_counter()
        ap_ = [d.text_hash for d in store.query(vec, args.k)]
        t_approx.append(t_embed + time.perf_counter() - t0)
        exact.append(ex)
        approx.append(ap_)

    def recall(found: list[list[str]]) -> float:
        return float(
            np.mean([len(set(f) & set(e)) / len(e) for f, e in zip(found, exact, strict=True) if e])
        )

    def top1(found: list[list[str]]) -> float:
        return float(
            np.mean([bool(f) and f[0] == e[0] for f, e in zip(found, exact, strict=True) if e])
        )

    print(f"index: {args.data_dir}  vectors: {n_vectors}  queries: {len(qs)}  k: {args.k}")
    print_table(
        ["method", "recall@10 vs exact", "top 1 = nearest", "p50 ms", "p95 ms"],
        [
            [
                "Chroma HNSW (today)",
                recall(approx),
                top1(approx),
                percentile(t_approx, 50),
                percentile(t_approx, 95),
            ],
            [
                "exact in-memory (shipped)",
                recall(exact),
                top1(exact),
                percentile(t_exact, 50),
                percentile(t_exact, 95),
            ],
        ],
    )

    # The exact search at 100k vectors: the index's vectors plus perturbed copies.
    ids = list(store.all_ids())
    vecs = store.vectors(ids)
    matrix = VectorMatrix(store.dim)
    matrix.add(list(vecs), np.array(list(vecs.values()), np.float32))
    rng = np.random.default_rng(0)
    base = np.array(list(vecs.values()), np.float32)
    extra = 100_000 - len(matrix)
    if extra > 0:
        pad = base[rng.integers(0, len(base), extra)] + rng.normal(0, 0.05, (extra, store.dim))
        matrix.add([f"pad{i}" for i in range(extra)], pad.astype(np.float32))
    times = []
    for q in qs:
        t0 = time.perf_counter()
        vec = embedder.encode([q])[0]
        matrix.nearest(vec, args.k)
        times.append(time.perf_counter() - t0)
    print(
        f"\nexact search at {len(matrix):,} vectors, query embedding included: "
        f"p50 {percentile(times, 50):.1f} ms, p95 {percentile(times, 95):.1f} ms"
    )
    # The whole shipped search (embedding, exact dense, BM25, phrase pins, named files, fusion).
    engine.search(qs[0], k=args.k)  # warm up
    full, passages = [], engine.manifest.counts()["chunks"]
    for q in qs:
        t0 = time.perf_counter()
        engine.search(q, k=args.k)
        full.append(time.perf_counter() - t0)
    print(
        f"whole search as shipped (hybrid) over this index's {passages:,} "
        f"passages: p50 {percentile(full, 50):.1f} ms, p95 {percentile(full, 95):.1f} ms"
    )
    print(f"reading the matrix of {n_vectors:,} vectors from the store: {load_s:.2f} s")
    print(f"peak RSS: {peak_rss_mb():.0f} MiB")
    engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
