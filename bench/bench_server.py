"""Server mode (``--chroma-url``) against the embedded store, over the same index, in one run.

Starts a real Chroma server (``chroma run``) on a free port in a temporary folder, copies an
existing index's vectors into the collection Footnotes uses for a copy of that data directory
in server mode (the manifest copied, the models linked, ``chroma_url`` set), then measures both
stores side by side with real questions from the shared data:

- the first search in a fresh process: ``footnotes search`` as a subprocess, wall time and its
  peak RSS (the server pays reading every vector over HTTP, the embedded store reads
  ``vectors.npz``);
- in-process: opening the store plus the first dense search, then the dense search's latency
  (p50/p95, the query embedding included) and the whole hybrid ``Engine.search``;
- recall@10 and top 1 of server mode's dense results against the embedded exact search (equal
  if server mode is exact too), and whether the hybrid top k is the same passages;
- the copy's speed, the server's own HNSW recall and the server's peak RSS.

The server and the copy are removed at the end (``--keep`` leaves the copy).

    .venv/bin/python bench/bench_server.py [--data-dir /tmp/fn-corpus3] [--queries 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from _common import peak_rss_mb, print_table
from bench_dense import percentile, questions

from app.core.engine import Engine
from app.core.errors import StoreError
from app.core.index.namespace import data_dir_namespace
from app.core.index.store import check_server, collection_name

COPY_BATCH = 4096
T = TypeVar("T")


def timed(fn: Callable[..., T], *args: Any) -> tuple[T, float]:
    """fn(*args) and the seconds it took."""
    started = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - started


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(path: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """``chroma run`` in the background; returns once its heartbeat answers."""
    chroma = Path(sys.executable).with_name("chroma")
    cmd = [str(chroma), "run", "--path", str(path), "--port", str(port)]
    print(f"server: {' '.join(cmd)}")
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://localhost:{port}"
    deadline = time.monotonic() + 90
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"chroma run exited ({proc.returncode}):\n{log.read_text()[-2000:]}")
        try:
            check_server(url, timeout=2)
            return proc
        except StoreError:
            if time.monotonic() > deadline:
                stop_server(proc)
                raise SystemExit(f"chroma run gave no answer in 90 s:\n{log.read_text()}") from None
            time.sleep(0.25)


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def server_peak_rss_mb(pid: int) -> float | None:
    """VmHWM of a running process (Linux), in MiB."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


def copy_data_dir(src: Path, dst: Path) -> None:
    """The manifest (a consistent snapshot), settings and calibration copied, models linked:
    what server mode keeps locally. No ``chroma/`` and no ``vectors.npz``."""
    dst.mkdir(parents=True)
    with (
        contextlib.closing(sqlite3.connect(src / "manifest.sqlite3")) as a,
        contextlib.closing(sqlite3.connect(dst / "manifest.sqlite3")) as b,
    ):
        a.backup(b)
    for name in ("settings.json", "support_calibration.json"):
        if (src / name).exists():
            shutil.copy2(src / name, dst / name)
    if (src / "models").exists():
        (dst / "models").symlink_to((src / "models").resolve(), target_is_directory=True)


def copy_vectors(local: Engine, remote: Engine) -> tuple[int, float]:
    """Every vector of the embedded store into the server collection; (count, seconds)."""
    lstore, rstore = local.store(), remote.store()
    ids = sorted(lstore.all_ids())
    started = time.perf_counter()
    for i in range(0, len(ids), COPY_BATCH):
        found = lstore.vectors(ids[i : i + COPY_BATCH])
        part = list(found)
        rstore.add(part, np.array([found[x] for x in part], np.float32))
    seconds = time.perf_counter() - started
    if rstore.count() != len(ids):
        raise SystemExit(f"copied {len(ids)} vectors but the server holds {rstore.count()}")
    return len(ids), seconds


# Runs the command and reports its own wall time and peak RSS. A child forked straight from
# this (large) process would start with this process's RSS as its high-water mark; one forked
# from this small trampoline starts near zero.
TRAMPOLINE = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
with open(sys.argv[1], "wb") as out, open(sys.argv[2], "wb") as err:
    code = subprocess.call(sys.argv[3:], stdout=out, stderr=err)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"wall": time.perf_counter() - t, "code": code, "rss": rss}))
