"""A claim that gives one side of a passage's contrast ("A …, while B …") what the passage says
of the other side."""

from __future__ import annotations

from app.core.verdict.contrast import crossed

SENTENCE = (
    "Circuit switching is characterized by a fee per unit of connection time, even when no "
    "data is transferred, while packet switching may be characterized by a fee per unit of "
    "information transmitted."
)


def test_a_claim_naming_one_side_with_the_other_sides_words_has_crossed() -> None:
    claim = "Packet-switched services charge per unit of information, even when no data is sent."
    assert crossed(claim, SENTENCE) == ("packet switching", "circuit switching")


def test_each_side_with_its_own_words_has_not_crossed() -> None:
    assert crossed("Circuit switching charges even when no data is transferred.", SENTENCE) is None
    assert crossed("Packet switching charges per unit of information.", SENTENCE) is None


def test_a_claim_that_sets_the_sides_against_each_other_itself_may_hold_both() -> None:
    claim = (
        "Packet switching charges per unit of information, rather than per unit of "
        "connection time even when no data is transferred."
    )
    assert crossed(claim, SENTENCE) is None


def test_whereas_sets_two_sides_apart_as_while_does() -> None:
    sentence = (
        "The northern colonies grew wheat and traded furs, whereas the southern colonies "
        "grew tobacco on large plantations."
    )
    assert crossed("The northern colonies grew tobacco on large plantations.", sentence) == (
        "the northern colonies",
        "the southern colonies",
    )


def test_a_sentence_without_a_contrast_has_no_sides() -> None:
    assert crossed("Packet switching charges even when no data is sent.", "Fees vary.") is None


def test_while_without_a_comma_is_a_time_not_a_contrast() -> None:
    sentence = (
        "Aristotelian physics would have the cannonball fall straight down while the ship "
        "moved beneath it."
    )
    assert crossed("The ship moved beneath the falling cannonball.", sentence) is None
