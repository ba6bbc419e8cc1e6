"""A day is compared whole: "28 February 2024" is not backed by a passage that says
28 February 2025 and 1 December 2024, though each of its figures is there; the same day
written another way is that day."""

from __future__ import annotations

import pytest

from app.core.verdict.days import day_not_given, written_days

LEASE = (
    "The lease runs from 1 March 2023 to 28 February 2025 and is up for renewal on 1 December 2024."
)
FILED = "The 8-K was filed on 05/30/2023 and amended on 6/2/2023."


@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        (LEASE, "The lease ends on February 28, 2025."),
        (LEASE, "The lease ends on 28th of February, 2025."),
        (LEASE, "The lease ends 2025-02-28."),
        (LEASE, "The lease began in March 2023."),
        ("The offer ran 1–28 February 2025.", "It began on 1 February 2025."),
        ("The meeting of 6 and 7 May 2023 decided it.", "It was decided on 6 May 2023."),
        (FILED, "It was filed on May 30, 2023."),
        (FILED, "It was amended on 2 June 2023."),  # 6/2 read day first
        ("Filed on May 30, 2023.", "It was filed 5/30/2023."),
        ("In 2023 the board met on 30 May and on 2 October.", "The board met on 30 May 2023."),
        ("Rent rises every March.", "Rent rose in March 2024."),
        # a statement's day given for several years
        (
            "As of December 31, 2023 and 2022, the Company had cash of $1.2 billion and "
            "$0.9 billion, respectively.",
            "As of December 31, 2022, the Company had cash of $0.9 billion.",
        ),
        (
            "For the years ended December 31, 2023, 2022 and 2021.",
            "In the year ended December 31, 2021.",
        ),
        # ranges and pairs the American way, a range's inner days
        ("It was held on March 1-3, 2024 in Denver.", "It ended on March 3, 2024."),
        ("It was held on March 1-3, 2024 in Denver.", "It was held on 2 March 2024."),
        ("The board met on March 4 and 5, 2024.", "It met on March 5, 2024."),
        ("It ran from 1 March 2024 to 3 March 2024.", "It was open on 2 March 2024."),
        ("It ran from 30 January 2024 until 2 February 2024.", "It ran on 1 February 2024."),
        # a contract's and other ways of writing a day
        ("This Agreement is made this 30th day of May, 2023.", "It was made on 30 May 2023."),
        ("The hearing was set for the fifth of March 2024.", "The hearing was on 5 March 2024."),
        ("Invoice 4471 was issued on 28.02.2024.", "It was issued on 28 February 2024."),
        ("Invoice 4471 was issued on 2024/02/28.", "It was issued on 28 February 2024."),
        ("Invoice 4471 was issued on 28-Feb-2024.", "It was issued on 28 February 2024."),
        ("It was logged at 2024-02-28T10:00:00Z.", "It was logged on 28 February 2024."),
        # a passage that writes no day or month: the figure check's to judge
        ("The tower was finished in 1889.", "The tower was finished on 31 March 1889."),
    ],
)
def test_the_same_day_written_another_way_is_that_day(passage: str, claim: str) -> None:
    assert day_not_given(written_days(claim), written_days(passage)) is None


@pytest.mark.parametrize(
    ("passage", "claim", "missing"),
    [
        (LEASE, "The lease ends on 28 February 2024.", "28 February 2024"),
        (LEASE, "It is up for renewal on 1 March 2024.", "1 March 2024"),
        (LEASE, "The lease began in March 2024.", "March 2024"),
        (FILED, "It was amended on 3 June 2023.", "3 June 2023"),
        ("Filed on May 30, 2023.", "It was filed 5/31/2023.", "5/31/2023"),
        (
            "It was held on March 1-3, 2024 in Denver.",
            "It was held on March 4, 2024.",
            "March 4, 2024",
        ),
        (
            "For the years ended December 31, 2023, 2022 and 2021.",
            "In the year ended December 30, 2021.",
            "December 30, 2021",
        ),
        # a span of days a month long at most: a lease's two years give no day inside them
        (LEASE, "The lease was renewed on 1 June 2024.", "1 June 2024"),
        (
            "It ran from 1 March 2024 to 3 March 2024.",
            "It was open on 4 March 2024.",
            "4 March 2024",
        ),
        # a year after a day that lists nothing: "1999 employees"
        (
            "As of December 31, 2023, 1999 employees worked there.",
            "As of December 31, 1999, they worked there.",
            "December 31, 1999",
        ),
        (
            "As of December 31, 2023 and 1990 the rule held.",
            "On December 31, 1990 the rule held.",
            "December 31, 1990",
        ),
    ],
)
def test_a_day_made_of_the_passage_s_figures_is_not_its_day(
    passage: str, claim: str, missing: str
) -> None:
    found = day_not_given(written_days(claim), written_days(passage))
    assert found is not None and found.check == "day"
    assert found.reason.startswith(f"the passage does not say {missing} (it gives ")


def test_may_the_verb_is_no_month() -> None:
    said = written_days("You may renew it. Rent may rise in May.")
    assert not said.days and not said.months and said.yearless == {"05"}


def test_a_person_named_may_is_no_month() -> None:
    """ "Theresa May" in a passage gives no May: a claim's "in May 2017" is not backed by her
    name; "In May" and "Early March" still name months."""
    assert not written_days("Theresa May resigned as leader.").yearless
    assert not written_days("The song was written by Brian May.").yearless
    assert written_days("In May the board met.").yearless == {"05"}
    assert written_days("Prices fell in Early March.").yearless == {"03"}
    claim = written_days("Theresa May resigned in May 2019.")
    assert day_not_given(claim, written_days("Theresa May resigned on 7 June 2019.")) is not None


def test_a_version_is_no_day() -> None:
    assert not written_days("Version 2023.1.2.4 shipped; v2024.01.05 is a build.").days


def test_the_day_a_heading_gives_is_given() -> None:
    """Minutes named "Board minutes 5 March 2024" whose text names only the next meeting."""
    passage = written_days("The next meeting is on 2 April 2024.")
    claim = written_days("The board approved the budget on 5 March 2024.")
    assert day_not_given(claim, passage) is not None
    assert day_not_given(claim, passage, frozenset({"board", "5", "march", "2024"})) is None
