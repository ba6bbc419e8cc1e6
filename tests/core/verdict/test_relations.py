"""What a sentence asserts, read off its dependency tree as arcs (who did what to whom, with
what), parsed with spaCy's small English pipeline."""

from __future__ import annotations

from app.core.verdict.relations import OBJ, SUBJ, Reading, Word, main_clauses, read_text, same


def reading(text: str) -> Reading:
    found = read_text(text)
    assert found is not None, "the English parser is installed with the app"
    return found


def arcs(text: str) -> set[tuple[str, str, str]]:
    return {(a.head.text, a.role, a.dep.text) for a in reading(text).arcs}


def test_who_did_what_to_whom_is_read_so_a_swap_reads_otherwise() -> None:
    one = arcs("Rollo swore fealty to Charles.")
    assert {
        ("swore", SUBJ, "Rollo"),
        ("swore", OBJ, "fealty"),
        ("swore", "prep:to", "Charles"),
    } <= one
    other = arcs("Charles swore fealty to Rollo.")
    assert ("swore", SUBJ, "Charles") in other and ("swore", SUBJ, "Rollo") not in other


def test_a_passives_by_phrase_is_its_subject_and_a_name_is_one_filler() -> None:
    found = arcs("The treaty was signed by King Charles III in 911.")
    assert ("signed", OBJ, "treaty") in found
    assert ("signed", SUBJ, "King Charles III") in found
    assert ("signed", "prep:in", "911") in found


def test_a_relative_clause_puts_its_noun_in_the_pronouns_slot() -> None:
    assert ("built", SUBJ, "community") in arcs("The community, which built Abilene, grew fast.")
    assert ("founded", OBJ, "dynasty") in arcs("The dynasty, founded in 1368, ruled China.")


def test_parallel_perfect_participles_share_their_subject() -> None:
    # the small parser hangs "having recanted" on the main clause's "quelled", as if the
    # fighting had recanted; the participle it continues says whose act it is
    found = arcs(
        "The fighting was quelled in 1598, when Henry of Navarre, having succeeded to the "
        "French throne as Henry IV, and having recanted Protestantism in favour of "
        "Catholicism, issued the Edict of Nantes."
    )
    assert ("recanted", SUBJ, "Henry") in found
    assert ("recanted", SUBJ, "fighting") not in found


def test_a_negation_marks_the_word_it_is_on() -> None:
    words = {w.text: w for w in reading("The king did not sign the treaty.").words}
    assert words["sign"].negated and not words["king"].negated


def test_a_figure_with_its_scale_word_is_one_value() -> None:
    words = {w.text: w for w in reading("The city had 2 million people.").words}
    assert words["million"].kind == "number" and words["million"].key == "2000000"
    assert "2" not in words  # the count of the scale word is no figure of its own


def test_a_percentage_holds_the_slot_of_its_sign() -> None:
    """The parse hangs "90" on "%", which is no word: the figure takes the sign's place, so
    whose share it is can be compared."""
    found = arcs("Steam turbines accounted for about 90% of the world's electric production.")
    assert {("accounted", "prep:for", "90"), ("90", "prep:of", "production")} <= found


def test_a_range_is_one_figure_compared_whole() -> None:
    """ "1862–90" is one token: one figure, its end in the start's century; a range is the same
    range, or holds a single figure, never another range."""
    words = {w.text: w for w in reading("Otto von Bismarck (1862–90) opposed colonies.").words}
    assert words["1862–90"].kind == "number" and words["1862–90"].key == "1862–1890"

    def figure(key: str) -> Word:
        return Word(key, key, "number", 0)

    assert same(figure("1883–1884"), figure("1884")) and same(figure("1884"), figure("1883–1884"))
    assert not same(figure("1883–1884"), figure("1885"))
    assert not same(figure("1919–1980"), figure("1920–1980"))
    assert same(figure("1919–1980"), figure("1919–1980"))


def test_words_are_the_same_by_stem_name_part_initials_or_value() -> None:
    def word(key: str, text: str, kind: str, parts: frozenset[str] = frozenset()) -> Word:
        return Word(key, text, kind, 0, parts=parts)

    union = word("union", "European Union", "name", frozenset({"european"}))
    assert same(word("eu", "EU", "name"), union)  # initials
    assert same(word("european", "European", "name"), union)  # a part of the name
    assert same(word("1577000000", "1,577 million", "number"), word("1577", "1,577", "number"))
    assert not same(word("1889", "1889", "number"), word("1890", "1890", "number"))
    assert not same(word("1889", "1889", "number"), word("1889", "1889", "noun"))
    assert not same(word("uk", "UK", "name"), union)


def test_a_possessive_name_is_the_name() -> None:
    words = [w for w in reading("Poland's army crossed the river.").words if w.kind == "name"]
    assert [w.key for w in words] == ["poland"]


def test_words_close_in_the_tree_are_few_hops_apart() -> None:
    r = reading("Rollo swore fealty to Charles.")
    w = {x.text: x for x in r.words}
    assert r.hops(w["Rollo"].i, w["swore"].i) == 1
    assert r.hops(w["Rollo"].i, w["Charles"].i) == 3  # swore, to, Charles
    [charles] = r.find(Word("charl", "Charles", "name", 99))
    assert charles.text == "Charles"


def test_the_words_between_two_words_are_those_on_the_tree_path() -> None:
    r = reading("Rollo swore fealty to Charles.")
    w = {x.text: x for x in r.words}
    between = r.between(w["Rollo"].i, w["Charles"].i)
    assert w["swore"].i in between and w["Rollo"].i not in between
    assert w["fealty"].i not in between  # a branch off the path
    assert r.between(w["Rollo"].i, w["swore"].i) == set()


def test_two_main_clauses_joined_by_a_comma_and_a_conjunction_are_cut_apart() -> None:
    assert main_clauses("The Normans conquered England in 1066, and their duke became king.") == [
        "The Normans conquered England in 1066",
        "their duke became king.",
    ]
    # a pronoun subject stays with the clause that names it; a list of names is no clause
    joined = "Kublai favored Buddhism, and he esteemed only the Sakya sect."
    assert main_clauses(joined) == [joined]
    listed = "He visited Paris, Lyon, and Marseille in 1990."
    assert main_clauses(listed) == [listed]
