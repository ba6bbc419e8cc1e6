"""Whether passage sentences contradict what a claim asserts: a role swapped, a slot filled
with another name or figure, a negation; and what a passage says elsewhere does not."""

from __future__ import annotations

import pytest

from app.core.verdict.attest import compatible, contradictions, linked, unattested
from app.core.verdict.relations import Reading, read_text


def reading(text: str) -> Reading:
    found = read_text(text)
    assert found is not None, "the English parser is installed with the app"
    return found


def checks(claim: str, *pool: str) -> list[str]:
    return [f.check for f in contradictions(reading(claim), [reading(p) for p in pool])]


def test_a_swapped_subject_and_object_is_a_role_contradiction() -> None:
    [first, *_] = contradictions(
        reading("Rollo swore fealty to Charles."), [reading("Charles swore fealty to Rollo.")]
    )
    assert first.check == "role"
    assert "Rollo" in first.reason and "'swore'" in first.reason


@pytest.mark.parametrize(
    "passage",
    [
        "Rollo swore fealty to Charles.",
        "Rollo swore fealty to Charles in 911.",  # says more
        "Rollo pledged fealty to Charles.",  # another verb, the same arguments in their roles
    ],
)
def test_a_passage_saying_the_same_thing_contradicts_nothing(passage: str) -> None:
    assert checks("Rollo swore fealty to Charles.", passage) == []


def test_another_name_or_figure_in_the_same_slot_contradicts() -> None:
    claim = "The Normans conquered England in 1066."
    assert checks(claim, "The Normans conquered Sicily in 1066.") == ["filler"]
    assert checks(claim, "The Normans conquered England in 1067.") == ["slot_figure"]
    found = checks(
        "The company employed 2,300 people in Leeds.",
        "The company employed 4,100 people in Leeds.",
    )
    assert found == ["slot_figure"]


def test_a_negation_every_attesting_sentence_denies_contradicts() -> None:
    assert checks("The king signed the treaty.", "The king did not sign the treaty.") == [
        "arc_negation"
    ]
    assert checks("The king did not sign the treaty.", "The king signed the treaty.") == [
        "arc_negation"
    ]


def test_the_word_that_links_the_arc_is_the_one_whose_negation_counts() -> None:
    """The passage denies the path's need and says other information is needed: its word
    linked to the path (the need it precludes) is the one read, not every "need" in it."""
    passage = (
        "This precludes the need for a dedicated path, but means that more information is "
        "needed in the packet header."
    )
    assert checks("A dedicated path is needed.", passage) == ["arc_negation"]
    assert checks("More information is needed in the packet header.", passage) == []


def test_a_sentence_about_something_else_contradicts_nothing() -> None:
    claim = "The Normans conquered England in 1066."
    assert checks(claim, "The weather in Paris was mild.") == []
    assert checks(claim) == []  # no passage sentence at all


def test_another_sentence_of_the_passage_attesting_the_arc_wins() -> None:
    """Passages state several things: one sentence that says the claim is enough."""
    claim = "The Normans conquered England in 1066."
    pool = ("The Normans conquered Sicily in 1072.", "The Normans conquered England in 1066.")
    assert checks(claim, *pool) == []


def test_only_argument_roles_conflict() -> None:
    assert not compatible("subj", "obj")
    assert not compatible("prep:to", "prep:by")
    assert compatible("subj", "subj")
    assert compatible("subj", "mod") and compatible("prep:in", "prep:on")


def test_two_figures_of_one_word_must_come_from_one_sentence() -> None:
    """Each arc is in the passage, but for different seats: the claim recombines them."""
    pool = (
        "The SNP took 16 seats from Labour.",
        "The SNP took a further eight seats from the Liberal Democrats.",
    )
    assert checks("The SNP took 16 seats from the Liberal Democrats.", *pool) == ["apart"]
    assert checks("The SNP took 16 seats from Labour.", *pool) == []
    assert checks("The SNP took eight seats from the Liberal Democrats.", *pool) == []


