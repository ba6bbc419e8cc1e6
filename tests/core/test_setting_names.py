"""Messages name only settings that exist: every "(setting X)" in the engine's wording is a
field of Settings, and a question too long for the model says what the person can do."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.errors import AnswerError
from app.core.prompt.answering import build_messages
from app.core.types import Hit

CORE = Path(__file__).resolve().parents[2] / "app" / "core"


def test_every_setting_a_message_names_exists() -> None:
    fields = {f.name for f in dataclasses.fields(Settings)}
    named = {
        (path.name, name)
        for path in CORE.rglob("*.py")
        for name in re.findall(r"\(setting ([a-z_]+)\)", path.read_text(encoding="utf-8"))
    }
    assert named, "the pattern no longer finds the messages it checks"
    assert {(file, name) for file, name in named if name not in fields} == set()


def test_a_question_too_long_names_no_setting_that_does_not_exist() -> None:
    hit = Hit(1, "/notes/a.md", None, 0, 20, "The Seine is long.", 0.5, "c1")
    with pytest.raises(AnswerError) as caught:
        build_messages("word " * 5000, [hit], context_tokens=2048)
    message = caught.value.message
    assert "context size" not in message  # Settings has no such choice
    assert "shorten it" in message
