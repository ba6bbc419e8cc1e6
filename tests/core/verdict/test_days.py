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
