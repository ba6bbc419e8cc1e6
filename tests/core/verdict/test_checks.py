"""The verdict's check table, row by row: each check's examples come out as the row says, and
come out otherwise with that check switched off (so no row is a rule that decides nothing)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from app.core.types import Support
from app.core.verdict import checks
from app.core.verdict.checks import CHECKS, Check, Effect, Example
from app.core.verdict.judge import Level, judge
from app.core.verdict.marks import mark_sentences

STRONG = Support(True, 0.9, "The passages match the question well.")
WEAK = Support(False, 0.1, "The passages found only loosely match the question.")


@dataclass
class Passage:
    n: int
    text: str
    label: str = ""


def _outcome(check: Check, example: Example) -> str:
    """What the verdict makes of ``example``: the first claim sentence's mark for a sentence
    check, the answer's level for an answer check."""
    sources = [Passage(1, example.passage, example.source)]
    marks = mark_sentences(example.claim, sources, question=example.question)
    if check.effect is Effect.LEVEL:
        support = WEAK if check.name == "weak_evidence" else STRONG
        verdict = judge(
            support,
            marks,
            question=example.question,
            passages={p.n: (p.text, p.label) for p in sources},
        )
        return verdict.level.value
    mark = marks[0]
    if mark.kind == "meta":
        return "not a claim"
    return "backed" if mark.supported else "flagged"


EXAMPLES = [
    pytest.param(check, example, id=f"{check.name}-{i}")
    for check in CHECKS
    for i, example in enumerate(check.examples)
]


def _decided_by(check: Check, example: Example) -> bool:
    """Whether ``check`` decided the example: it is among the first claim sentence's deciding
    checks, or (for an answer check) the verdict's reason is its own."""
    sources = [Passage(1, example.passage, example.source)]
    marks = mark_sentences(example.claim, sources, question=example.question)
    if check.effect is Effect.BACKS and check.name not in marks[0].checks:
        with checks.off([check.name]):  # a check that only lets a figure through
            return _outcome(check, example) != example.outcome
    if check.effect is not Effect.LEVEL:
        return check.name in marks[0].checks
    support = WEAK if check.name == "weak_evidence" else STRONG
    passages = {p.n: (p.text, p.label) for p in sources}
    reason = judge(support, marks, question=example.question, passages=passages).reason
    with checks.off([check.name]):
        marks = mark_sentences(example.claim, sources, question=example.question)
        other = judge(support, marks, question=example.question, passages=passages).reason
    return reason != other


DECIDED = [
    p
    for p in EXAMPLES
    # an example the check lets through ("backed", "supported") shows where it stands aside
    if p.values[1].outcome not in ("backed", "supported")  # type: ignore[union-attr]
    or p.values[0].effect is Effect.BACKS  # type: ignore[union-attr]
]


@pytest.mark.parametrize(("check", "example"), EXAMPLES)
def test_each_example_comes_out_as_its_row_says(check: Check, example: Example) -> None:
    assert _outcome(check, example) == example.outcome


@pytest.mark.parametrize(("check", "example"), DECIDED)
def test_the_check_decides_its_example_and_stands_aside_when_switched_off(
    check: Check, example: Example
) -> None:
    assert _decided_by(check, example)
    if check.effect is not Effect.LEVEL:
        with checks.off([check.name]):
            assert (
                check.name
                not in mark_sentences(example.claim, [Passage(1, example.passage)])[0].checks
            )


def test_every_check_has_an_example_and_words_for_its_reason() -> None:
    for check in CHECKS:
        # the support flag and the grounding model have tests of their own (a model, a search)
        assert check.examples or check.name in ("weak_evidence", "grounding"), check.name
        assert check.reason and check.finds and check.language in ("any", "en")
    weak = next(c for c in CHECKS if c.name == "weak_evidence")
    backed = mark_sentences(
        "Paris is the capital of France [1].", [Passage(1, "Paris is the capital of France.")]
    )
    assert judge(WEAK, backed).level is Level.UNSUPPORTED
    with checks.off([weak.name]):
        assert judge(WEAK, backed).level is Level.SUPPORTED


def test_an_unknown_check_cannot_be_switched_off() -> None:
    with pytest.raises(KeyError), checks.off(["no_such_check"]):
        pass
