"""Test environment: offscreen Qt, offline models, and shared real components."""

from __future__ import annotations

import os

# Must be set before any QApplication exists, or Qt aborts the run on a headless machine.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import json
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the session exports the shipped model (engine processes of GUI tests link it)."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def embedder(models_dir: Path):
    """The shipped embedding model (int8 ONNX export), loaded once per test session."""
    from app.core.index.embedding import load_embedder

    return load_embedder(models_dir=models_dir)


@pytest.fixture
def make_engine(tmp_path: Path, embedder):
    """Engines over fresh data directories, sharing the session's embedding model."""
    from app.core.engine import Engine

    engines = []

    def make(name: str = "data", **kwargs):
        engine = Engine(tmp_path / name, embedder=embedder, **kwargs)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


@pytest.fixture
def cli_data_dir(tmp_path: Path) -> Path:
    """A data dir whose settings use torch fp32, so CLI subprocesses skip the ONNX export."""
    data = tmp_path / "cli-data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"embedding_backend": "torch"}))
    return data
