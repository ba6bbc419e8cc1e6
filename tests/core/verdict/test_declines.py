"""Declines: a gap statement (the sources, or the answerer, lack something) and whether it
declines the question or is a side note. Read with spaCy's small English pipeline."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from app.core.types import Support
from app.core.verdict.declines import Gap, declines, gap
from app.core.verdict.judge import Level, judge
from app.core.verdict.marks import mark_sentences

BIRTH = "What year was Pedro Menéndez de Avilés born?"


@pytest.mark.parametrize(
    "sentence",
    [
        "The sources do not contain the answer.",
        "I couldn't find a description of the British defence arrangements in these passages.",
        "Pedro Menéndez de Avilés's year of birth isn't given anywhere in the provided passages.",
        "None of the provided documents contain JPMorgan's segment results.",
        "There is no information about his birth in the sources.",
        # the sources hung by the parse on the last thing named
        "There's nothing about Bill Aiken or his adoptive mother in your files.",
        # a word that says it is missing, in place of a 'not'
        "The documents are silent on who designed the building.",
        "It is unclear from the sources who designed the building.",
        "The building's designer is unknown from the available passages.",
        "I'm unable to answer this from the passages provided.",
        # the sources named before, then as "they"
        "The passages only cover the museum's hours; they don't say who designed it [1].",
        # the sources unnamed: only documents mention, and information is given
        "The excerpts describe its hours [1], but the building's designer is not mentioned.",
        "No details are given about the building's designer.",
        # the sources named with a word that points at them
        "The provided files do not say who signed it.",
        "The relevant passages don't mention the date.",
    ],
)
def test_models_decline_in_many_words(sentence: str) -> None:
    assert gap(sentence) is not None


@pytest.mark.parametrize(
    ("sentence", "first"),
    [
        ("The building's designer is not mentioned.", True),
        ("The building's designer is not mentioned.", False),
        ("No details are given about the building's designer.", False),
    ],
)
def test_a_gap_whose_sources_go_unnamed_declines_only_when_it_opens_the_answer(
    sentence: str, first: bool
) -> None:
    """ "…is not mentioned" after an answer is a side note, whatever words it shares with the
    question; opening the answer, it is the answer's decline."""
    found = gap(sentence)
    assert found is not None and found.unnamed
    assert declines("Who designed the museum building?", sentence, found, first=first) is first


@pytest.mark.parametrize(
    "sentence",
    [
        "Paris is the capital of France [1].",
        "The king did not sign the treaty.",  # negated, but about the world
        "Data files have no delimiters.",  # files of some kind, not the sources given
        "Hidden files are not uploaded [1].",
        "Hidden files do not get uploaded.",
        "Files deleted locally are not deleted remotely by default [1].",
        "The reading room is not mentioned in the 1890 report.",  # a claim about that report
        "No troops were given to the garrison.",  # given, but not information
        "They say 3M is sourcing parts abroad, but they give no figures.",  # "sourcing": a verb
    ],
)
def test_a_negated_claim_about_the_world_is_no_gap(sentence: str) -> None:
    assert gap(sentence) is None


def test_the_topic_is_what_is_said_to_be_missing() -> None:
    found = gap("Pedro Menéndez de Avilés's year of birth isn't given in the provided passages.")
    assert found is not None
    assert {"pedro", "birth", "year"} <= found.topic
    assert not found.topic & {"passag", "provid", "given"}  # the sources and the saying
    assert gap("The sources do not contain the answer.") == Gap(frozenset())
    # the answerer's modal and its 'not' are no topic: "I can't complete it" leaves it open,
    # so it declines the question even after a first sentence that computes part of it
    partway = (
        "The ratio would be revenue ÷ $10,820.5 million, but I can't complete it from these "
        "sources."
    )
    found = gap(partway)
    assert found is not None and found.topic == frozenset()
    assert declines("What is the fixed asset turnover ratio?", partway, found, first=False)


def test_a_gap_declines_first_or_open_or_on_the_questions_own_words() -> None:
    side = "The sources do not describe the British defence arrangements."
    found = gap(side)
    assert found is not None and found.topic
    assert declines(BIRTH, side, found, first=True)  # the answer opens with it
    assert not declines(BIRTH, side, found, first=False)  # a side note on another topic
    about = "Pedro Menéndez de Avilés's year of birth isn't given in the provided passages."
    on_topic = gap(about)
    assert on_topic is not None and declines(BIRTH, about, on_topic, first=False)
    assert declines(BIRTH, "x", Gap(frozenset()), first=False)  # "The sources don't say."


@dataclass
class Passage:
    n: int
    text: str
    label: str = ""


TOWER = [Passage(1, "The Eiffel Tower was completed in 1889. It is 330 metres tall.")]
TALL = "How tall is the Eiffel Tower?"


def _level(answer: str) -> Level:
    marks = mark_sentences(answer, TOWER, question=TALL)
    support = Support(True, 0.9, "A passage closely matches the question.")
    return judge(support, marks, question=TALL, passages={1: (TOWER[0].text, "")}).level


