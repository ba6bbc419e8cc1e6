"""An answer sentence found word for word (or nearly) in a passage, wherever the passage breaks
its lines; and code, which must stand in the passage character for character."""

from __future__ import annotations

from app.core.verdict.copies import clauses_copied, find_code, find_copy, strip_code_line

PASSAGE = (
    "The Normans\n\n"
    "The Normans were\nthe people who in the 10th and 11th centuries gave their name to "
    "Normandy, a region in France. They descended from Norse raiders."
)


def test_a_copied_sentence_is_found_across_the_passages_line_breaks() -> None:
    sentence = (
        "The Normans were the people who in the 10th and 11th centuries gave their name to "
        "Normandy."
    )
    span = find_copy(sentence, PASSAGE)
    assert span is not None
    start, end = span
    assert PASSAGE[start:end].startswith("The Normans were\nthe people")
    assert PASSAGE[start:end].endswith("gave their name to Normandy")


def test_a_near_copy_may_change_a_word_but_not_a_figure() -> None:
    """One word in ten may differ, but not a figure: the passage may hold the figure elsewhere
    in the sentence ("fell to 18% …, while its rival grew to 25%"), so a copy with its figure
    changed is read as any other sentence, where the figure's slot is compared."""
    reworded = (
        "The Normans were the folk who in the 10th and 11th centuries gave their name to Normandy."
    )
    assert find_copy(reworded, PASSAGE) is not None
    changed = (
        "The Normans were the people who in the 9th and 11th centuries gave their name to Normandy."
    )
    assert find_copy(changed, PASSAGE) is None
    share = "The company's market share in Europe fell to 25% during 2020."
    passage = (
        "The company's market share in Europe fell to 18% during 2020, while the share held by "
        "its main rival grew to 25% over the same period."
    )
    assert find_copy(share, passage) is None
    assert find_copy(share.replace("25", "18"), passage) is not None


def test_what_the_passage_does_not_hold_is_no_copy() -> None:
    assert find_copy("The Vikings settled all of Iceland within a single decade.", PASSAGE) is None
    assert find_copy("Normans were", PASSAGE) is None  # too short to count as a copy
    shuffled = "Normandy gave their name to the people in the 10th and 11th centuries."
    assert find_copy(shuffled, PASSAGE) is None


def test_a_sentence_whose_clauses_the_passage_holds_in_another_order() -> None:
    passage = "A French version was prepared in the year 1294, and sold well."
    assert clauses_copied("In the year 1294, a French version was prepared", passage)
    assert not clauses_copied("In the year 1295, a French version was prepared", passage)
    assert not clauses_copied("In the year 1294, an English version was prepared", passage)
    assert not clauses_copied("A French version was prepared in the year 1294", passage)  # one


def test_code_is_backed_only_character_for_character_whitespace_aside() -> None:
    passage = 'Read it with:\n  df = pd.read_csv("data.csv",  sep=";")\nthen go on.'
    span = find_code('df = pd.read_csv("data.csv", sep=";")', passage)
    assert span is not None and passage[span[0] : span[1]].startswith("df = pd.read_csv")
    assert passage[span[0] : span[1]].endswith('sep=";")')
    assert find_code('df = pd.read_csv("data.csv", sep=",")', passage) is None  # other code
    assert find_code("- x", passage) is None  # too short to say


def test_a_code_line_loses_the_list_marker_a_model_adds() -> None:
    assert strip_code_line("- git reset --soft HEAD~1   ") == "git reset --soft HEAD~1"
    assert strip_code_line("2) ls -la") == "ls -la"
    assert strip_code_line("    x = 1") == "    x = 1"  # indentation is kept
