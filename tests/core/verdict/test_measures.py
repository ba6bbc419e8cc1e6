"""Figures with units compared as quantities, and figures written in words or short forms: a
converted duration, length or weight is the passage's; the same figure with another unit, or
an hour of the clock, is not."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from app.core.verdict.facts import facts
from app.core.verdict.marks import mark_sentences
from app.core.verdict.measures import quantities


@dataclass(frozen=True)
class Passage:
    n: int
    text: str


def _mark(claim: str, passage: str) -> tuple[bool, str]:
    (mark,) = mark_sentences(claim, [Passage(1, passage)])
    return mark.supported, mark.reason


def test_a_figure_with_a_unit_is_read_as_its_quantity() -> None:
    assert quantities(facts("It takes 1 hour.").measures) == {"time:3600"}
    assert quantities(facts("It takes 60 minutes.").measures) == {"time:3600"}
    assert quantities(facts("It is 15.9 mm thick.").measures) == quantities(
        facts("It is 1.59 cm thick.").measures
    )
    # told one after the other, also as their sum
    assert "time:4500" in quantities(facts("Bake for 1 hour and 15 minutes.").measures)
    assert not facts("It has 16 cores.").measures  # no unit of a measure


@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        (
            "Check-in closes 60 minutes before departure.",
            "Check-in closes one hour before departure [1].",
        ),
        (
            "Check-in closes 30 minutes before departure.",
            "Check-in closes half an hour before departure [1].",
        ),
        (
            "Check-in closes 45 minutes before departure.",
            "Check-in closes forty-five minutes before departure [1].",
        ),
        ("The course lasts 2 weeks.", "The course lasts 14 days [1]."),
        ("The panel is 15.9 mm thick.", "The panel is 1.59 cm thick [1]."),
        ("Whisk 12 eggs with the sugar.", "Whisk a dozen eggs with the sugar [1]."),
        ("The class has 28 pupils.", "The class has twenty-eight pupils [1]."),
        ("Serves 10.", "It serves ten [1]."),
        ("Her attendance was 96.5%.", "Her attendance was 96.5 per cent [1]."),
        (
            "The Harbour Room quoted €1,200 for the day.",
            "The Harbour Room quoted EUR 1,200 for the day [1].",
        ),
        ("It works from 0 to 35 °C.", "It works from 0 to 35 degrees Celsius [1]."),
        # a month or weekday written short beside a figure
        (
            "Flight SK 1463 departs 14 Mar at 07:35.",
            "Flight SK 1463 departs on 14 March at 07:35 [1].",
        ),
        ("Sent: Mon 1 April 2024.", "It was sent on Monday 1 April 2024 [1]."),
        ("The meeting is on Friday 14 March.", "The meeting is on Fri 14 Mar [1]."),
    ],
)
def test_the_same_quantity_written_another_way_is_backed(passage: str, claim: str) -> None:
    supported, reason = _mark(claim, passage)
    assert supported, reason


@pytest.mark.parametrize(
    ("passage", "claim", "reason"),
    [
        (
            "Bake for 5 hours at 180 degrees.",
            "Bake for 5 minutes [1].",
            "gives 5 hours, not 5 minutes",
        ),
        (
            "Check-in closes 60 minutes before departure.",
            "Check-in closes 2 hours before departure [1].",
            "does not say 2",
        ),
        (
            "The panel is 15.9 mm thick.",
            "The panel is 15.9 cm thick [1].",
            "gives 15.9 mm, not 15.9 cm",
        ),
    ],
)
def test_another_quantity_is_flagged(passage: str, claim: str, reason: str) -> None:
    supported, said = _mark(claim, passage)
    assert not supported and reason in said


def test_how_often_is_a_rate_in_times_a_day() -> None:
    """A prescription's "twice daily" is "two times a day" or "2 times per day"; "twice
    weekly" or "once daily" is another rate, flagged; "twice as large" is no rate."""
    assert quantities(facts("Take it twice daily.").measures) == {"rate:2"}
    assert quantities(facts("Take it two times a day.").measures) == {"rate:2"}
    assert quantities(facts("Water them 3 times per week.").measures) == {"rate:3/7"}
    assert not facts("It is twice as large.").measures
    passage = "Take one tablet twice daily with food."
    for said in ("two times a day", "2 times per day", "twice a day"):
        assert _mark(f"Take one tablet {said} with food [1].", passage)[0], said
    for wrong in ("twice weekly", "once daily", "three times a day"):
        assert not _mark(f"Take one tablet {wrong} with food [1].", passage)[0], wrong
    _, reason = _mark("Take one tablet twice weekly with food [1].", passage)
    assert "not 2 times weekly" in reason


def test_an_hour_of_the_clock_is_no_length_of_time() -> None:
    """ "five minutes" is not backed by the "5 pm" of another sentence."""
    supported, _ = _mark(
        "The bell sounds for five minutes so members can return to the chamber [1].",
        "MSPs vote at 5 pm. The bell sounds so members can return to the chamber.",
    )
    assert not supported


def test_a_short_word_away_from_a_figure_is_no_date() -> None:
    assert "sunday" not in facts("She sat in the Sun on Mar Street.").stems
    assert "march" not in facts("She sat in the Sun on Mar Street.").numbers
    assert facts("It leaves 14 Mar.").numbers >= {"14", "march"}
