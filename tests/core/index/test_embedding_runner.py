"""The int8 ONNX runner: token-length buckets, thread settings, and the same vectors as
sentence-transformers gives for the same export."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import threading

import numpy as np
import pytest

from app.core.index import int8_export, model_source, onnx_runner
from app.core.index.onnx_runner import TOKEN_BUDGET, OnnxEmbedder, length_buckets

TEXTS = [
    "The cat sat on the mat in the warm kitchen.",
    "  Quarterly revenue rose eight percent on strong sales of cloud services.  ",
    "Tomatoes need six hours of direct sun and deep watering twice a week. " * 6,
    "Ünïcödé naïve café — 脚注 and emoji 🙂 in one line.",
    "short",
    "Harbour log\nThe tide turned at noon; the kelp lines held through the squall. " * 20,
]


@pytest.fixture
def runner(embedder) -> OnnxEmbedder:
    if not isinstance(embedder, OnnxEmbedder):
        pytest.skip("the int8 export runs on sentence-transformers here")
    return embedder


def test_buckets_cover_every_text_once_longest_first() -> None:
    rng = random.Random(3)
    lengths = [rng.choice([5, 12, 40, 130, 200, 256]) + rng.randrange(4) for _ in range(300)]
    runs = length_buckets(lengths, batch_size=32)
    assert sorted(i for run in runs for i in run) == list(range(len(lengths)))
    longest = [lengths[run[0]] for run in runs]
    assert longest == sorted(longest, reverse=True)
    for run in runs:
        width = max(lengths[i] for i in run)
        assert len(run) <= 32 and (len(run) == 1 or len(run) * width <= TOKEN_BUDGET)
        assert 4 * min(lengths[i] for i in run) >= 3 * width  # little padding in a run


def test_buckets_are_stable_and_respect_small_batches() -> None:
    assert length_buckets([3, 3, 3, 3], batch_size=2) == [[0, 1], [2, 3]]
    assert length_buckets([], batch_size=8) == []
    assert length_buckets([10, 300], batch_size=0) == [[1], [0]]


def test_runs_are_single_threaded_one_per_physical_core(runner: OnnxEmbedder) -> None:
    cores = onnx_runner.physical_cores()
    assert 1 <= cores <= (os.cpu_count() or 1) and runner.workers == cores
    options = onnx_runner.session_options(3)
    assert options.intra_op_num_threads == 3 and options.inter_op_num_threads == 1
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    serial = dataclasses.replace(runner, workers=1, _lock=threading.Lock())
    many = ["Kelp lines held through the squall at the harbour mouth. " * n for n in range(1, 30)]
    np.testing.assert_array_equal(
        serial.encode(many),
        dataclasses.replace(runner, workers=3, _lock=threading.Lock()).encode(many),
    )


def test_runner_loads_from_the_export_marker(runner: OnnxEmbedder) -> None:
    marker = json.loads((runner.path / int8_export.EXPORT_MARKER).read_text())
    assert marker["format"] == int8_export.EXPORT_FORMAT and marker["runner"]["pooling"] == "mean"
    assert (runner.model_id, runner.dim, runner.max_tokens) == ("all-MiniLM-L6-v2-int8", 384, 256)


def test_vectors_are_deterministic_normalised_and_in_input_order(runner: OnnxEmbedder) -> None:
    first = runner.encode(TEXTS)
    assert first.shape == (len(TEXTS), 384) and first.dtype == np.float32
    np.testing.assert_array_equal(first, runner.encode(TEXTS))
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    alone = np.vstack([runner.encode([t]) for t in TEXTS])
    # Activations are quantised per run, so a short text's neighbours move it a little.
    assert np.sum(first * alone, axis=1).min() > 0.985
    np.testing.assert_allclose(first[[2, 5]], alone[[2, 5]], atol=1e-6)  # long: a run alone
    shuffled = runner.encode(TEXTS[::-1], batch_size=2)[::-1]
    assert np.sum(first * shuffled, axis=1).min() > 0.985
    assert runner.encode([]).shape == (0, 384)


def test_runner_matches_sentence_transformers_on_the_same_export(runner: OnnxEmbedder) -> None:
    """Tokenizer, truncation at 256 and mean pooling as sentence-transformers does them."""
    marker = json.loads((runner.path / int8_export.EXPORT_MARKER).read_text())
    kwargs = {"file_name": marker["file_name"], "provider": "CPUExecutionProvider"}
    st = model_source.open_model(
        "export", str(runner.path), runner.path.parent, backend="onnx", model_kwargs=kwargs
    )
    for text in TEXTS:  # one at a time: both then quantise exactly the same activations
        ours = runner.encode([text])
        theirs = st.encode([text], convert_to_numpy=True, normalize_embeddings=True)
        np.testing.assert_allclose(ours, theirs, atol=1e-5)
    long = TEXTS[-1]
    assert len(runner.tokenizer.encode(long).ids) == 256


def test_runner_stays_close_to_fp32(runner: OnnxEmbedder, torch_embedder) -> None:
    cosines = np.sum(runner.encode(TEXTS) * torch_embedder.encode(TEXTS), axis=1)
    assert cosines.min() > 0.95, cosines
