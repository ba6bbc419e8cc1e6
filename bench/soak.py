"""Soak test: a watched tree of small files changed in bursts while questions are asked.

Creates ``--files`` (default 20,000) short Markdown and text notes in nested folders, starts
the core ``Watcher`` over them (int8 ONNX embedder, as the app uses; ``--backend torch``),
waits for the start-up sync, then for ``--seconds`` applies bursts of random operations
(create, append, rewrite, atomic save, rename, move across folders, move over an existing
file, delete, folder create, rename and delete) while a second Engine over the same data dir
searches every ~0.5 s, as the CLI would beside a running ``watch``. Once the watcher is idle
it is stopped and its index is compared with a fresh index of the final tree (same embedder;
vectors of texts seen before come from an in-memory cache, so nothing is embedded twice):
per file (status, content hash, [(page, start, end, text_hash)]), the referenced vector ids,
``Manifest.check()``, and every referenced text hash having a vector (and no orphans).
Exit status 1 when that check fails.

    nice -n 10 .venv/bin/python bench/soak.py [--files 2000] [--seconds 60] [--seed 1]
        [--backend onnx-int8|torch] [--models-dir DIR] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import peak_rss_mb

from app.core.engine import Engine
from app.core.index.embedding import load_embedder
from app.core.index.indexer import Embedder, Progress
from app.core.index.manifest import Manifest
from app.core.watch.change_queue import QUIET_S
from app.core.watch.watcher import Watcher, WatchStatus

_ADJ = (
    "amber brisk calm dusty eager faint gentle hollow icy jagged keen lucid mellow narrow odd "
    "pale quiet rusty silent tidy urban vivid warm young bitter cozy damp early fragile grand"
)
ADJ = _ADJ.split()
_NOUN = (
    "harbor ledger lantern orchard invoice kettle meadow pipeline quarry recipe satchel tractor "
    "umbrella valley warehouse window garden bridge cellar compass engine furnace glacier hammer "
    "island journal ladder mirror notebook pottery river saddle tunnel violin wagon anchor "
    "barrel candle"
)
NOUN = _NOUN.split()
_VERB = (
    "repairs inspects delivers paints measures borrows sketches follows weighs cleans counts "
    "moves orders signs tests records guards lifts sorts builds"
)
VERB = _VERB.split()
FOLDER_WORDS = ["projects", "archive", "letters", "recipes", "travel", "research", "admin"]


def sentence(rng: random.Random) -> str:
    a, b = rng.sample(ADJ, 2)
    n1, n2, n3 = rng.sample(NOUN, 3)
    return (
        f"The {a} {n1} {rng.choice(VERB)} the {n2} near the {b} {n3} on day {rng.randint(1, 9999)}."
    )


def paragraph(rng: random.Random) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(2, 4)))


def question(rng: random.Random) -> str:
    return f"Which {rng.choice(NOUN)} does the {rng.choice(ADJ)} {rng.choice(NOUN)} " + (
        f"{rng.choice(VERB)[:-1]}?"
    )


class SoakTree:
    """A folder tree of small notes, and the random operations applied to it."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root = str(root)
        self.rng = rng
        self.files: list[str] = []
        self.folders: list[str] = []  # below the root
        self.ops: Counter[str] = Counter()
        self._seq = 0
        self._texts: list[str] = []
        os.makedirs(self.root)

    @property
    def ops_total(self) -> int:
        return sum(self.ops.values())

    def op_summary(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in self.ops.most_common())

    def populate(self, n: int) -> None:
        for word in FOLDER_WORDS:
            top = self._mkdir(self.root, word)
            for _ in range(self.rng.randint(0, 3)):
                sub = self._mkdir(top, self.rng.choice(NOUN))
                for _ in range(self.rng.randint(0, 2)):
                    self._mkdir(sub, self.rng.choice(ADJ))
        for _ in range(n):
            self._new_file(self.rng.choice([self.root, *self.folders]))

    def count_files(self) -> int:
        return sum(len(files) for _, _, files in os.walk(self.root))

    def random_op(self) -> None:
        ops: dict[str, tuple[float, Callable[[], None]]] = {
            "create": (18, self._create),
            "append": (12, self._append),
            "rewrite": (10, self._rewrite),
            "atomic save": (8, self._atomic_save),
            "rename": (12, self._rename),
            "move": (12, self._move),
            "move over": (4, self._move_over),
            "delete": (12, self._delete),
            "folder create": (1.5, self._folder_create),
            "folder rename": (1.2, self._folder_rename),
            "folder delete": (0.5, self._folder_delete),
        }
        names = list(ops)
        name = self.rng.choices(names, weights=[ops[k][0] for k in names])[0]
        if len(self.files) < 10 or (name == "folder delete" and len(self.folders) < 8):
            name = "create"
        ops[name][1]()
        self.ops[name] += 1

    # -- helpers ----------------------------------------------------------------------------
    def _name(self, stem: str = "note") -> str:
        self._seq += 1
        return f"{stem}-{self._seq:06d}"

    def _mkdir(self, parent: str, word: str) -> str:
        path = os.path.join(parent, self._name(word))
        os.mkdir(path)
        self.folders.append(path)
        return path

    def _content(self, md: bool) -> str:
        if self._texts and self.rng.random() < 0.03:  # a few copies, as real folders have
            body = self.rng.choice(self._texts)
        else:
            body = paragraph(self.rng)
            if len(self._texts) < 5000:
                self._texts.append(body)
        if md:
            return f"# {self.rng.choice(ADJ).title()} {self.rng.choice(NOUN)}\n\n{body}\n"
        return body + "\n"

    def _new_file(self, folder: str) -> str:
        ext = self.rng.choice([".md", ".md", ".txt"])
        path = os.path.join(folder, self._name() + ext)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self._content(ext == ".md"))
        self.files.append(path)
        return path

    def _take(self) -> str:
        i = self.rng.randrange(len(self.files))
        self.files[i], self.files[-1] = self.files[-1], self.files[i]
        return self.files.pop()

    def _any_folder(self) -> str:
        return self.rng.choice([self.root, *self.folders])

    def _subtree(self, folder: str) -> tuple[list[str], list[str]]:
        prefix = folder + os.sep
        return [f for f in self.files if f.startswith(prefix)], [
            d for d in self.folders if d == folder or d.startswith(prefix)
        ]

    # -- operations -------------------------------------------------------------------------
    def _create(self) -> None:
        self._new_file(self._any_folder())

    def _append(self) -> None:
        path = self.rng.choice(self.files)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("\n" + paragraph(self.rng) + "\n")

    def _rewrite(self) -> None:
        path = self.rng.choice(self.files)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self._content(path.endswith(".md")))

    def _atomic_save(self) -> None:
        """Write a hidden temporary file and rename it over the note, as editors do."""
        path = self.rng.choice(self.files)
        tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".swp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(self._content(path.endswith(".md")))
        os.replace(tmp, path)

    def _rename(self) -> None:
        old = self._take()
        new = os.path.join(os.path.dirname(old), self._name("renamed") + os.path.splitext(old)[1])
        os.rename(old, new)
        self.files.append(new)

    def _move(self) -> None:
        old = self._take()
        new = os.path.join(self._any_folder(), self._name("moved") + os.path.splitext(old)[1])
        os.rename(old, new)
        self.files.append(new)

    def _move_over(self) -> None:
        """Move a note over another existing one (the target's content is replaced)."""
        old = self._take()
        target = self.rng.choice(self.files)
        os.replace(old, target)

    def _delete(self) -> None:
        os.unlink(self._take())

    def _folder_create(self) -> None:
        folder = self._mkdir(self._any_folder(), self.rng.choice(FOLDER_WORDS))
        for _ in range(self.rng.randint(0, 6)):
            self._new_file(folder)

    def _folder_rename(self) -> None:
        old = self.rng.choice(self.folders)
        new = os.path.join(os.path.dirname(old), self._name(os.path.basename(old).split("-")[0]))
        os.rename(old, new)
        n = len(old)
        self.files = [new + f[n:] if f.startswith(old + os.sep) else f for f in self.files]
        self.folders = [
            new + d[n:] if d == old or d.startswith(old + os.sep) else d for d in self.folders
        ]

    def _folder_delete(self) -> None:
        """Delete the smallest of three random folders, with everything in it."""
        sizes = []
        for folder in self.rng.sample(self.folders, 3):
            files, dirs = self._subtree(folder)
            sizes.append((len(files), folder, files, dirs))
        _, folder, files, dirs = min(sizes)
        shutil.rmtree(folder)
        gone_f, gone_d = set(files), set(dirs)
        self.files = [f for f in self.files if f not in gone_f]
        self.folders = [d for d in self.folders if d not in gone_d]


