"""A model name a person mistyped is matched to the installed name it resembles."""

from __future__ import annotations

import pytest

from app.core.ollama.models import (
    ModelChoice,
    ModelInfo,
    closest_model,
    missing_model_message,
    pick_chat_model,
)

INSTALLED = ["smollm2:135m", "smollm2:135m-q8_0", "gemma3:270m-pt", "llama3.2:latest"]


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("smollm2:135m-q8", "smollm2:135m-q8_0"),  # a tag cut short
        ("smolm2:135m", "smollm2:135m"),  # a letter left out
        ("lama3.2", "llama3.2:latest"),  # ":latest" is what Ollama adds
        ("gemma3:270m", "gemma3:270m-pt"),
        ("mistral:7b", None),  # nothing like it
    ],
)
def test_the_closest_installed_name(typed: str, meant: str | None) -> None:
    assert closest_model(typed, INSTALLED) == meant


def test_a_named_model_is_met_with_the_name_it_resembles_before_any_pull() -> None:
    said = missing_model_message("smollm2:135m-q8", INSTALLED)
    assert said.startswith("The model 'smollm2:135m-q8' is not installed. Did you mean ")
    assert "`smollm2:135m-q8_0`" in said and said.index("Did you mean") < said.index("pull")
    plain = missing_model_message("mistral:7b", INSTALLED)
    assert "Did you mean" not in plain and "`ollama pull mistral:7b`" in plain


def test_the_fallback_for_a_misspelt_setting_is_the_model_it_names() -> None:
    installed = [ModelInfo(n) for n in INSTALLED]
    assert pick_chat_model(installed, "smollm2:135m-q8") == "smollm2:135m-q8_0"
    choice = ModelChoice("smollm2:135m-q8", "smollm2:135m-q8_0", installed)
    assert choice.note is not None and "Did you mean 'smollm2:135m-q8_0'?" in choice.note
    # another model of the family is no typo: said as a stand-in, not as "did you mean"
    other = ModelChoice("llama3.1", "llama3.2:latest", installed)
    assert other.note is not None and "Did you mean" not in other.note
