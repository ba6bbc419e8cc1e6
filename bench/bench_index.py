"""End-to-end indexing speed against raw encoding of the same chunk texts, in one run.

Prints: indexing chunks/s of ../shared/data/corpus (or a sub-folder), raw encoding chunks/s of
a sample of the same chunk texts with the same model, their ratio (target ≥ 0.85); the time
until 90% of the files are searchable by their words against the whole index time (target
≤ 0.15: files are written before their vectors are computed); the unchanged-corpus rescan
time (in a fresh process: no model, no store opened); and peak RSS (this process and the
parser; target ≤ 1.5 GB).

With ``--langchain`` the same passages go through the LangChain indexing API (``index()`` with
a record manager, into Chroma) with the same embedding model in the same run: chunks/s and the
ratio ours/LangChain. LangChain is handed our passages already cut (no parsing, no chunking)
and an in-memory record manager, so its figure is an upper bound; ours is given end to end
(parsing, chunking, words and vectors, then the support flag's calibration) and until the
vectors are complete. ``--arch`` forces an int8
family (``FOOTNOTES_INT8_ARCH``: a VNNI machine runs the AVX2 export too, but not natively as
an AVX2-only CPU would); the CPU path measured is printed first.

    .venv/bin/python bench/bench_index.py [--folder corpus/notes] [--sample 2000]
        [--langchain] [--arch avx2]       # --langchain: pip install -r bench/requirements.txt
"""

from __future__ import annotations

import argparse
import os
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
    ap.add_argument("--langchain", action="store_true", help="the LangChain indexing API too")
    ap.add_argument("--arch", help="force this int8 family (avx512_vnni, avx2, arm64)")
    args = ap.parse_args()
    if args.arch:
        os.environ["FOOTNOTES_INT8_ARCH"] = args.arch
    from app.core.index.int8_export import quantization_arch

    print(f"CPU path: int8 {quantization_arch()}" + (" (forced)" if args.arch else " (native)"))

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

        lc_count, lc_s = langchain_index(engine, data_dir) if args.langchain else (0, float("nan"))
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
        lc_rate = lc_count / lc_s
        # after the vectors, the support flag measures the index (``probes``): not indexing
        vectors_rate = first.chunks_embedded / timeline.embedded_at
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
                [
                    "indexing, chunks embedded/s until the vectors are complete",
                    round(vectors_rate, 1),
                ],
                [f"raw encoding of {len(sample)} of the same texts, chunks/s", round(raw_rate, 1)],
                ["ratio indexing / raw encoding (target >= 0.85)", round(index_rate / raw_rate, 3)],
                *(
                    [
                        ["LangChain indexing API, same passages, chunks/s", round(lc_rate, 1)],
                        ["ratio ours (end to end) / LangChain", round(index_rate / lc_rate, 3)],
                        [
                            "ratio ours (until the vectors are complete) / LangChain",
                            round(vectors_rate / lc_rate, 3),
                        ],
                    ]
                    if args.langchain
                    else []
                ),
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


def langchain_index(engine: Engine, data_dir: Path) -> tuple[int, float]:
    """Passages, and seconds for the LangChain indexing API to index them: the engine's
    passages, one Document per distinct text with its file as the source, into a new Chroma
    collection, embedded with the engine's own model."""
    import chromadb
    from langchain_chroma import Chroma
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.indexing import InMemoryRecordManager, index

    embedder = engine.embedder()

    class Same(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return embedder.encode(texts).tolist()

        def embed_query(self, text: str) -> list[float]:
            return embedder.encode([text])[0].tolist()

    rows = engine.manifest.conn.execute(
        "SELECT f.path, c.text FROM chunks c JOIN files f ON f.id = c.file_id"
    ).fetchall()
    seen: set[str] = set()
    docs = []
    for path, text in rows:
        if text not in seen:
            seen.add(text)
            docs.append(Document(page_content=text, metadata={"source": path}))
    client = chromadb.PersistentClient(path=str(data_dir / "langchain-chroma"))
    store = Chroma(collection_name="bench", embedding_function=Same(), client=client)
    records = InMemoryRecordManager(namespace="chroma/bench")
    records.create_schema()
    t0 = time.perf_counter()
    done = index(docs, records, store, cleanup="incremental", source_id_key="source")
    took = time.perf_counter() - t0
    print(f"LangChain indexing API: {done}")
    return len(docs), took


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