def test_a_denied_alternative_is_no_negation_of_the_word() -> None:
    """'X, not Y' denies Y: the claim still affirms X, as the passage does."""
    claim = "New windows open in the starting directory, not the current one."
    assert checks(claim, "New windows open in the starting directory.") == []


def test_a_main_verb_read_as_a_participle_makes_no_role() -> None:
    """'Tymnet users typically connected …' parses as users who were connected: the users
    are no object of the verb, so the passage's subject is no swapped role."""
    claim = "Tymnet users typically connected through dial-up connections."
    assert checks(claim, "Users typically connected via dial-up connections.") == []


def test_a_conjoined_verb_without_a_subject_shares_the_first_ones() -> None:
    """In "Siemens built the plant and was the main supplier to Poland", Siemens is the
    supplier too: a passage naming another supplier contradicts the second clause."""
    claim = "Siemens built the plant and was the main supplier to Poland."
    assert checks(claim, "Bosch was the main supplier to Poland.") == ["filler"]
    assert checks(claim, "Siemens was the main supplier to Poland.") == []


def test_an_opening_participle_shares_its_clauses_subject() -> None:
    """ "Chrysler ended production, moving to front-wheel drive": Chrysler moved, so a claim
    that GM did contradicts it; a participle that works as a preposition ("starting with")
    is done by no one."""
    passage = (
        "Chrysler ended production of its sedans in 1981, moving instead to a front-wheel "
        "drive lineup for 1982."
    )
    assert checks("GM moved to a front-wheel drive lineup for 1982.", passage) == ["filler"]
    settled = reading("Huguenots settled at the Cape from 1671, starting with Villion.")
    assert not [a for a in settled.arcs if a.head.text == "starting" and a.role == "subj"]


def test_a_name_no_passage_sentence_gives_the_word_is_unattested() -> None:
    """ "changes toward Japan": the passage names Japan only in another sentence, so the arc is
    unattested; a pronoun in the slot ("he died in 1259") leaves the claim's name open."""
    claim = reading("Arab oil producers linked policy changes toward Japan to peace.")
    pool = [
        reading("Arab oil producers linked any future policy changes to peace."),
        reading("Japan imported most of its oil from the Middle East."),
    ]
    assert [(a.head.text, a.dep.text) for a in unattested(claim, pool)] == [("changes", "Japan")]
    died = reading("Möngke Khan died in 1259 without a successor.")
    told = [reading("Möngke Khan led a campaign."), reading("He died in 1259 without a successor.")]
    assert unattested(died, told) == []


def test_a_word_close_by_is_no_argument_when_the_slot_is_taken() -> None:
    """ "Three-quarters were killed or submitted, 500,000 Huguenots had fled": the Huguenots
    are the ones who fled; the killed are the three-quarters, however close the words."""
    passage = reading(
        "While nearly three-quarters were killed or submitted, roughly 500,000 Huguenots had "
        "fled France."
    )
    claim = reading("Roughly 500,000 Huguenots were killed.")
    [killed] = [a for a in claim.arcs if a.head.text == "killed" and a.dep.text == "Huguenots"]
    assert not linked(killed, passage)
    assert linked(killed, reading("Roughly 500,000 Huguenots were killed or had fled France."))


def test_markdown_blanks_do_not_change_the_reading() -> None:
    plain = reading("By default, tmux opens new windows in the session's starting directory.")
    blanks = reading("By default, tmux opens new windows in the session's  starting directory  .")
    assert [(a.head.text, a.role, a.dep.text) for a in blanks.arcs] == [
        (a.head.text, a.role, a.dep.text) for a in plain.arcs
    ]


def test_a_markdown_link_reads_as_its_words() -> None:
    linked = reading("[Tailwind CSS](https://tailwindcss.com/)'s reset is called Preflight.")
    assert "Tailwind CSS" in [w.text for w in linked.words]
    assert not any("/" in w.text for w in linked.words)
