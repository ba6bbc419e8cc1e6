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


DATED = (
    "Construction of the Eiffel Tower began in 1887. The tower was completed in 1889 for the "
    "World's Fair. The Statue of Liberty, also engineered by Eiffel's firm, was dedicated in "
    "1886, and the Exposition of that year opened in May."
)


@pytest.mark.parametrize(
    ("claim", "years"),
    [
        # the passage orders them only by their years: 1886 before 1889
        (
            "The Eiffel Tower, which was completed before the Statue of Liberty was dedicated, "
            "was engineered by Eiffel's firm.",
            (1889, 1886),
        ),
        ("The Statue of Liberty was dedicated after the tower was completed.", (1889, 1886)),
        ("The tower was completed after the Statue of Liberty was dedicated.", None),
        ("The Statue of Liberty was dedicated before the Eiffel Tower was completed.", None),
        ("The tower was completed three years after the Statue of Liberty.", None),
        # the tower is dated twice: "began" is 1887, "completed" 1889; both after 1886
        ("Construction of the tower began after the Statue of Liberty was dedicated.", None),
        # one thing's two events: no pair of things to order
        ("The tower was completed before it was painted.", None),
        # a thing the passage gives no year keeps the claim out of reach
        ("The tower was completed before the Exposition opened.", None),
    ],
)
def test_a_claim_is_reversed_by_the_years_the_passage_gives_its_two_things(
    claim: str, years: tuple[int, int] | None
) -> None:
    found = reversed_order(_doc(claim), [_doc(s) for s in _sentences(DATED)])
    assert (found.years if found is not None else None) == years


def test_two_things_dated_the_same_year_are_in_no_order() -> None:
    passage = ["Chopin left Warsaw in 1830.", "The November Uprising broke out in 1830."]
    claim = _doc("Chopin left Warsaw after the November Uprising broke out.")
    assert reversed_order(claim, [_doc(s) for s in passage]) is None


def _sentences(text: str) -> list[str]:
    from app.core.text import sentence_spans

    return [text[a:b] for a, b in sentence_spans(text)]