def test_an_answer_that_declines_is_no_answer_and_a_side_note_leaves_it_supported() -> None:
    assert _level("The sources do not say how tall the Eiffel Tower is.") is Level.NO_ANSWER
    side = "The Eiffel Tower is 330 metres tall [1]. The sources do not say who painted it."
    assert _level(side) is Level.SUPPORTED


def test_the_docstrings_side_note_does_not_turn_a_backed_answer_grey() -> None:
    assert _level("The Eiffel Tower is 330 metres tall [1]. The sources do not say when.") is (
        Level.SUPPORTED
    )


def test_a_gap_named_by_the_questions_own_question_word_declines_it() -> None:
    found = gap("The sources do not say when.")
    assert found is not None
    assert declines("When was the Eiffel Tower completed?", "x", found, first=False)
    assert not declines(TALL, "x", found, first=False)


def test_a_gap_that_leaves_the_asked_thing_unworkable_declines_it() -> None:
    question = "What is Corning's FY2020 days payable outstanding (DPO)?"
    said = "The inventory figures aren't in these excerpts, so the DPO can't be finished."
    found = gap(said)
    assert found is not None and found.unworkable == {"dpo"}
    assert declines(question, said, found, first=False)
    # what cannot be worked out is a detail the question does not ask about: a side note
    side = "The inventory figures aren't in these excerpts, so the turnover can't be computed."
    side_gap = gap(side)
    assert side_gap is not None
    assert not declines(question, side, side_gap, first=False)


MUSEUM = "The museum opens at ten. It closes at six. It was founded in 1901 by the city council."
DESIGNED = "Who designed the museum building?"
# Thirty ways to decline, some with a cited sentence on what the sources do cover: written for
# this test in the manner of capable models, none taken from an answer set.
DECLINES = [
    "I couldn't find who designed the museum building in the provided sources.",
    "The provided documents don't mention the architect of the museum.",
    "There's no information about the museum's architect in the sources.",
    "Nothing in the excerpts addresses who designed the building.",
    "The context doesn't specify who designed the museum building.",
    "Unfortunately, the passages only cover the museum's opening hours and founding; they don't "
    "say who designed it [1].",
    "I don't have enough information to answer this question.",
    "Based on the sources, it's not possible to determine who designed the museum building.",
    "The documents are silent on who designed the building.",
    "No details are given about the building's designer.",
    "The sources make no mention of an architect.",
    "That isn't covered in your files.",
    "I'm unable to answer this from the passages provided.",
    "The answer is not in the sources. They only say the museum was founded in 1901 by the city "
    "council [1].",
    "Your files don't say who designed the museum. What they do say is that it was founded in "
    "1901 by the city council [1].",
    "None of the passages names the designer of the museum building.",
    "The excerpts describe when the museum opens and closes [1], but the designer of the "
    "building is not mentioned.",
    "I can't tell from these sources who designed the museum.",
    "Who designed the building is not stated in the provided text.",
    "The sources provided do not contain information about the museum's designer.",
    "This information is not available in the given context.",
    "The passages don't identify an architect; they only note that the city council founded "
    "the museum in 1901 [1].",
    "Sorry — the documents don't cover that.",
    "There is no mention of who designed the museum building.",
    "The designer isn't named anywhere in the sources.",
    "It isn't clear from the sources who designed the building.",
    "I wasn't able to find the architect's name in your documents.",
    "The sources do not say. They mention only the museum's hours [1] and its founding in "
    "1901 [1].",
    "Not stated in the sources.",
    "The building's designer is unknown from the available passages.",
]


@pytest.mark.parametrize("answer", DECLINES)
def test_a_decline_in_any_of_these_words_is_no_answer(answer: str) -> None:
    marks = mark_sentences(answer, [Passage(1, MUSEUM)], question=DESIGNED)
    support = Support(True, 0.9, "A passage closely matches the question.")
    verdict = judge(support, marks, question=DESIGNED, passages={1: (MUSEUM, "")})
    assert verdict.level is Level.NO_ANSWER, verdict.reason


HOTEL = "Breakfast is included in the room rate. Parking costs 15 euros per night."


def test_a_wrong_negated_fact_is_checked_not_taken_for_a_decline() -> None:
    """ "Breakfast is not included" says something of the hotel, not of the sources: shown as
    the model declining, the wrong answer would go grey with a headline the model never said."""
    passages = [Passage(1, HOTEL)]
    question = "Is breakfast included?"
    marks = mark_sentences("Breakfast is not included [1].", passages, question=question)
    assert [m.kind for m in marks] == ["claim"] and not marks[0].supported
    support = Support(True, 0.9, "A passage closely matches the question.")
    verdict = judge(support, marks, question=question, passages={1: (HOTEL, "")})
    assert verdict.level is Level.UNSUPPORTED
