"""The int8 ONNX copy of an embedding model: made once per CPU family, then reused.

The model is exported to ONNX and dynamically quantised with the int8 config that suits
this CPU (``quantization_arch``), with ONNX Runtime's BERT fusions first when
``FUSE_GRAPH`` is set. The work is done in a temp folder renamed into place, with
``EXPORT_MARKER`` written last: a folder without a marker of the current ``EXPORT_FORMAT``
is never reused. The marker also says how ``onnx_runner`` runs the export (``runner``).

The setup command and the packaged build make the export once, at install time, into
``installed_models_dir()`` (``python -m app.core.index.int8_export``); at run time that copy
is only checked, never rebuilt, so a first command does not spend half a minute exporting.
A data directory's own export is the fallback (another CPU family, an install without it).

Heavy libraries (sentence-transformers, optimum, onnxruntime) are imported inside the
functions only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import platform
import re
import shutil
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.core.config import DEFAULT_MODEL
from app.core.errors import EmbeddingError
from app.core.index.model_source import model_key, open_model

log = logging.getLogger(__name__)

EXPORT_MARKER = "footnotes-export.json"  # written last: a folder without it is never reused
SCRATCH = "scratch"  # inside the temp folder: where the libraries' temporary files go
_STALE_TMP_S = 3600.0
EXPORT_FORMAT = 4  # bump when the export recipe changes, so old exports are re-made
# ONNX Runtime's BERT fusions before quantising: measured slower here (bench_embedding.py
# "new, fused" row), since the session fuses LayerNorm/GELU itself and QAttention is slower.
FUSE_GRAPH = False
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


def installed_models_dir() -> Path | None:
    """Where the install keeps its int8 export (read-only at run time), or None for none.

    ``$FOOTNOTES_INSTALLED_MODELS`` names another folder (empty: none, as the tests set it);
    a packaged build keeps it beside its code; otherwise ``<prefix>/share/footnotes/models``
    of the Python environment Footnotes is installed in.
    """
    forced = os.environ.get("FOOTNOTES_INSTALLED_MODELS")
    if forced is not None:
        return Path(forced) if forced.strip() else None
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "models"
    return Path(sys.prefix) / "share" / "footnotes" / "models"


def installed_export(name: str = DEFAULT_MODEL) -> tuple[Path, dict[str, Any]] | None:
    """The install's complete export of ``name`` for this CPU family (folder, marker)."""
    root = installed_models_dir()
    if root is None:
        return None
    target = int8_export_dir(root, name)
    marker = export_marker(target)
    return None if marker is None else (target, marker)


def int8_export_dir(models_dir: Path, name: str = DEFAULT_MODEL) -> Path:
    """Folder that holds (or will hold) the int8 ONNX export of ``name`` for this CPU."""
    return Path(models_dir) / f"{model_key(name)}-onnx-int8-{quantization_arch()}"


def export_int8(name: str, source: str, target: Path, models: Path) -> None:
    """Export ONNX, fuse, quantise to int8 in a temp folder beside ``target``, rename it in."""
    from sentence_transformers import export_dynamic_quantized_onnx_model

    arch = quantization_arch()
    remove_left_exports(models)
    # the process id in the name: a folder whose process is gone was left by a kill
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{target.name}-{os.getpid()}-", dir=models))
    # optimum's own temporary files (the fp32 graph, 88 MB): inside the temp folder, and gone
    # before it is renamed into place (they were left inside every data directory's export)
    scratch = tmp / SCRATCH
    scratch.mkdir()
    log.info("Making the int8 ONNX copy of %s in %s (once)", name, target)
    noisy = [logging.getLogger(n) for n in ("sentence_transformers", "transformers", "optimum")]
    noisy.append(logging.getLogger())  # the quantiser and the optimiser log on the root logger
    levels = [logger.level for logger in noisy]
    try:
        # The libraries warn "export again unless you save" (we save) and about deprecations.
        for logger in noisy:
            logger.setLevel(logging.ERROR)
        with warnings.catch_warnings(), temp_files_in(scratch):
            warnings.simplefilter("ignore")
            model = open_model(name, source, models, backend="onnx")
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
        shutil.rmtree(scratch)
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
        if target.exists() and export_marker(target) is None:
            shutil.rmtree(target)  # left by a crash, or made by an older version
        try:
            os.rename(tmp, target)
        except OSError:
            if export_marker(target) is None:
                raise
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


def export_marker(target: Path) -> dict[str, Any] | None:
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


_EXPORT_TEMP_LOCK = threading.Lock()


@contextlib.contextmanager
def temp_files_in(folder: Path) -> Iterator[None]:
    """Send the temporary files made meanwhile into ``folder`` (inside the data directory):
    optimum exports the ONNX graph through ``tempfile`` into the system's temporary folder,
    where a kill left 88 MB behind. ``tempfile.tempdir`` is process-wide, hence the lock."""
    with _EXPORT_TEMP_LOCK:
        before, tempfile.tempdir = tempfile.tempdir, str(folder)
        try:
            yield
        finally:
            tempfile.tempdir = before


def remove_left_exports(models: Path) -> list[Path]:
    """Delete temporary export folders a kill left in ``models`` (``.tmp-<slug>-<pid>-<x>``):
    their process is gone, or (no process id in the name, or one reused since) they are old
    enough not to be in use. Run before every load, not only before an export, so that what
    a killed export left does not stay when no export is made again. The folders removed."""
    removed = []
    for old in models.glob(".tmp-*"):
        parts = old.name.rsplit("-", 2)  # mkdtemp's random part holds no dash
        pid = parts[1] if len(parts) == 3 else ""
        try:
            if not _alive(pid) or time.time() - old.stat().st_mtime > _STALE_TMP_S:
                shutil.rmtree(old, ignore_errors=True)
                removed.append(old)
        except OSError:
            pass
    return removed


def _alive(pid: str) -> bool:
    """Whether the process ``pid`` (digits from a folder name) still runs; True if unsure."""
    if not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, as another user's
    return True


def main() -> int:
    """Make the install's int8 export for this CPU (the setup command runs this once)."""
    from app.core.index.model_source import resolve_source

    root = installed_models_dir()
    if root is None:
        print("FOOTNOTES_INSTALLED_MODELS is empty: no install-time export to make.")
        return 0
    root.mkdir(parents=True, exist_ok=True)
    target = int8_export_dir(root)
    if export_marker(target) is None:
        started = time.monotonic()
        export_int8(DEFAULT_MODEL, resolve_source(DEFAULT_MODEL), target, root)
        print(f"Made the int8 embedding model in {time.monotonic() - started:.0f} s: {target}")
    else:
        print(f"The int8 embedding model is in place: {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
