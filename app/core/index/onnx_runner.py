"""The int8 export run on a bare ONNX Runtime session, without sentence-transformers.

``OnnxEmbedder`` tokenises with the model's own fast tokenizer, runs each text alone (so its
vector never depends on what it is encoded with: ``runs_of``), pools and normalises in numpy;
its runs are single-threaded, one per physical core at once, and idle threads sleep
(``session_options``). ``onnx_embedder`` builds one from an export's marker.

onnxruntime and tokenizers are imported inside ``onnx_embedder`` and ``session_options`` only.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.core.errors import EmbeddingError
from app.core.text import well_formed

# Each text runs alone. Activations are quantised per run (dynamic int8), so a text run
# beside others got a vector that depended on them (up to 0.011 cosine distance): an index
# rebuilt in pieces then ranked differently from one built at once. Alone, a text has one
# vector whatever it is encoded with, at about the same speed (passages of a few hundred
# tokens ran as fast one to a run as 256 padded tokens a run: bench/bench_index.py).


def physical_cores() -> int:
    """Physical cores among the CPUs this process may use (SMT siblings count once)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return max(1, (os.cpu_count() or 2) // 2)
    cores = set()
    for cpu in cpus:
        topo = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            package = (topo / "physical_package_id").read_text().strip()
            cores.add((package, (topo / "core_id").read_text().strip()))
        except OSError:
            cores.add(("cpu", str(cpu)))
    return max(1, len(cores))


def runs_of(lengths: Sequence[int]) -> list[list[int]]:
    """The runs to make: each text alone, longest first (the longest start first on the
    workers, so they finish together)."""
    return [[i] for i in sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))]


@dataclass
class OnnxEmbedder:
    """The int8 export on a bare ONNX Runtime session: tokenizer, model, pooling in numpy.

    Each run is single-threaded and ``workers`` runs go at once: no thread of a run waits
    for another at every operator, which on shared cores costs more than it parallelises.
    The session is thread-safe, so a question also runs beside an indexing batch instead of
    waiting for it; only the tokenizer call is serialised.
    """

    session: Any
    tokenizer: Any  # tokenizers.Tokenizer, truncating at max_tokens, no padding
    model_id: str
    dim: int
    max_tokens: int
    path: Path
    pooling: str  # "mean" or "cls"
    normalize: bool
    lower_case: bool
    workers: int = 1  # runs at once, each on its own thread (the session runs them in parallel)
    backend: str = "onnx-int8"
    exported: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Vectors in input order, each text run alone (``batch_size`` is the Embedder
        protocol's: it does not change a vector here)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        batch = [well_formed(t) for t in texts]  # the tokenizer rejects lone surrogates
        batch = [t.lower() for t in batch] if self.lower_case else batch
        with self._lock:
            ids = [enc.ids for enc in self.tokenizer.encode_batch(batch)]
        runs = runs_of([len(x) for x in ids])

        def run(idx: list[int]) -> None:
            out[idx] = self._run([ids[i] for i in idx])

        if self.workers > 1 and len(runs) > 1:
            with ThreadPoolExecutor(min(self.workers, len(runs))) as pool:
                list(pool.map(run, runs))
        else:
            for idx in runs:
                run(idx)
        return out

    def _run(self, rows: list[list[int]]) -> np.ndarray:
        width = max(len(r) for r in rows)
        input_ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for r, row in enumerate(rows):
            input_ids[r, : len(row)] = row
            mask[r, : len(row)] = 1
        feeds = {
            name: input_ids
            if name == "input_ids"
            else mask
            if name == "attention_mask"
            else np.zeros_like(input_ids)  # token_type_ids: one segment
            for name in (i.name for i in self.session.get_inputs())
        }
        hidden = self.session.run(None, feeds)[0].astype(np.float32, copy=False)
        if self.pooling == "cls":
            vecs = hidden[:, 0]
        else:
            weights = mask[..., None].astype(np.float32)
            vecs = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        if self.normalize:
            vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
        return vecs


def session_options(threads: int) -> Any:
    """``threads`` per run, one operator at a time, and idle threads sleep.

    Spinning threads would win a little on an idle machine, but on a loaded one (two cores
    shared with the UI, a watcher, other programs) they burn the time the run waits for.
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return options


def onnx_embedder(
    target: Path,
    marker: dict[str, Any],
    model_id: str,
    workers: int | None = None,
    run_threads: int = 1,
) -> OnnxEmbedder:
    """The runner for an export; by default one thread a run and a run per physical core."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    spec = marker["runner"]
    try:
        session = ort.InferenceSession(
            str(target / "onnx" / marker["file_name"]),
            session_options(run_threads),
            providers=["CPUExecutionProvider"],
        )
        tokenizer = Tokenizer.from_file(str(target / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(int(spec["max_tokens"]))
        return OnnxEmbedder(
            session,
            tokenizer,
            model_id,
            int(spec["dim"]),
            int(spec["max_tokens"]),
            target,
            str(spec["pooling"]),
            bool(spec["normalize"]),
            bool(spec["lower_case"]),
            workers or physical_cores(),
        )
    except Exception as exc:
        raise EmbeddingError(
            f"Could not load the int8 embedding model in {target}: {exc}."
        ) from exc
