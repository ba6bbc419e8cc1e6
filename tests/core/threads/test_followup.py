"""Follow-up questions without a model: whether a rewrite reads as a query (not a statement,
not a copy of the previous answer), the deterministic merge used when it does not, and the
short prompt the rewrite is asked with. (The rewrite asked of the stand-in Ollama server is
tested in ``test_followup_rewrite.py`` and ``test_store.py``.)"""

from __future__ import annotations

import pytest

from app.core.threads.followup import (
    REWRITE_TURNS,
    copies,
    leans_on_history,
    merge_query,
    reads_as_query,
    rewrite_messages,
    standalone_query,
    validate,
)
from app.core.threads.store import Turn

FIRST_Q = "How often should the chain on a road bicycle be replaced?"
FIRST_A = "The chain should be replaced every three thousand kilometres [1]."
ANSWER = "The US imposed a 20% tariff on steel imports in 2018 [1]."


def turn(question: str = FIRST_Q, answer: str = FIRST_A, n: int = 1) -> Turn:
    return Turn(question, question, answer, n=n)


def test_validate_keeps_a_query_and_strips_its_label() -> None:
    assert validate('Standalone query: "road bicycle chain wear"', "why?") == (
        "road bicycle chain wear"
    )
    assert validate("According to the sources, 3000 km.", "why?") is None


def test_validate_knows_a_copy_of_the_answer_from_a_query() -> None:
    copied = "US 20% tariff on steel imports in 2022"
    assert validate(copied, "and in 2022?", [ANSWER]) is None
    # the same words, not copied from an answer (the 20% was asked about): a query
    assert validate(copied, "and in 2022?", said=["Was the 20% tariff raised?"]) == copied


@pytest.mark.parametrize(
    "reply", ["Query: Q: changes in sed 4.8", 'Standalone search query: "sed 4.8 changes"']
)
def test_labels_are_taken_off_however_many(reply: str) -> None:
    assert validate(reply, "and in 4.8?", said=["What changed in sed 4.9?"]) in (
        "changes in sed 4.8",
        "sed 4.8 changes",
    )


def test_the_fallback_merge_keeps_version_numbers_whole() -> None:
    """ "and in 4.8?" after a question about sed 4.9 was searched as "and in 4.8? changed sed
    9": the merge split 4.9 and kept its stray 9."""
    history = [Turn("What changed in sed 4.9?", "What changed in sed 4.9?", "x", n=1)]
    assert merge_query("and in 4.8?", history) == "and in 4.8? changed sed"
    assert merge_query("and the licence?", history) == "and the licence? changed sed 4.9"
    assert validate("sed 4.9 changes", "and in 4.8?") is None  # the follow-up's 4.8 is gone


@pytest.mark.parametrize(
    ("question", "leans"),
    [
        ("Why?", True),
        ("Why does it matter?", True),
        ("And in 2022?", True),
        ("What about the rear derailleur?", True),
        ("Who painted the ceiling of the Sistine Chapel?", False),
    ],
)
def test_the_merge_adds_earlier_terms_only_to_a_follow_up_that_leans_on_them(
    question: str, leans: bool
) -> None:
    merged = merge_query(question, [turn()])
    assert (merged != question) == leans
    if leans:
        assert {"chain", "bicycle"} <= set(merged.split())


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "I'm sorry, but I cannot help with that.",
        "The chain should be replaced every three thousand kilometres [1].",  # an answer
        "Yes. It wears out. Then it damages the cassette.",
        "Chain wear. Replacement interval.",  # two sentences: an explanation
        "the of and",  # no search words
        " ".join(["chain"] * 41),  # too long to be a query
    ],
)
def test_a_reply_that_is_no_query_is_refused(reply: str) -> None:
    assert validate(reply, "why?") is None


def test_only_the_first_line_of_a_reply_is_the_query_unquoted() -> None:
    assert validate("bicycle chain wear\nBecause it stretches.", "why?") == "bicycle chain wear"
    assert validate("“road bicycle chain wear”", "why?") == "road bicycle chain wear"


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("US steel tariffs 2022", True),
        ("What tariff did the US put on steel in 2022?", True),
        ("how did the tariff change in 2022", True),
        ("The tariff was raised.", False),
        ("It rose again in 2022", False),
        ("tariff raised the rate", False),
    ],
)
def test_a_query_is_a_question_or_search_words_not_a_statement(text: str, query: bool) -> None:
    assert reads_as_query(text) is query


def test_a_copy_is_most_of_the_answers_words_in_its_order() -> None:
    assert copies("US 20% tariff on steel imports in 2018", ANSWER)
    assert not copies("steel tariff in 2022", ANSWER)
    assert not copies("steel imports", ANSWER)  # too short to tell


@pytest.mark.parametrize(
    ("question", "leans"),
    [
        ("How come?", True),
        ("capex?", True),  # too few words of its own
        ("Who painted the ceiling of the Sistine Chapel?", False),
    ],
)
def test_what_leans_on_the_conversation(question: str, leans: bool) -> None:
    assert leans_on_history(question) is leans


def test_the_merge_adds_at_most_a_few_new_terms_of_the_previous_search() -> None:
    words = "river stone lantern copper orchard meadow harbor signal violet thunder glacier ember"
    merged = merge_query("and why?", [Turn("q", words, "a", n=1)])
    assert merged == "and why? river stone lantern copper orchard meadow harbor signal"
    assert merge_query("Why chain?", [turn()]).count("chain") == 1  # not repeated
    assert merge_query("  Why?  ", []) == "Why?"  # a first turn


def test_the_rewrite_prompt_shows_the_last_turns_without_their_citation_numbers() -> None:
    history = [turn(f"question {i}?", f"answer {i} [1]. " + "x " * 400, n=i) for i in range(5)]
    messages = rewrite_messages("and then?", history)
    assert [m["role"] for m in messages] == ["system", "user"]
    prompt = messages[1]["content"]
    assert "question 0?" not in prompt and f"question {5 - REWRITE_TURNS}?" in prompt
    assert "[1]" not in prompt
    assert "…" in prompt  # each earlier answer cut short
    assert prompt.rstrip().endswith("Follow-up: and then?\n\nStandalone search query:")


def test_a_first_turn_searches_as_typed_and_rewriting_off_uses_the_merge() -> None:
    first = standalone_query("  What is compost?  ", [], host="http://127.0.0.1:9", model="m")
    assert (first.query, first.method) == ("What is compost?", "as_typed")
    off = standalone_query("Why?", [turn()], host="http://127.0.0.1:9", model="m", enabled=False)
    assert off.method == "fallback" and off.note == "rewriting is off"
    assert off.query == merge_query("Why?", [turn()])
    own = standalone_query(
        "Who painted the ceiling of the Sistine Chapel?",
        [turn()],
        host="http://127.0.0.1:9",
        model="m",
        enabled=False,
    )
    assert own.method == "as_typed" and "reads as one of its own" in own.note
