"""Embedding speed and quality: today's int8 ONNX path vs the new one, per CPU family, in one run.

Today's path is ``app/core/index/embedding.py`` as of ``BASELINE_REV`` (read from git), the new
one is the working tree's (``embedding`` with ``int8_export`` and ``onnx_runner``). Each int8
family the machine can run is measured: on an AVX-512 VNNI machine both the VNNI export and the
AVX2 one (forced with FOOTNOTES_INT8_ARCH), on other x86 machines AVX2 only, on ARM arm64.
Speed is passages/s on real passages, the two paths interleaved round by round (today, new,
new, today, ...), with the ratio new/today of each round: the cores are shared, so only a ratio
measured side by side means anything.
Quality is SciFact dev nDCG@10 by brute-force cosine over the whole corpus.

    .venv/bin/python bench/bench_embedding.py [--passages N] [--repeats R] [--speed-only]
        [--arch avx512_vnni,avx2] [--limit N] [--models-dir DIR] [--baseline-rev REV]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import REPO_ROOT, peak_rss_mb, print_table, read_jsonl, require_data

from app.core.index import embedding, int8_export, onnx_runner
from app.core.ingest.chunking import chunk_text
from app.core.ingest.context import embedding_text, markdown_title, passage_context

BASELINE_REV = "59db5bf"  # the last commit with the export recipe and runner of before


def baseline_module(rev: str) -> Any:
    """``app.core.index.embedding`` as it was at ``rev``, imported under another name.

    ``rev`` must predate the module's split into ``model_source``, ``int8_export`` and
    ``onnx_runner``: only then is the file whole, needing nothing else of that revision.
    """
    source = subprocess.run(
        ["git", "show", f"{rev}:app/core/index/embedding.py"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp(prefix="footnotes-bench-baseline-")) / "embedding_baseline.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("embedding_baseline", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["embedding_baseline"] = module
    spec.loader.exec_module(module)
    return module


def machine_arches() -> list[str]:
    """The int8 exports this CPU runs: VNNI machines run the AVX2 export too."""
    if platform.machine().lower() in {"aarch64", "arm64"}:
        return ["arm64"]
    flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    return ["avx512_vnni", "avx2"] if re.search(r"\bavx512_?vnni\b", flags) else ["avx2"]


def note_passages(notes: Path, count: int) -> list[str]:
    """The first ``count`` passages of the notes, cut and given context as the indexer does."""
    out: list[str] = []
    for path in sorted(notes.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        title = markdown_title(text) or path.stem
        for c in chunk_text(text, path=str(path), page=None, markdown=True):
            out.append(embedding_text(passage_context(title, c.heading), c.text))
            if len(out) == count:
                return out
    return out


def scifact_passages(corpus: Path, count: int) -> list[str]:
    """The first ``count`` passages of the SciFact abstracts, cut and titled as the indexer
    cuts a text file (the eval indexes them so)."""
    out: list[str] = []
    for doc in read_jsonl(corpus):
        for c in chunk_text(doc["text"], path=doc["_id"], page=None):
            out.append(embedding_text(passage_context(doc["title"], None), c.text))
            if len(out) == count:
                return out
    return out


def load_new(models: Path, fuse: bool) -> Any:
    """The working tree's int8 embedder, its export made with or without the graph fusions."""
    default = int8_export.FUSE_GRAPH
    int8_export.FUSE_GRAPH = fuse  # read by the export and by the check of a reused one
    try:
        return embedding.load_embedder(backend="onnx-int8", models_dir=models)
    finally:
        int8_export.FUSE_GRAPH = default


def intra_op_variant(emb: Any) -> Any:
    """The new runner as one run at a time on every physical core (intra-op threads), for
    comparison with its default of single-threaded runs side by side."""
    marker = json.loads((emb.path / int8_export.EXPORT_MARKER).read_text(encoding="utf-8"))
    cores = onnx_runner.physical_cores()
    return onnx_runner.onnx_embedder(emb.path, marker, emb.model_id, workers=1, run_threads=cores)


def load_with_arch(arch: str, loader: Callable[..., Any], **kwargs: Any) -> Any:
    """``loader(**kwargs)`` with the int8 family forced to ``arch``."""
    os.environ["FOOTNOTES_INT8_ARCH"] = arch
    try:
        return loader(**kwargs)
    finally:
        os.environ.pop("FOOTNOTES_INT8_ARCH", None)


def timed(emb: Any, texts: list[str]) -> tuple[float, float]:
    """(passages/s, CPU ms/passage) of one encode of ``texts``."""
    wall, cpu = time.perf_counter(), time.process_time()
    emb.encode(texts, batch_size=32)
    return len(texts) / (time.perf_counter() - wall), 1000 * (time.process_time() - cpu) / len(
        texts
    )


