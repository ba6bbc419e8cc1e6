"""Embedding speed and quality: torch fp32 vs the shipped int8 ONNX path, in one run.

Prints chunks/s on ~100-word SciFact abstracts for each backend and their ratio, then
SciFact dev nDCG@10 (brute-force cosine over the whole corpus) for both and the difference.

    .venv/bin/python bench/bench_embedding.py [--limit N] [--models-dir DIR]
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from _common import peak_rss_mb, print_table, read_jsonl, require_data

from app.core.index.embedding import Embedder, load_embedder

WORDS_PER_CHUNK = 100


def chunk_texts(corpus: Path, count: int) -> list[str]:
    """``count`` abstracts of at least 100 words, clipped to their first 100 words."""
    texts = []
    for doc in read_jsonl(corpus):
        words = str(doc["text"]).split()
        if len(words) >= WORDS_PER_CHUNK:
            texts.append(" ".join(words[:WORDS_PER_CHUNK]))
            if len(texts) == count:
                break
    return texts


def throughput(
    embedders: dict[str, Embedder], texts: list[str], repeats: int
) -> dict[str, tuple[float, float]]:
    """Best (chunks/s, CPU ms/chunk) of each embedder over interleaved rounds.

    CPU time is reported too because the cores are shared: other processes slow the wall
    clock, much less the CPU seconds this process needs per chunk.
    """
    for emb in embedders.values():
        emb.encode(texts[:32])  # warm-up: first-call allocations and graph set-up
    best = dict.fromkeys(embedders, (0.0, math.inf))
    for _ in range(repeats):
        for name, emb in embedders.items():
            wall, cpu = time.perf_counter(), time.process_time()
            emb.encode(texts, batch_size=32)
            rate = len(texts) / (time.perf_counter() - wall)
            cpu_ms = 1000 * (time.process_time() - cpu) / len(texts)
            best[name] = (max(best[name][0], rate), min(best[name][1], cpu_ms))
    return best


def ndcg_at_k(ranked: Sequence[str], rels: dict[str, int], k: int = 10) -> float:
    """nDCG@k with gain = relevance grade and log2(rank + 1) discount (as in trec_eval)."""
    dcg = sum(rels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(rels.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def load_scifact(root: Path, limit: int | None) -> tuple[list[str], list[str], dict, dict]:
    """Doc ids, doc texts (title + text), dev queries {id: text} and qrels {qid: {doc: grade}}."""
    qrels: dict[str, dict[str, int]] = {}
    for line in (root / "qrels" / "dev.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        if line.strip():
            qid, did, grade = line.split("\t")
            qrels.setdefault(qid, {})[did] = int(grade)
    queries = {q["_id"]: q["text"] for q in read_jsonl(root / "queries.jsonl") if q["_id"] in qrels}
    corpus = read_jsonl(root / "corpus.jsonl")
    docs = {d["_id"]: f"{d['title']} {d['text']}".strip() for d in corpus}
    if limit:
        queries = dict(list(queries.items())[:limit])
        keep = {d for q in queries for d in qrels[q]} | set(list(docs)[: 10 * limit])
        docs = {d: t for d, t in docs.items() if d in keep}
    return list(docs), list(docs.values()), queries, {q: qrels[q] for q in queries}


def retrieval_quality(
    emb: Embedder, doc_ids: list[str], doc_texts: list[str], queries: dict, qrels: dict
) -> tuple[float, float, float]:
    """(nDCG@10, Recall@100, docs/s) for one embedder by exact cosine search in numpy."""
    start = time.perf_counter()
    doc_vecs = emb.encode(doc_texts, batch_size=32)
    docs_per_s = len(doc_texts) / (time.perf_counter() - start)
    query_vecs = emb.encode(list(queries.values()), batch_size=64)
    scores = query_vecs @ doc_vecs.T
    ndcgs, recalls = [], []
    for row, qid in zip(scores, queries, strict=True):
        top = np.argsort(-row, kind="stable")[:100]
        ranked = [doc_ids[i] for i in top]
        ndcgs.append(ndcg_at_k(ranked, qrels[qid]))
        relevant = {d for d, g in qrels[qid].items() if g > 0}
        recalls.append(len(relevant & set(ranked)) / max(1, len(relevant)))
    return float(np.mean(ndcgs)), float(np.mean(recalls)), docs_per_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="quick run: N chunks and N queries")
    parser.add_argument("--chunks", type=int, default=256, help="texts for the speed test")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved speed rounds")
    parser.add_argument("--speed-only", action="store_true", help="skip the SciFact nDCG part")
    parser.add_argument("--models-dir", type=Path, help="keep the int8 export here (reused)")
    args = parser.parse_args()
    scifact = require_data("scifact")
    models = args.models_dir or Path(tempfile.mkdtemp(prefix="footnotes-bench-models-"))

    start = time.perf_counter()
    int8 = load_embedder(backend="onnx-int8", models_dir=models)
    load_int8 = time.perf_counter() - start
    start = time.perf_counter()
    fp32 = load_embedder(backend="torch", models_dir=models)
    load_fp32 = time.perf_counter() - start
    embedders: dict[str, Embedder] = {"torch fp32": fp32, "onnx int8 (shipped)": int8}
    print(f"int8 export {'made' if int8.exported else 'reused'} in {int8.path}")
    print(f"load: int8 {load_int8:.1f} s, fp32 {load_fp32:.1f} s\n")

    texts = chunk_texts(scifact / "corpus.jsonl", args.limit or args.chunks)
    tokens = [len(ids) for ids in fp32.model.tokenizer(texts)["input_ids"]]
    print(
        f"Speed: {len(texts)} chunks of {WORDS_PER_CHUNK} words "
        f"(mean {np.mean(tokens):.0f} word pieces), batch 32, best of {args.repeats}"
    )
    speed = throughput(embedders, texts, args.repeats)
    rows = [[name, f"{rate:.1f}", f"{cpu:.1f}"] for name, (rate, cpu) in speed.items()]
    print_table(["backend", "chunks/s", "CPU ms/chunk"], rows)
    (rate8, cpu8), (rate32, cpu32) = speed["onnx int8 (shipped)"], speed["torch fp32"]
    print(f"int8 / fp32: {rate8 / rate32:.2f}x chunks/s, {cpu32 / cpu8:.2f}x less CPU per chunk")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")

    if args.speed_only:
        print(f"peak RSS: {peak_rss_mb():.0f} MiB")
        return
    doc_ids, doc_texts, queries, qrels = load_scifact(scifact, args.limit)
    scope = "subset (--limit)" if args.limit else "full"
    print(f"SciFact dev, {scope}: {len(queries)} queries over {len(doc_ids)} docs")
    rows, ndcg = [], {}
    for name, emb in embedders.items():
        ndcg[name], recall, docs_s = retrieval_quality(emb, doc_ids, doc_texts, queries, qrels)
        rows.append([name, f"{ndcg[name]:.4f}", f"{recall:.4f}", f"{docs_s:.1f}"])
    print_table(["backend", "nDCG@10", "Recall@100", "docs/s"], rows)
    diff = ndcg["onnx int8 (shipped)"] - ndcg["torch fp32"]
    print(f"nDCG@10 int8 - fp32: {diff:+.4f} (budget: no worse than -0.01)")
    print(f"peak RSS: {peak_rss_mb():.0f} MiB")


if __name__ == "__main__":
    main()