"""


def cli_search(
    data_dir: Path, query: str, k: int, url: str | None
) -> tuple[float, float, dict[str, Any]]:
    """``footnotes search`` in a fresh process: (wall s, peak RSS MiB, its JSON)."""
    exe = Path(sys.executable).with_name("footnotes")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "app"]
    cmd += ["--data-dir", str(data_dir)] + (["--chroma-url", url] if url else [])
    cmd += ["search", query, "-k", str(k), "--json"]
    with tempfile.TemporaryDirectory() as tmp:
        out, err = Path(tmp, "out"), Path(tmp, "err")
        run = subprocess.run(
            [sys.executable, "-c", TRAMPOLINE, str(out), str(err), *cmd],
            capture_output=True,
            check=True,
        )
        got = json.loads(run.stdout)
        if got["code"] != 0:
            raise SystemExit(f"{' '.join(cmd)} exited {got['code']}:\n{err.read_text()[-2000:]}")
        return got["wall"], got["rss"], json.loads(out.read_text())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/fn-corpus3"))
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3, help="fresh-process searches per mode")
    ap.add_argument("--keep", action="store_true", help="leave the temporary folder")
    args = ap.parse_args()
    src = args.data_dir.resolve()
    if not (src / "manifest.sqlite3").exists():
        print(f"SKIP: {src} holds no index; make one with `footnotes --data-dir DIR index ...`.")
        return 0

    qs = questions(args.queries)
    tmp = Path(tempfile.mkdtemp(prefix="fn-bench-server-"))
    port = free_port()
    url = f"http://localhost:{port}"
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    server = start_server(tmp / "server", port, tmp / "server.log")
    try:
        copy = tmp / "data"
        copy_data_dir(src, copy)
        local = Engine(src)
        remote = Engine(copy, chroma_url=url, embedder=local.embedder())
        n_vectors, copy_s = copy_vectors(local, remote)
        rstore = remote.store()
        name = collection_name(rstore.model_id, rstore.dim, data_dir_namespace(copy))
        assert rstore.name == name, (rstore.name, name)
        batch = rstore._batch  # the page size server mode reads the vectors with
        remote.close()
        local.close()
        print(f"copied {n_vectors:,} vectors into {name} in {copy_s:.1f} s")

        # (1) the first search in a fresh process, alternating the modes.
        fresh: dict[str, list[tuple[float, float]]] = {"embedded": [], "server": []}
        same_cli = []
        for r in range(args.runs):
            q = qs[r]
            e = cli_search(src, q, args.k, None)
            s = cli_search(copy, q, args.k, url)
            fresh["embedded"].append(e[:2])
            fresh["server"].append(s[:2])
            same_cli.append(
                [h["chunk_id"] for h in e[2]["hits"]] == [h["chunk_id"] for h in s[2]["hits"]]
            )
        print(
            f"fresh process: footnotes --data-dir DIR [--chroma-url {url}] search Q "
            f"-k {args.k} --json   ({args.runs} runs each, alternating)"
        )
        for mode, runs in fresh.items():
            print(f"  {mode:8s} wall s: " + ", ".join(f"{w:.2f}" for w, _ in runs))

        # (2) in-process: open + first dense search, then latency over the questions.
        local = Engine(src)
        embedder = local.embedder()
        embedder.encode(qs[:4])  # warm up
        remote = Engine(copy, chroma_url=url, embedder=embedder)
        vec0 = embedder.encode(["warm"])[0]
        t0 = time.perf_counter()
        lstore = local.store()
        t_open_l = time.perf_counter() - t0
        lstore.nearest(vec0, args.k)
        first_l = time.perf_counter() - t0
        t0 = time.perf_counter()
        rstore = remote.store()
        t_open_r = time.perf_counter() - t0
        rstore.nearest(vec0, args.k)
        first_r = time.perf_counter() - t0

        # Each pair is timed in alternating order, so neither store always goes second.
        exact, served, hnsw = [], [], []
        exact_hits, served_hits = [], []
        t_l, t_r, sims = [], [], []
        for n, q in enumerate(qs):
            vec, t_embed = timed(embedder.encode, [q])
            vec = vec[0]
            if n % 2:
                sv, dt_r = timed(rstore.nearest, vec, args.k)
                ex, dt_l = timed(lstore.nearest, vec, args.k)
            else:
                ex, dt_l = timed(lstore.nearest, vec, args.k)
                sv, dt_r = timed(rstore.nearest, vec, args.k)
            t_l.append(t_embed + dt_l)
            t_r.append(t_embed + dt_r)
            exact_hits.append(ex)
            served_hits.append(sv)
            exact.append([d.text_hash for d in ex])
            served.append([d.text_hash for d in sv])
            hnsw.append([d.text_hash for d in rstore.query(vec, args.k)])
            sims += [abs(a.similarity - b.similarity) for a, b in zip(ex, sv, strict=False)]

        h_l, h_r, same_hybrid = [], [], []
        for n, q in enumerate(qs):
            if n % 2:
                b, dt_r = timed(remote.search, q, args.k)
                a, dt_l = timed(local.search, q, args.k)
            else:
                a, dt_l = timed(local.search, q, args.k)
                b, dt_r = timed(remote.search, q, args.k)
            h_l.append(dt_l)
            h_r.append(dt_r)
            same_hybrid.append([h.chunk_id for h in a.hits] == [h.chunk_id for h in b.hits])

        def recall(found: list[list[str]]) -> float:
            pairs = zip(found, exact, strict=True)
            return float(np.mean([len(set(f) & set(e)) / len(e) for f, e in pairs if e]))

        def top1(found: list[list[str]]) -> float:
            pairs = zip(found, exact, strict=True)
            return float(np.mean([bool(f) and f[0] == e[0] for f, e in pairs if e]))

        # A different top 1 at the same similarity (within float noise) is a tie, not a miss.
        ties = sum(
            bool(e)
            and bool(s)
            and e[0].text_hash != s[0].text_hash
            and abs(e[0].similarity - s[0].similarity) < 1e-6
            for e, s in zip(exact_hits, served_hits, strict=True)
        )

        def median(values: list[float]) -> float:
            return float(np.median(values))

        fe = [w for w, _ in fresh["embedded"]]
        fs = [w for w, _ in fresh["server"]]
        rows: list[list[object]] = []

        def row(label: str, emb: float, srv: float) -> None:
            rows.append([label, emb, srv, f"{srv / emb:.2f}x" if emb else "-"])

        row("first search, fresh process: wall s (median)", median(fe), median(fs))
        row(
            "  its peak RSS, MiB (max)",
            max(m for _, m in fresh["embedded"]),
            max(m for _, m in fresh["server"]),
        )
        row("in-process: open the store, s", t_open_l, t_open_r)
        row("in-process: open + first dense search, s", first_l, first_r)
        row("dense search p50 ms (embedding incl.)", percentile(t_l, 50), percentile(t_r, 50))
        row("dense search p95 ms (embedding incl.)", percentile(t_l, 95), percentile(t_r, 95))
        row("hybrid Engine.search p50 ms", percentile(h_l, 50), percentile(h_r, 50))
        row("hybrid Engine.search p95 ms", percentile(h_l, 95), percentile(h_r, 95))
        row("dense recall@10 vs embedded exact", recall(exact), recall(served))
        row("dense top 1 = embedded nearest", top1(exact), top1(served))

        print(
            f"\nindex: {src}  vectors: {n_vectors:,}  queries: {len(qs)}  k: {args.k}  "
            f"server: chroma run, {url}, read in pages of {batch}"
        )
        print_table(["", "embedded", "server", "server/embedded"], rows)
        print(
            f"\nfresh-process top {args.k} identical in both modes: {sum(same_cli)}/{len(same_cli)}"
            f"; hybrid Engine.search top {args.k} identical: {sum(same_hybrid)}/{len(same_hybrid)}"
            f"; largest similarity difference: {max(sims, default=0.0):.2e}; server top 1 "
            f"differing only by a tie (same similarity within 1e-6): {ties}/{len(qs)}"
        )
        print(
            f"server's own HNSW (store.query): recall@10 vs exact {recall(hnsw):.3f}, "
            f"top 1 = nearest {top1(hnsw):.3f}  (used only beyond EXACT_LIMIT vectors)"
        )
        print(
            f"copying {n_vectors:,} vectors to the server: {copy_s:.1f} s "
            f"({n_vectors / copy_s:,.0f} vectors/s, batches of {COPY_BATCH})"
        )
        srv_rss = server_peak_rss_mb(server.pid)
        if srv_rss is not None:
            print(f"chroma server peak RSS: {srv_rss:.0f} MiB")
        print(f"this process's peak RSS (both engines, one embedder): {peak_rss_mb():.0f} MiB")
        print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        remote.close()
        local.close()
    finally:
        stop_server(server)
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
