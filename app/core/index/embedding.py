"""Sentence embeddings, offline: the packaged all-MiniLM-L6-v2 as torch fp32 or int8 ONNX.

``load_embedder`` picks the backend and loads the model. For int8 it makes the ONNX export
on first use (``int8_export``) and runs it on a bare ONNX Runtime session (``onnx_runner``),
or on sentence-transformers for a model that runner does not cover. Which model, and where
its files are, is ``model_source``'s.

Heavy libraries (torch, sentence-transformers, onnxruntime) are imported inside
``load_embedder`` only, so importing this module keeps the command line fast.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from app.core.config import DEFAULT_MODEL, DataDir, resolve_data_dir
from app.core.errors import EmbeddingError
from app.core.index.int8_export import (
    export_int8,
    export_marker,
    installed_export,
    int8_export_dir,
    remove_left_exports,
)
from app.core.index.model_source import model_key, open_model, resolve_source, unknown_model
from app.core.index.onnx_runner import (
    OnnxEmbedder,
    onnx_embedder,
    physical_cores,
    session_options,
)
from app.core.text import well_formed

log = logging.getLogger(__name__)

BACKENDS = ("auto", "torch", "onnx-int8")


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of one model variant."""

    model_id: str
    dim: int

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray: ...


def compute_threads() -> int:
    """Threads for one encode: the cores this process may use, at most four."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


@dataclass
class SentenceEmbedder:
    """A loaded sentence-transformers model (torch or ONNX) behind the ``Embedder`` protocol."""

    model: Any
    model_id: str
    dim: int
    max_tokens: int
    backend: str
    path: Path
    exported: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Vectors in input order; texts run longest first so batches pad little."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
        step = max(1, batch_size)
        for lo in range(0, len(order), step):
            idx = order[lo : lo + step]
            # One batch per lock: the fast tokenizer is not thread-safe, and a question
            # then waits behind at most one indexing batch.
            with self._lock:
                vecs = self.model.encode(
                    [well_formed(texts[i]) for i in idx],  # the tokenizer rejects lone surrogates
                    batch_size=len(idx),
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
            out[idx] = np.asarray(vecs, dtype=np.float32)
        return out


def load_embedder(
    name: str = DEFAULT_MODEL, backend: str = "auto", models_dir: Path | None = None
) -> SentenceEmbedder | OnnxEmbedder:
    """Load ``name`` (default: the packaged model) as torch fp32 or int8 ONNX, offline."""
    if backend not in BACKENDS:
        raise EmbeddingError(
            f"Unknown embedding backend {backend!r}; use one of: {', '.join(BACKENDS)}."
        )
    models = Path(models_dir) if models_dir else DataDir(resolve_data_dir()).models_path
    models.mkdir(parents=True, exist_ok=True)
    _offline_env(models)
    remove_left_exports(models)  # what a killed export left, whichever backend loads now
    if (unknown := unknown_model(name, models)) is not None:
        raise unknown  # before any export or fallback is tried with it
    if backend == "auto":
        backend = "onnx-int8" if _onnx_available() else "torch"
        if backend == "onnx-int8":
            try:
                return _load_int8(name, models)
            except EmbeddingError as exc:
                log.warning("int8 ONNX embedder unavailable, using torch fp32: %s", exc)
                backend = "torch"
    if backend == "onnx-int8":
        if not _onnx_available():
            raise EmbeddingError(
                "The onnx-int8 embedding backend needs onnxruntime and optimum; install them "
                "with `pip install sentence-transformers[onnx]`, or choose the torch backend."
            )
        return _load_int8(name, models)
    return _load_torch(name, models)


def _load_torch(name: str, models: Path) -> SentenceEmbedder:
    source = resolve_source(name)
    import torch

    torch.set_num_threads(compute_threads())
    model = open_model(name, source, models, backend="torch")
    return _wrap(model, f"{model_key(name)}-fp32", "torch", Path(source))


def _load_int8(name: str, models: Path) -> SentenceEmbedder | OnnxEmbedder:
    source = resolve_source(name)
    installed = installed_export(name)  # made at install time: checked, never rebuilt here
    target = installed[0] if installed else int8_export_dir(models, name)
    marker = installed[1] if installed else export_marker(target)
    exported = marker is None
    if marker is None:
        log.warning(
            "Preparing the embedding model for this CPU (once for this data folder; it takes "
            "about half a minute)…"
        )
        export_int8(name, source, target, models)
        marker = export_marker(target)
    if marker is None:
        raise EmbeddingError(
            f"The int8 model export in {target} is damaged; deleting that folder makes "
            "Footnotes re-create it."
        )
    model_id = f"{model_key(name)}-int8"
    try:
        if marker.get("runner"):
            embedder: SentenceEmbedder | OnnxEmbedder = onnx_embedder(target, marker, model_id)
        else:  # a model this runner does not cover: sentence-transformers runs the export
            kwargs = {"file_name": marker["file_name"], "provider": "CPUExecutionProvider"}
            kwargs["session_options"] = session_options(physical_cores())
            model = open_model(name, str(target), models, backend="onnx", model_kwargs=kwargs)
            embedder = _wrap(model, model_id, "onnx-int8", target)
    except EmbeddingError as exc:
        raise EmbeddingError(f"{exc} Deleting {target} makes Footnotes re-create it.") from exc
    embedder.exported = exported
    return embedder


def _wrap(model: Any, model_id: str, backend: str, path: Path) -> SentenceEmbedder:
    dim = model.get_embedding_dimension()
    if not dim:
        dim = int(model.encode(["dimension probe"], convert_to_numpy=True).shape[1])
    max_tokens = int(model.max_seq_length or 512)
    return SentenceEmbedder(model, model_id, int(dim), max_tokens, backend, path)


def _onnx_available() -> bool:
    try:
        return all(
            importlib.util.find_spec(mod) is not None
            for mod in ("onnxruntime", "optimum.onnxruntime")
        )
    except (ImportError, ValueError):
        return False


def _offline_env(models: Path) -> None:
    """No downloads, no telemetry, and every library cache inside the data directory."""
    cache = str(models / "hf")
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"  # else onnxruntime writes ~/.cache/Microsoft
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ["HF_HOME"] = cache
    os.environ["SENTENCE_TRANSFORMERS_HOME"] = cache
    os.environ["TORCH_HOME"] = str(models / "torch")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(models / "torch" / "inductor")  # not $TMPDIR
