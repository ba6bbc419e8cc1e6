"""Which installed Ollama model answers: the configured one, another tag of it, else the first
installed chat model, never an embedding model; and what the person is told about it. From
lists of models, with no server (``tests/core/verdict/test_judge.py`` asks a stand-in one)."""

from __future__ import annotations

import pytest

from app.core.ollama.models import (
    ModelChoice,
    ModelInfo,
    PullProgress,
    no_chat_model_message,
    pick_chat_model,
)

LLAMA = ModelInfo("llama3.2:latest", "llama", ("llama",), "3.2B", 2_000_000_000, ("completion",))
LLAMA_1B = ModelInfo("llama3.2:1b", "llama")
QWEN = ModelInfo("qwen2.5:3b", "qwen2")
NOMIC = ModelInfo("nomic-embed-text:latest", "nomic-bert")


@pytest.mark.parametrize(
    "model",
    [
        ModelInfo("nomic-embed-text:latest", "nomic-bert"),  # by family
        ModelInfo("custom:latest", "", ("bert",)),  # by one of its families
        ModelInfo("all-minilm:latest"),  # by name
        ModelInfo("mxbai-embed-large"),
        ModelInfo("bge-m3:latest"),
        ModelInfo("llama3.2:latest", "llama", capabilities=("embedding",)),  # as the server says
    ],
)
def test_embedding_models_are_known_and_never_chat(model: ModelInfo) -> None:
    assert model.embedding_only and not model.chat


@pytest.mark.parametrize(
    "model",
    [
        LLAMA,
        QWEN,
        ModelInfo("mistral"),
        ModelInfo("embed-poet:latest", "bert", capabilities=("completion", "embedding")),
    ],
)
def test_chat_models_are_chat_models(model: ModelInfo) -> None:
    assert model.chat


def test_the_configured_model_answers_when_installed_with_or_without_its_tag() -> None:
    assert pick_chat_model([QWEN, LLAMA], "llama3.2") == "llama3.2"
    assert pick_chat_model([QWEN, LLAMA], "llama3.2:latest") == "llama3.2:latest"


def test_else_another_tag_of_it_then_the_first_chat_model() -> None:
    assert pick_chat_model([QWEN, LLAMA_1B], "llama3.2") == "llama3.2:1b"
    assert pick_chat_model([NOMIC, QWEN, LLAMA_1B], "mistral") == "qwen2.5:3b"
    assert pick_chat_model([NOMIC], "llama3.2") is None
    assert pick_chat_model([], "llama3.2") is None


def test_a_configured_embedding_model_is_not_picked_to_answer() -> None:
    assert pick_chat_model([NOMIC, QWEN], "nomic-embed-text") == "qwen2.5:3b"


def test_the_person_is_told_when_another_model_answers_and_why() -> None:
    assert ModelChoice("llama3.2", "llama3.2", [LLAMA]).note is None
    missing = ModelChoice("llama3.2", "qwen2.5:3b", [QWEN])
    assert missing.fallback
    assert missing.note == (
        "The model 'llama3.2' is not installed in Ollama, so 'qwen2.5:3b' answers instead "
        "(get it with `ollama pull llama3.2`, or choose a model in Settings)."
    )
    embedding = ModelChoice("nomic-embed-text", "qwen2.5:3b", [NOMIC, QWEN])
    assert "cannot chat (it is an embedding model)" in (embedding.note or "")
    none = ModelChoice("llama3.2", None, [NOMIC])
    assert not none.fallback and none.note == no_chat_model_message("llama3.2")
    assert "`ollama pull llama3.2`" in none.note


def test_pull_progress_is_a_fraction_only_when_the_size_is_known() -> None:
    assert PullProgress("pulling manifest").fraction is None
    assert PullProgress("downloading", 0, 0).fraction is None
    assert PullProgress("downloading", 250, 1000).fraction == 0.25
    assert PullProgress("downloading", 1200, 1000).fraction == 1.0  # never past the end