FileKey = tuple[str, str | None, tuple[tuple[int | None, int, int, str], ...], str | None]


class CachingEmbedder:
    """Wraps an embedder; remembers each text's vector so the fresh index embeds nothing twice."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id, self.dim = inner.model_id, inner.dim
        self.max_tokens: int = getattr(inner, "max_tokens", 256)
        self.cache: dict[str, np.ndarray] = {}
        self.encoded = 0

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if todo:
            self.encoded += len(todo)
            self.cache.update(zip(todo, self.inner.encode(todo, batch_size), strict=True))
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, self.dim))


class CountingWatcher(Watcher):
    """The core watcher, counting the file-system events it receives."""

    events = 0

    def _on_event(self, event: Any) -> None:
        self.events += 1
        super()._on_event(event)


class Searcher(threading.Thread):
    """Asks a question through a second engine every ``interval`` s until stopped."""

    def __init__(self, engine: Engine, rng: random.Random, interval: float = 0.5) -> None:
        super().__init__(name="soak-searcher", daemon=True)
        self.engine, self.rng, self.interval = engine, rng, interval
        self.latencies: list[float] = []
        self.empty = 0
        self.errors: list[str] = []
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.wait(self.interval):
            started = time.perf_counter()
            try:
                result = self.engine.search(question(self.rng), k=8)
            except Exception as exc:  # counted and shown; the soak goes on
                self.errors.append(f"{type(exc).__name__}: {exc}")
                continue
            self.latencies.append(time.perf_counter() - started)
            self.empty += not result.hits


def snapshot(manifest: Manifest) -> dict[str, FileKey]:
    """path → (status, content hash, chunk spans, failure reason) for every file."""
    rows = manifest.conn.execute(
        "SELECT f.path, f.status, f.hash, c.page, c.start, c.end, c.text_hash, f.error "
        "FROM files f "
        "LEFT JOIN chunks c ON c.file_id = f.id ORDER BY f.path, c.page, c.start"
    ).fetchall()
    spans: dict[str, list[tuple[int | None, int, int, str]]] = {}
    heads: dict[str, tuple[str, str | None, str | None]] = {}
    for path, status, digest, page, start, end, th, error in rows:
        heads[path] = (status, digest, error)
        spans.setdefault(path, [])
        if th is not None:
            spans[path].append((page, start, end, th))
    return {p: (*heads[p][:2], tuple(spans[p]), heads[p][2]) for p in heads}


def compare(watched: dict[str, FileKey], fresh: dict[str, FileKey]) -> list[str]:
    """Differences between the watched index and the fresh one, as lines (at most 10 each)."""
    out: list[str] = []
    groups = [
        ("missing from the watched index", sorted(fresh.keys() - watched.keys())),
        ("only in the watched index", sorted(watched.keys() - fresh.keys())),
        (
            "different",
            sorted(p for p in watched.keys() & fresh.keys() if watched[p][:3] != fresh[p][:3]),
        ),
    ]
    for label, paths in groups:
        if paths:
            out.append(f"{len(paths)} files {label}:")
            for p in paths[:10]:
                out.append(f"  {p}\n    watched={watched.get(p)}\n    fresh  ={fresh.get(p)}")
    return out


class MemorySampler(threading.Thread):
    """Peak resident memory (VmHWM) of each child process, read from /proc every second."""

    def __init__(self) -> None:
        super().__init__(name="soak-memory", daemon=True)
        self.peaks: dict[int, float] = {}  # pid → MiB
        self.kinds: dict[int, str] = {}
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.wait(1.0):
            self.sample()

    def sample(self) -> None:
        me = str(os.getpid())
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", encoding="ascii") as fh:
                    if fh.read().rsplit(")", 1)[1].split()[1] != me:
                        continue
                with open(f"/proc/{entry.name}/status", encoding="ascii") as fh:
                    hwm = next(ln for ln in fh if ln.startswith("VmHWM:"))
            except (OSError, StopIteration, IndexError):
                continue
            pid, mb = int(entry.name), int(hwm.split()[1]) / 1024
            self.peaks[pid] = max(mb, self.peaks.get(pid, 0.0))
            if pid not in self.kinds:
                self.kinds[pid] = _kind(pid)

    def summary(self) -> str:
        if not self.peaks:
            return "none seen"
        kinds = Counter(self.kinds.values())
        return f"{max(self.peaks.values()):.0f} MiB max (VmHWM) over " + ", ".join(
            f"{n} {kind}" for kind, n in kinds.items()
        )


def _kind(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmd = fh.read().decode(errors="replace")
    except OSError:
        return "other"
    if "resource_tracker" in cmd:
        return "resource tracker"
    return "parser worker" if "spawn_main" in cmd else "other"


def wait_settled(watcher: CountingWatcher, timeout: float) -> bool:
    """Idle, and still idle after late events had time to arrive and be taken."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if watcher.wait_idle(max(0.0, deadline - time.monotonic())):
            before = (watcher.stats.batches, watcher.events)
            time.sleep(QUIET_S * 4)
            if watcher.wait_idle(0) and before == (watcher.stats.batches, watcher.events):
                return True
        elif not watcher.running:
            return False
    return False


