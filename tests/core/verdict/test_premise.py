"""The question's premise: the event a "when" question asks about, read off the question."""

from __future__ import annotations

from app.core.verdict.premise import asked_event, undated


def test_the_event_asked_about_is_the_questions_verb_and_its_subject() -> None:
    # the inverted order, which the parser misreads, is read as a statement
    assert asked_event("In what year did the Protestant Reformation arrive in France?") == (
        "arriv",
        frozenset({"protest", "reform"}),
    )
    assert asked_event("When was the university founded?") == ("found", frozenset({"univers"}))
    # a copula asks about no event of its own
    assert asked_event("When was the Ming dynasty in power?") is None


def test_a_year_the_sources_give_to_another_event_is_no_date_of_the_asked_one() -> None:
    event = asked_event("In what year did the Reformation arrive in France?")
    undated_arrival = [
        "The Reformation finally arrived in France after long struggles.",
        "Lefevre published his translation of the New Testament in 1523.",
    ]
    found = undated(event, "The Reformation reached France in 1523.", undated_arrival)
    assert found is not None and "1523" in found.reason
    dated_arrival = ["The Reformation arrived in France in 1523, when Lefevre published it."]
    assert undated(event, "The Reformation reached France in 1523.", dated_arrival) is None
