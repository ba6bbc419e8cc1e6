"""The real packaged embedding model, offline: vectors, int8 export and reuse, no ~/.cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from app.core.errors import EmbeddingError
from app.core.index import embedding, int8_export
from app.core.index.embedding import load_embedder
from app.core.index.int8_export import int8_export_dir
from app.core.text import text_hash

REPO = Path(__file__).resolve().parents[3]
TEXTS = [
    "The cat sat on the mat in the warm kitchen.",
    "Quarterly revenue rose eight percent on strong sales of cloud services.",
    "Tomatoes need six hours of direct sun and deep watering twice a week. " * 6,
]
# Variables that would send library caches somewhere on purpose: the child must not rely on them.
CACHE_VARS = (
    "HF_HOME",
    "HF_HUB_CACHE",
    "TRANSFORMERS_CACHE",
    "SENTENCE_TRANSFORMERS_HOME",
    "TORCH_HOME",
    "XDG_CACHE_HOME",
    "ORT_DISABLE_TELEMETRY",
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
)
FIRST_USE = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    import numpy as np
    from app.core.index import embedding
    emb = embedding.load_embedder(backend="onnx-int8", models_dir=Path(sys.argv[1]))
    np.save(sys.argv[2], emb.encode(json.loads(sys.argv[3])))
    print(json.dumps({"model_id": emb.model_id, "exported": emb.exported}))
    """
)


def file_times(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*")}


@pytest.fixture
def fp32(torch_embedder: embedding.SentenceEmbedder) -> embedding.SentenceEmbedder:
    return torch_embedder


@pytest.fixture(scope="module")
def first_use(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """First int8 use in a fresh process with HOME in tmp: it exports, loads and encodes."""
    root = tmp_path_factory.mktemp("int8")
    home, models = root / "home", root / "models"
    home.mkdir()
    # A folder that must not be reused: an older export recipe (no current format in its
    # marker) whose model file is junk, as a crash or an old version could leave behind.
    stale = int8_export_dir(models)
    (stale / "onnx").mkdir(parents=True)
    (stale / "onnx" / "junk.onnx").write_bytes(b"half a model")
    (stale / int8_export.EXPORT_MARKER).write_text(json.dumps({"file_name": "junk.onnx"}))
    env = {k: v for k, v in os.environ.items() if k not in CACHE_VARS}
    env["HOME"] = str(home)
    proc = subprocess.run(
        [sys.executable, "-c", FIRST_USE, str(models), str(root / "v.npy"), json.dumps(TEXTS)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"home": home, "models": models, "vectors": np.load(root / "v.npy"), **report}


def test_import_does_not_load_torch() -> None:
    code = "import sys, app.core.index.embedding; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


def test_vectors_are_normalised_with_the_model_shape(fp32: embedding.SentenceEmbedder) -> None:
    vecs = fp32.encode(TEXTS)
    assert (fp32.model_id, fp32.dim, fp32.max_tokens) == ("all-MiniLM-L6-v2-fp32", 384, 256)
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


def test_paraphrase_scores_above_unrelated_text(fp32: embedding.SentenceEmbedder) -> None:
    query, para, other = fp32.encode(
        [
            "How often should I water tomato plants?",
            "Tomatoes want deep watering about twice every week.",
            "The central bank raised interest rates again in March.",
        ]
    )
    assert query @ para > query @ other + 0.2


def test_empty_input_gives_empty_matrix(fp32: embedding.SentenceEmbedder) -> None:
    vecs = fp32.encode([])
    assert vecs.shape == (0, 384) and vecs.dtype == np.float32


def test_results_keep_input_order_across_batches(fp32: embedding.SentenceEmbedder) -> None:
    texts = [TEXTS[1], TEXTS[2], "short", TEXTS[0]]
    together = fp32.encode(texts, batch_size=2)
    alone = np.vstack([fp32.encode([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-4)


@pytest.mark.slow
def test_first_int8_use_exports_and_writes_nothing_under_home(first_use: dict) -> None:
    target = int8_export_dir(first_use["models"])
    assert first_use["exported"]
    assert first_use["model_id"] == "all-MiniLM-L6-v2-int8"
    assert (target / int8_export.EXPORT_MARKER).is_file()
    assert not (target / "onnx" / "junk.onnx").exists()  # the stale folder was replaced
    assert [p.name for p in first_use["models"].iterdir() if p.name.startswith(".tmp-")] == []
    # nothing temporary inside the export either (optimum's fp32 graph was left in a tmp* folder)
    assert [p.name for p in target.iterdir() if p.name.startswith(("tmp", "scratch"))] == []
    assert not list(target.rglob("model.onnx")), list(target.rglob("*.onnx"))
    assert list(first_use["home"].rglob("*")) == []  # no ~/.cache, nothing else either


@pytest.mark.slow
def test_second_load_reuses_the_export(first_use: dict) -> None:
    target = int8_export_dir(first_use["models"])
    before = file_times(target)
    emb = load_embedder(backend="auto", models_dir=first_use["models"])
    assert not emb.exported  # and the export's files were not touched:
    assert file_times(target) == before
    assert emb.model_id == "all-MiniLM-L6-v2-int8" and emb.backend == "onnx-int8"
    np.testing.assert_allclose(emb.encode(TEXTS), first_use["vectors"], atol=1e-4)


@pytest.mark.slow
def test_int8_vectors_stay_close_to_fp32(first_use: dict, fp32: embedding.SentenceEmbedder) -> None:
    cosines = np.sum(first_use["vectors"] * fp32.encode(TEXTS), axis=1)
    assert cosines.min() > 0.95, cosines


def test_text_hash_is_stable_blake2b_of_exact_text() -> None:
    assert text_hash("Footnotes — 脚注") == "0f573150d46dc60642eaee288ea597de"
    assert text_hash("a") != text_hash("a ") and len(text_hash("")) == 32


def test_unknown_model_error_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="not a model folder on this computer") as err:
        load_embedder("no-such-org/no-such-model", backend="torch", models_dir=tmp_path)
    assert "('all-MiniLM-L6-v2')" in str(err.value)  # which names exist


def test_unknown_backend_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="onnx-int8"):
        load_embedder(backend="tensorflow", models_dir=tmp_path)


def test_quantization_arch_is_a_known_preset() -> None:
    assert int8_export.quantization_arch() in {"avx512_vnni", "avx2", "arm64"}


def test_the_installs_export_is_used_without_exporting_into_the_data_folder(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the setup command made is loaded as it is: a fresh data folder's first command
    exports nothing (the half-minute wait a new user had) and leaves no copy of its own."""
    load_embedder(models_dir=models_dir)  # the session's export: stands in for the install's
    monkeypatch.setenv("FOOTNOTES_INSTALLED_MODELS", str(models_dir))
    fresh = tmp_path / "fresh-models"
    emb = load_embedder(backend="auto", models_dir=fresh)
    assert not emb.exported
    assert not int8_export_dir(fresh).exists()
    assert emb.backend == "onnx-int8" and emb.encode(TEXTS).shape[0] == len(TEXTS)