def compare_speed(paths: dict[str, dict[str, Any]], texts: list[str], repeats: int) -> list[list]:
    """Rows per arch and path: median passages/s and CPU ms, and the median (min-max) of the
    per-round ratios to today's; each round rotates which path goes first."""
    for variants in paths.values():
        for emb in variants.values():
            emb.encode(texts[:32])  # warm-up: first-call allocations and graph set-up
    runs: dict[str, dict[str, list[tuple[float, float]]]] = {
        arch: {label: [] for label in v} for arch, v in paths.items()
    }
    for r in range(repeats):
        for arch, variants in paths.items():
            order = list(variants.items())
            shift = r % len(order)
            for label, emb in order[shift:] + order[:shift]:
                runs[arch][label].append(timed(emb, texts))
    rows = []
    for arch, got in runs.items():
        today = got["today"]
        for label, mine in got.items():
            rate = [m[0] / t[0] for t, m in zip(today, mine, strict=True)]
            cpu = [t[1] / m[1] for t, m in zip(today, mine, strict=True)]
            rows.append(
                [
                    f"{arch} {label}",
                    f"{statistics.median(m[0] for m in mine):.1f}",
                    f"{statistics.median(rate):.2f}x ({min(rate):.2f}-{max(rate):.2f})",
                    f"{statistics.median(m[1] for m in mine):.1f}",
                    f"{statistics.median(cpu):.2f}x",
                ]
            )
    return rows


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
    emb: Any, doc_ids: list[str], doc_texts: list[str], queries: dict, qrels: dict
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
    parser.add_argument("--passages", type=int, default=256, help="passages per speed set")
    parser.add_argument("--repeats", type=int, default=4, help="interleaved speed rounds")
    parser.add_argument("--arch", help="comma-separated int8 families (default: the machine's)")
    parser.add_argument("--limit", type=int, help="quality on N queries only (quick run)")
    parser.add_argument("--speed-only", action="store_true", help="skip the SciFact nDCG part")
    parser.add_argument("--models-dir", type=Path, help="keep the int8 exports here (reused)")
    parser.add_argument("--no-fused", action="store_true", help="skip the fused-graph path")
    parser.add_argument("--baseline-rev", default=BASELINE_REV, help="git revision of today")
    args = parser.parse_args()
    scifact = require_data("scifact")
    notes = require_data("corpus", "notes")
    models = args.models_dir or Path(tempfile.mkdtemp(prefix="footnotes-bench-models-"))
    old_mod = baseline_module(args.baseline_rev)
    arches = args.arch.split(",") if args.arch else machine_arches()

    paths: dict[str, dict[str, Any]] = {}
    for arch in arches:
        today = models / "today"
        paths[arch] = {
            "today": load_with_arch(
                arch, old_mod.load_embedder, backend="onnx-int8", models_dir=today
            ),
            "new": load_with_arch(arch, load_new, models=models / "new", fuse=False),
        }
        paths[arch]["new, intra-op threads"] = intra_op_variant(paths[arch]["new"])
        if not args.no_fused:
            fused = load_with_arch(arch, load_new, models=models / "new-fused", fuse=True)
            paths[arch]["new, fused"] = fused
        for label, emb in paths[arch].items():
            made = "made" if emb.exported else "reused"
            print(f"{arch} {label}: {emb.model_id}, export {made} in {emb.path}")
    print(
        f"ONNX threads: today {old_mod.compute_threads()} (spinning), "
        f"new {onnx_runner.physical_cores()} single-threaded runs at once (no spinning)\n"
    )

    docs = read_jsonl(scifact / "corpus.jsonl")
    sets = {
        "notes": note_passages(notes, args.passages),
        "scifact": scifact_passages(scifact / "corpus.jsonl", args.passages),
        "whole abstracts": [  # uncut, most past the 256-token limit: no padding to save
            f"{d['title']} {d['text']}" for _, d in zip(range(args.passages), docs, strict=False)
        ],
    }
    tokenizer = next(iter(paths.values()))["new"].tokenizer

    for name, texts in sets.items():
        tokens = [len(e.ids) for e in tokenizer.encode_batch(texts)]
        print(
            f"Speed, {name}: {len(texts)} passages, word pieces mean {np.mean(tokens):.0f} "
            f"(min {min(tokens)}, max {max(tokens)}), batch 32, {args.repeats} interleaved "
            f"rounds; load average before: {os.getloadavg()[0]:.1f}"
        )
        rows = compare_speed(paths, texts, args.repeats)
        headers = ["int8 arch, path", "passages/s", "vs today (min-max)", "CPU ms/passage"]
        print_table([*headers, "CPU today/this"], rows)
        print(f"load average after: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        for arch, variants in paths.items():
            today = variants["today"].encode(texts)
            for label, emb in list(variants.items())[1:]:
                cos = np.sum(today * emb.encode(texts), axis=1)
                print(f"cosine {arch} {label} to today: min {cos.min():.4f}, mean {cos.mean():.4f}")
        print()

    if args.speed_only:
        print(f"peak RSS: {peak_rss_mb():.0f} MiB")
        return
    doc_ids, doc_texts, queries, qrels = load_scifact(scifact, args.limit)
    scope = "subset (--limit)" if args.limit else "full"
    print(f"SciFact dev, {scope}: {len(queries)} queries over {len(doc_ids)} docs")
    rows = []
    for arch, variants in paths.items():
        got = {}
        for label, emb in variants.items():
            if label not in ("today", "new"):
                continue  # the fused graph is here for its speed; its vectors are as close
            got[label] = retrieval_quality(emb, doc_ids, doc_texts, queries, qrels)
            ndcg, recall, docs_s = got[label]
            rows.append([f"{arch} {label}", f"{ndcg:.4f}", f"{recall:.4f}", f"{docs_s:.1f}"])
        for label in list(got)[1:]:
            diff = got[label][0] - got["today"][0]
            rows.append([f"{arch} {label} - today", f"{diff:+.4f}", "", ""])
    print_table(["int8 path", "nDCG@10", "Recall@100", "docs/s"], rows)
    print("budget: nDCG@10 within 0.005 of today's")
    print(f"peak RSS: {peak_rss_mb():.0f} MiB")


if __name__ == "__main__":
    main()
