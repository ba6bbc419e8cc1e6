"""The verdict's view of words: stemmed content words and whole figures, lemmas where the
parser is there, and none of an answer's talk about its sources or its connectives."""

from __future__ import annotations

from app.core.text import stem
from app.core.verdict.terms import claim_terms, lemma_terms


def test_content_words_are_stemmed_and_figures_kept_whole() -> None:
    terms = claim_terms("The towers are 1,330 feet tall and cost 3.5 million.")
    assert {stem("towers"), "feet", "tall", "1330", "3.5", "million", "cost"} <= terms
    assert not terms & {"the", "are", "and"}


def test_an_answers_talk_about_its_sources_and_its_connectives_are_left_out() -> None:
    terms = claim_terms("In addition, according to the sources, the passage says it rained.")
    assert stem("addition") not in terms  # "In addition" connects; it names nothing
    assert not terms & {stem("sources"), stem("passage"), stem("according")}
    assert stem("rained") in terms
    assert stem("addition") in claim_terms("The addition of two rooms cost a lot.")


def test_a_connective_written_with_a_no_break_space_is_still_one() -> None:
    assert stem("addition") not in claim_terms("In\u00a0addition, it rained.")


def test_irregular_forms_meet_at_their_lemma() -> None:
    assert lemma_terms("They met in 1920 and took the train.") >= {"meet", "take", "1920"}
    assert lemma_terms("The meeting takes place.") & lemma_terms("They met.") == {"meet"}
    plain = claim_terms("They met in 1920 and took the train.")
    assert "meet" not in plain  # without the lemmas the forms differ


def test_a_contractions_tail_is_no_word() -> None:
    """ "you're" is "you are": no term "re" for a passage to lack."""
    assert claim_terms("Check which release you're on, and what they've installed.") == {
        stem("check"),
        stem("release"),
        stem("installed"),
    }
    assert stem("hr") in claim_terms("select pg_database_size('hr')")  # a quote, not a tail


def test_dotted_initials_are_one_term() -> None:
    assert "un" in claim_terms("the U.N. charter")


def test_an_ordinals_suffix_is_no_word() -> None:
    """ "every 1000th item" is the figure 1000: no term "th" for a passage's `% 1000` to lack."""
    assert claim_terms("every 1000th item and the 2nd run") == {"1000", "2", stem("item"), "run"}
    assert "th" not in claim_terms("the 19th century")


def test_hedges_and_quantifiers_say_nothing_a_passage_must_hold() -> None:
    """An answer's "it seems", "still", "every", "something like" paraphrase a passage without
    asserting anything of their own: a passage need not hold them."""
    assert claim_terms("It seems you can still use something like every flag either way.") == {
        stem("use"),
        stem("flag"),
    }
