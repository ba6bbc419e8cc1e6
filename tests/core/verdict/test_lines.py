"""Two lines of one kind (a prescription's, a statement's, a booking's) and a claim that takes
one line's figure or name into the other: flagged, with both lines quoted; a sentence that
goes on about the other's thing, or a claim taking from each line, is backed."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from app.core.verdict.marks import mark_sentences

PRESCRIPTION = "Take metformin 500 mg twice daily. Take atorvastatin 20 mg once daily at night."
PLANS = "Basic: $10 per month. Premium: $15 per month."
FLIGHTS = "Outbound: SK 1463, Friday 14 March. Return: SK 1470, Sunday 16 March."


@dataclass(frozen=True)
class Passage:
    n: int
    text: str


def _mark(claim: str, passage: str) -> tuple[bool, list[str], str]:
    (mark,) = mark_sentences(claim, [Passage(1, passage)])
    return mark.supported, mark.checks, mark.reason


@pytest.mark.parametrize(
    ("passage", "claim", "lent"),
    [
        (PRESCRIPTION, "Take metformin 20 mg twice daily [1].", "20"),
        (PLANS, "The Premium plan is $10 per month [1].", "10"),
        (FLIGHTS, "The return flight is SK 1463 [1].", "1463"),
        (FLIGHTS, "The return flight is on Friday 14 March [1].", "14"),
        (
            "Action: Marcus to fix the payment bug by 24 October. Next meeting: 16 October.",
            "The next meeting is on 24 October [1].",
            "24",
        ),
        # a statement's lines, alike only in their month ("May" is no word of their own)
        (
            "Direct debit to Thames Water of £38.00 was paid on 3 May. Card payment at Tesco "
            "of £64.17 on 11 May.",
            "Thames Water was paid £64.17 on 11 May [1].",
            "64.17, 11",
        ),
    ],
)
def test_a_figure_taken_from_the_line_beside_is_flagged(
    passage: str, claim: str, lent: str
) -> None:
    supported, checks, reason = _mark(claim, passage)
    assert not supported and checks == ["line_lent"]
    assert reason.startswith(f"The passage gives {lent} on another line (“")


def test_the_reason_quotes_both_lines() -> None:
    _, _, reason = _mark("Take metformin 20 mg twice daily [1].", PRESCRIPTION)
    assert reason == (
        "The passage gives 20 on another line (“Take atorvastatin 20 mg once daily at "
        "night.”), not on “Take metformin 500 mg twice daily.”"
    )


@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        (PRESCRIPTION, "Take metformin 500 mg twice daily [1]."),
        (PRESCRIPTION, "Take atorvastatin 20 mg once daily at night [1]."),
        (PLANS, "The Premium plan is $15 per month [1]."),
        # a sentence going on about the other's thing: no line of its kind
        (
            "In 2023 the company paid a dividend. The total was $2.1 billion.",
            "The company paid a dividend of $2.1 billion in 2023 [1].",
        ),
        # a figure from each line
        (
            "Revenue was $5.2 billion. Operating income was $1.1 billion.",
            "Revenue was $5.2 billion and operating income $1.1 billion [1].",
        ),
    ],
)
def test_a_claim_true_to_its_lines_is_backed(passage: str, claim: str) -> None:
    supported, _, reason = _mark(claim, passage)
    assert supported, reason


def test_prose_sentences_sharing_a_name_are_no_lines() -> None:
    """Two long sentences of prose that share "France" are no list: what a claim takes from
    them is for the other checks to judge, not read as one line's figure in another."""
    passage = (
        "The Reformation finally arrived in France after long struggles with the papacy and "
        "its bishops. Lefevre published his French translation of the New Testament in 1523 "
        "in Paris."
    )
    _, checks, _ = _mark("The Reformation reached France in 1523 [1].", passage)
    assert "line_lent" not in checks
