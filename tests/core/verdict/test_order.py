"""The order two things came in: the pairs a sentence states, and a claim that reverses them.
Read with spaCy's small English pipeline."""

from __future__ import annotations

import pytest

from app.core.verdict.order import pairs, reversed_order
from app.core.verdict.parse import parse

PASSAGE = (
    "In England, the period of Norman architecture immediately succeeds that of the "
    "Anglo-Saxon and precedes the Early Gothic."
)


def _doc(text: str):  # type: ignore[no-untyped-def]
    doc = parse(text)
    assert doc is not None
    return doc


def test_order_verbs_and_before_after_give_earlier_then_later() -> None:
    stated = [(a.text, b.text) for a, b in pairs(_doc(PASSAGE))]
    # "succeeds that of the Anglo-Saxon": the Anglo-Saxon first; "precedes" takes the subject
    # of the verb it is conjoined to
    assert stated == [
        ("that of the Anglo-Saxon", "the period of Norman architecture"),
        ("the period of Norman architecture", "the Early Gothic"),
    ]
    came = pairs(_doc("The Tudor period came after the Wars of the Roses."))
    assert [(a.text, b.text) for a, b in came] == [("the Wars of the Roses", "The Tudor period")]


@pytest.mark.parametrize(
    ("claim", "reversed_"),
    [
        ("Norman architecture followed the Early Gothic period.", True),
        ("Norman architecture came before the Anglo-Saxon style.", True),
        ("Norman architecture came before the Early Gothic period.", False),
        ("Norman architecture followed the Anglo-Saxon style.", False),
        ("The Tudor period followed the Wars of the Roses.", False),  # another pair: no say
    ],
)
def test_a_claim_is_reversed_only_where_a_passage_orders_the_same_two_things_otherwise(
    claim: str, reversed_: bool
) -> None:
    assert (reversed_order(_doc(claim), [_doc(PASSAGE)]) is not None) is reversed_
