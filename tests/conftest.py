"""Test environment: offscreen Qt, offline models, and shared real components.

``pytest -m "not slow"`` is the fast loop; the tests marked ``slow`` start real processes
(signals, crashes, a clean environment) or wait on real servers, and run in the full suite.
"""

from __future__ import annotations

import os

# Must be set before any QApplication exists, or Qt aborts the run on a headless machine.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# The install-time export is not used by the tests: each session makes (and the export tests
# remake) its own, so a test never depends on what the setup command left in the venv.
os.environ["FOOTNOTES_INSTALLED_MODELS"] = ""

import getpass
import json
import tempfile
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def models_dir() -> Path:
    """Where the session finds the int8 export of the shipped model (engine processes link it).

    Kept between runs in the system temp folder, since exporting takes seconds and depends only
    on the model and the recipe: the export's marker records the recipe's version, and an older
    one is made again. ``test_embedding`` still exports into a fresh folder on every full run.
    """
    path = Path(tempfile.gettempdir()) / f"footnotes-test-models-{getpass.getuser()}"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture(scope="session")
def embedder(models_dir: Path):
    """The shipped embedding model (int8 ONNX export), loaded once per test session."""
    from app.core.index.embedding import load_embedder

    return load_embedder(models_dir=models_dir)


@pytest.fixture(scope="session")
def torch_embedder(tmp_path_factory: pytest.TempPathFactory):
    """The shipped model on torch fp32: what the CLI loads with ``cli_data_dir``'s settings."""
    from app.core.index.embedding import load_embedder
    from tests.helpers import environment_kept

    with environment_kept():
        return load_embedder(backend="torch", models_dir=tmp_path_factory.mktemp("fp32-models"))


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
    """A data dir whose settings use torch fp32, so CLI runs skip the ONNX export."""
    data = tmp_path / "cli-data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"embedding_backend": "torch"}))
    return data


@pytest.fixture(scope="session")
def cli_index(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """``make_corpus`` indexed once by ``footnotes index --json`` on ``cli_data_dir``'s
    settings: (data dir, docs, the JSON report). Read-only; copy the data dir to change it."""
    from tests.helpers import footnotes, make_corpus

    root = tmp_path_factory.mktemp("cli-index")
    data = root / "data"
    data.mkdir()
    # History off: questions asked on this shared index must not leave threads in it.
    settings = {"embedding_backend": "torch", "history_enabled": False}
    (data / "settings.json").write_text(json.dumps(settings))
    docs = make_corpus(root / "docs")
    proc = footnotes("--data-dir", str(data), "index", str(docs), "--json")
    assert proc.returncode == 0, proc.stderr
    return data, docs, json.loads(proc.stdout)
