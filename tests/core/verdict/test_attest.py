"""Whether passage sentences contradict what a claim asserts: a role swapped, a slot filled
with another name or figure, a negation; and what a passage says elsewhere does not."""

from __future__ import annotations

import pytest

from app.core.verdict.attest import compatible, contradictions
from app.core.verdict.relations import Reading, read_text


def reading(text: str) -> Reading:
    found = read_text(text)
    assert found is not None, "the English parser is installed with the app"
    return found


def checks(claim: str, *pool: str) -> list[str]:
    return [f.check for f in contradictions(reading(claim), [reading(p) for p in pool])]


def test_a_swapped_subject_and_object_is_a_role_contradiction() -> None:
    [first, *_] = contradictions(
        reading("Rollo swore fealty to Charles."), [reading("Charles swore fealty to Rollo.")]
    )
    assert first.check == "role"
    assert "Rollo" in first.reason and "'swore'" in first.reason


@pytest.mark.parametrize(
    "passage",
    [
        "Rollo swore fealty to Charles.",
        "Rollo swore fealty to Charles in 911.",  # says more
        "Rollo pledged fealty to Charles.",  # another verb, the same arguments in their roles
    ],
)
def test_a_passage_saying_the_same_thing_contradicts_nothing(passage: str) -> None:
    assert checks("Rollo swore fealty to Charles.", passage) == []


def test_another_name_or_figure_in_the_same_slot_contradicts() -> None:
    claim = "The Normans conquered England in 1066."
    assert checks(claim, "The Normans conquered Sicily in 1066.") == ["filler"]
    assert checks(claim, "The Normans conquered England in 1067.") == ["slot_figure"]
    found = checks(
        "The company employed 2,300 people in Leeds.",
        "The company employed 4,100 people in Leeds.",
    )
    assert found == ["slot_figure"]


def test_a_negation_every_attesting_sentence_denies_contradicts() -> None:
    assert checks("The king signed the treaty.", "The king did not sign the treaty.") == [
        "arc_negation"
    ]
    assert checks("The king did not sign the treaty.", "The king signed the treaty.") == [
        "arc_negation"
    ]


def test_a_sentence_about_something_else_contradicts_nothing() -> None:
    claim = "The Normans conquered England in 1066."
    assert checks(claim, "The weather in Paris was mild.") == []
    assert checks(claim) == []  # no passage sentence at all


def test_another_sentence_of_the_passage_attesting_the_arc_wins() -> None:
    """Passages state several things: one sentence that says the claim is enough."""
    claim = "The Normans conquered England in 1066."
    pool = ("The Normans conquered Sicily in 1072.", "The Normans conquered England in 1066.")
    assert checks(claim, *pool) == []


def test_only_argument_roles_conflict() -> None:
    assert not compatible("subj", "obj")
    assert not compatible("prep:to", "prep:by")
    assert compatible("subj", "subj")
    assert compatible("subj", "mod") and compatible("prep:in", "prep:on")
