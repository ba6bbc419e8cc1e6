"""Inline code read exactly: each word or option whole (`fsync` is not `fsync-tool`), an
operator anywhere."""

from __future__ import annotations

import pytest

from app.core.verdict.code import inline_code_finding


@pytest.mark.parametrize(
    ("sentence", "missing"),
    [
        ("Install it with `pip install fsync`.", "fsync"),
        ("Pass `--job 4` to run four uploads.", "--job"),
    ],
)
def test_a_token_is_held_only_whole(sentence: str, missing: str) -> None:
    text = "Install the client with `pip install fsync-tool`. Pass `--jobs 4` for four."
    found = inline_code_finding(sentence, [text])
    assert found is not None and found.reason == f"no source holds `{missing}` as written"


def test_code_put_together_from_whole_tokens_is_held() -> None:
    text = "Install the client with `pip install fsync-tool`. Pass `--jobs 4` for four."
    assert inline_code_finding("Run `pip install fsync-tool --jobs 4`.", [text]) is None
    # an operator inside a longer piece: `+=` in `set listchars+=eol:¬`
    assert inline_code_finding("Use `+=` to add one.", ["Run `set listchars+=eol:¬`."]) is None
    # a mark elided around: `[-...-]` in "[-day to day-]"
    assert inline_code_finding("Removed text is `[-...-]`.", ["It shows [-day to day-]."]) is None
