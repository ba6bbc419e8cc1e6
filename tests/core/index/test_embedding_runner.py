"""The int8 ONNX runner: one text a run (a vector never depends on its neighbours), thread
settings, and the same vectors as sentence-transformers gives for the same export."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import threading

import numpy as np
import pytest

from app.core.index import int8_export, model_source, onnx_runner
from app.core.index.onnx_runner import OnnxEmbedder, runs_of

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


def test_runs_cover_every_text_once_alone_longest_first() -> None:
    rng = random.Random(3)
    lengths = [rng.choice([5, 12, 40, 130, 200, 256]) + rng.randrange(4) for _ in range(300)]
    runs = runs_of(lengths)
    assert sorted(i for run in runs for i in run) == list(range(len(lengths)))
    assert all(len(run) == 1 for run in runs)
    longest = [lengths[run[0]] for run in runs]
    assert longest == sorted(longest, reverse=True)
    assert runs_of([3, 3]) == [[0], [1]] and runs_of([]) == []


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
    # A text's vector does not depend on what it is encoded with (activations are quantised
    # per run, and each text runs alone): an index built in pieces equals one built at once.
    alone = np.vstack([runner.encode([t]) for t in TEXTS])
    np.testing.assert_array_equal(first, alone)
    shuffled = runner.encode(TEXTS[::-1], batch_size=2)[::-1]
    np.testing.assert_array_equal(first, shuffled)
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
