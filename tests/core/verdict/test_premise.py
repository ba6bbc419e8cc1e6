"""The question's premise: the event a "when" question asks about, read off the question."""

from __future__ import annotations

from app.core.verdict.facts import facts
from app.core.verdict.premise import asked_event, counted_other, undated
from app.core.verdict.question import counted_group


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


def test_a_dated_event_or_a_year_of_something_else_is_left_to_the_other_checks() -> None:
    event = asked_event("When did the archive open?")
    dated = ["The city archive opened in 1889.", "It holds the harbour records from 1650."]
    # the sources date the opening: the slot checks compare the years
    assert undated(event, "The archive opened in 1650.", dated) is None
    undated_opening = ["The city archive opened late.", "It holds the records from 1650."]
    # a year the answer gives to something else it tells of is not the opening's
    assert undated(event, "It holds the harbour records from 1650.", undated_opening) is None
    assert undated(event, "The archive opened in 1650.", undated_opening) is not None


def test_a_count_the_passage_gives_another_named_group_is_not_the_asked_ones() -> None:
    group = counted_group("How many French Catholics died during the massacre?")
    assert group == {"french", "cathol"}
    span = facts("Between about 2,000 and 3,000 Protestants were killed in Paris.")
    found = counted_other(group, facts("Between 2,000 and 3,000 were killed in Paris."), span)
    assert found is not None and "Protestants" in found.reason
    # the claim that names the passage's group says whose count it is
    named = facts("Between 2,000 and 3,000 Protestants were killed in Paris.")
    assert counted_other(group, named, span) is None
    # a question that counts no named group asks about anyone counted
    assert counted_group("How many people died during the massacre?") == frozenset()