def start_watching(engine: Engine, notices: list[str]) -> tuple[CountingWatcher, float]:
    """Start the watcher, wait for its start-up sync (progress every minute); its seconds."""

    def on_status(s: WatchStatus) -> None:  # shown, not failed on: the final check decides
        if s.state in ("error", "polling", "missing"):
            notices.append(f"{s.state}: {s.message}")
            print(f"watcher {s.state}: {s.message}", flush=True)

    indexed = [0]

    def on_progress(p: Progress) -> None:
        indexed[0] += p.event == "indexed"

    watcher = CountingWatcher(engine, on_status=on_status, on_progress=on_progress)
    started = time.perf_counter()
    watcher.start()
    while not watcher.wait_idle(60) and watcher.running:
        print(f"  start-up sync: {indexed[0]} files after {time.perf_counter() - started:.0f} s")
        sys.stdout.flush()
    return watcher, time.perf_counter() - started


def check_store(engine: Engine, problems: list[str]) -> set[str]:
    """Manifest.check(), referenced texts without a vector, orphan vectors; the referenced."""
    referenced = engine.manifest.all_hashes()
    vector_ids = engine.store().all_ids()
    problems += [f"manifest check: {p}" for p in engine.manifest.check()]
    if referenced - vector_ids:
        problems.append(f"{len(referenced - vector_ids)} referenced texts have no vector")
    if vector_ids - referenced:
        problems.append(f"{len(vector_ids - referenced)} orphan vectors (no chunk uses them)")
    return referenced


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000, help="files in the initial tree")
    parser.add_argument("--seconds", type=float, default=120.0, help="length of the burst phase")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", default="onnx-int8", choices=["onnx-int8", "torch"])
    parser.add_argument("--models-dir", type=Path, help="keep the int8 model export here")
    parser.add_argument("--workdir", type=Path, help="put the tree and data dirs here (kept)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="footnotes-soak-") as tmp:
        root = args.workdir.resolve() if args.workdir else Path(tmp)
        if (root / "tree").exists() or (root / "data").exists():
            raise SystemExit(f"{root} already holds a soak run; give an empty --workdir")
        return soak(args, root)


def soak(args: argparse.Namespace, root: Path) -> int:
    rng = random.Random(args.seed)
    tree = SoakTree(root / "tree", rng)
    tree.populate(args.files)
    print(f"Created {len(tree.files)} files in {len(tree.folders)} folders", flush=True)
    memory = MemorySampler()
    memory.start()
    raw = load_embedder(backend=args.backend, models_dir=args.models_dir or root / "models")
    embedder = CachingEmbedder(raw)
    writer = Engine(root / "data", embedder=embedder)
    reader = Engine(root / "data", embedder=raw)  # like `footnotes search` beside `watch`
    writer.add_folder(tree.root)
    problems: list[str] = []
    notices: list[str] = []
    watcher, sync_s = start_watching(writer, notices)
    sync = watcher.last_sync
    if sync is None or not watcher.running:
        print(f"FAIL: the start-up sync did not finish: {watcher.error}")
        return 1
    print(
        f"Start-up sync: {sync.files_indexed} files, {sync.chunks_embedded} passages embedded "
        f"in {sync_s:.1f} s",
        flush=True,
    )

    st = watcher.stats
    base = st.files_indexed + st.files_removed + st.files_moved, watcher.events
    searcher = Searcher(reader, random.Random(args.seed + 1))
    searcher.start()
    t1 = time.perf_counter()
    while time.perf_counter() - t1 < args.seconds:
        for _ in range(rng.randint(1, 40)):
            tree.random_op()
        time.sleep(rng.choice([0.0, 0.05, 0.2, 0.5, 1.0, 2.0]))
    ops_s = time.perf_counter() - t1
    print(
        f"Applied {tree.ops_total} operations in {ops_s:.1f} s; waiting for the watcher...",
        flush=True,
    )
    if not wait_settled(watcher, 3600):
        problems.append(f"the watcher did not settle: {watcher.error or 'timeout'}")
    handled_s = time.perf_counter() - t1
    searcher.halt.set()
    searcher.join()
    watcher.stop()
    if watcher.error:
        problems.append(f"the watcher stopped with an error: {watcher.error}")
    updates = st.files_indexed + st.files_removed + st.files_moved - base[0]
    events = watcher.events - base[1]
    watched = snapshot(writer.manifest)
    referenced = check_store(writer, problems)
    memory.sample()
    writer.close()
    reader.close()

    t2 = time.perf_counter()
    fresh_engine = Engine(root / "fresh", embedder=embedder)
    before = embedder.encoded
    report = fresh_engine.index([tree.root])
    fresh_s = time.perf_counter() - t2
    fresh = snapshot(fresh_engine.manifest)
    fresh_refs = fresh_engine.manifest.all_hashes()
    fresh_engine.close()
    memory.halt.set()
    problems += compare(watched, fresh)
    if referenced != fresh_refs:
        problems.append(
            f"referenced vector ids differ: {len(referenced - fresh_refs)} only "
            f"watched, {len(fresh_refs - referenced)} only fresh"
        )
    on_disk = tree.count_files()
    if len(fresh) != on_disk:
        problems.append(f"the fresh index has {len(fresh)} files, the tree {on_disk}")

    lat = searcher.latencies
    children_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    figures = [
        ("files at start / end", f"{args.files} / {on_disk}"),
        ("operations applied", f"{tree.ops_total} in {ops_s:.1f} s ({tree.op_summary()})"),
        ("watcher idle after", f"{handled_s:.1f} s from the first operation"),
        ("file-system events handled", f"{events} ({events / handled_s:.1f}/s)"),
        (
            "index updates (indexed+removed+moved)",
            f"{updates} ({updates / handled_s:.1f}/s), {st.batches} batches in all",
        ),
        (
            "searches done / failed / no hit",
            f"{len(lat)} / {len(searcher.errors)} / {searcher.empty}",
        ),
        (
            "search latency median / max",
            f"{statistics.median(lat):.3f} s / {max(lat):.3f} s" if lat else "-",
        ),
        (
            "initial sync",
            f"{sync_s:.1f} s for {sync.files_indexed} files "
            f"({sync.chunks_embedded / sync_s:.1f} passages/s embedded)",
        ),
        (
            "fresh index of final tree",
            f"{fresh_s:.1f} s ({report.files_indexed} files, "
            f"{embedder.encoded - before} texts embedded)",
        ),
        ("watcher errors/notices", f"{len(notices)} (retried; listed below)" if notices else "0"),
        ("peak RSS, this process", f"{peak_rss_mb():.0f} MiB (getrusage self)"),
        (
            "peak RSS, child processes",
            f"{memory.summary()} (getrusage children: {children_mb:.0f} MiB, which "
            "counts the parent's pages at fork, before the worker's exec)",
        ),
    ]
    print()
    for label, value in figures:
        print(f"{label + ':':40} {value}")
    for notice in notices[:10]:
        print(f"watcher {notice}")
    for err in sorted(set(searcher.errors))[:5]:
        print(f"search error: {err}")
    print()
    if problems:
        print("Consistency check: FAIL")
        print("\n".join(problems))
        return 1
    print(f"Consistency check: PASS ({len(watched)} files, {len(referenced)} distinct texts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
