"""The facts a sentence commits to (figures, names, negations, opposites) and how a passage
span fails to back them: the words that carry a claim are few, so each is compared."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from app.core.verdict.facts import Facts, conflicts, facts, merge
from app.core.verdict.marks import mark_sentences
from app.core.verdict.names import alike, with_peoples
from app.core.verdict.opposites import opposed_about
from app.core.verdict.tokens import tokens


def found(claim: str, span: str, **kw: object) -> list[str]:
    """The checks that flag ``claim`` against ``span``."""
    return [f.check for f in conflicts(facts(claim), facts(span), **kw)]


def test_a_sentence_commits_to_its_figures_names_negations_and_counts() -> None:
    f = facts("Rollo did not swear fealty to Charles in May 911, and three waves came.")
    assert {"911", "3", "may"} <= f.numbers  # digits, number words, a month
    assert "charl" in f.names and "rollo" not in f.names  # a sentence's first word is no name
    assert ("rollo", "swear") in f.negations and "swear" in f.negated
    assert ("3", "wave") in f.counted
    assert not f.pronoun and facts("He left.").pronoun


def test_contractions_are_a_verb_and_a_not() -> None:
    words = [t.word for t in tokens("It didn't work, we cannot go.")]
    assert words == ["It", "did", "not", "work", "we", "can", "not", "go"]


def test_one_as_a_pronoun_is_no_figure() -> None:
    assert "1" not in facts("The one you are in is small.").numbers
    assert "1" in facts("It took one year.").numbers
    # nor is "at first" (at the start) the first of a count
    assert "1" not in facts("It was held in 911, at first as a fiefdom.").numbers
    assert "1" in facts("He came first in the race.").numbers


def test_a_changed_figure_is_flagged_and_the_reason_says_what_the_passage_has() -> None:
    [finding] = conflicts(facts("It was completed in 1889."), facts("It was completed in 1890."))
    assert finding.check == "figure"
    assert finding.reason == "the passage does not say 1889 (it has 1890)"
    assert found("It was completed in 1889.", "It was completed in 1889 for the fair.") == []


def test_figures_match_by_value_in_any_writing() -> None:
    assert found("There were three waves.", "There were 3 waves of attacks.") == []
    assert found("It cost three thousand pounds.", "It cost 3,000 pounds.") == []
    assert found("It cost 1.2 bn pounds.", "It cost 1,200,000,000 pounds.") == []
    assert found("Revenue was $1,577 million.", "Revenue 1,577") == []  # a table in millions
    # a passage that states its scale allows that one only
    assert found("Revenue was $1,577 million.", "Revenue 1,577", table_scale=10**3) == ["figure"]


def test_a_count_of_the_same_thing_that_differs_is_flagged() -> None:
    assert found("The city had 4 gates.", "The city had 3 gates and 2 towers.") == ["figure"]


def test_the_word_after_a_list_of_figures_counts_each_of_them() -> None:
    listed = "During 2022 and 2021 the dividend was $0.55, $0.50 and $0.45 per share, respectively."
    assert found("The dividend was $0.55 per share in 2022.", listed) == []
    assert found("The dividend was $0.60 per share in 2022.", listed) == ["figure"]
    # a figure before a comma, with no "and" closing a list, is another phrase's
    assert ("2019", "peopl") not in facts("In 2019, 500 people came.").counted


def test_a_figure_elsewhere_in_the_passage_says_where_it_is() -> None:
    passage = facts("Construction began in 1887. The tower was completed later. It opened in 1889.")
    [finding] = conflicts(
        facts("The tower was completed in 1889."),
        facts("The tower was completed later."),
        passage=passage,
    )
    assert finding.check == "figure_place" and "1889" in finding.reason


def test_a_name_the_span_lacks_is_flagged_unless_it_is_said_another_way() -> None:
    assert found("Rollo swore fealty to Charles.", "Rollo swore fealty to the king.") == ["name"]
    assert found("The French army won.", "The army of France won.") == []  # a demonym
    assert found("The EU agreed to the plan.", "The European Union agreed to the plan.") == []
    assert alike("french", {"franc"}) and not alike("french", {"spain"})


def test_a_passage_naming_a_country_holds_the_words_for_its_people() -> None:
    """What coverage reads of a passage sentence: "France" holds a claim's "French"."""
    assert {"franc", "french", "war"} <= with_peoples({"franc", "war"})
    assert with_peoples({"war", "societi"}) == {"war", "societi"}


def test_a_long_name_transliterated_another_way_is_the_same_name() -> None:
    claim = "Liu Heima served Ögedei Khan."
    assert found(claim, "Liu Heima served Ogödei Khan.") == []  # one letter off
    assert found(claim, "Liu Heima served Tolui Khan.") == ["name"]
    assert found("The treaty was signed by Prussia.", "The treaty was signed by Russia.") == [
        "name"
    ]  # a first letter added makes another country


def test_a_pronoun_in_the_span_may_be_named_just_before_it() -> None:
    context = facts("John Smith lived in Leeds.")
    claim, span = "In 1920 Smith moved away.", "In 1920 he moved away."
    assert found(claim, span, context=context) == []
    assert found(claim, span) == ["name"]


def test_the_sources_own_title_may_go_unsaid() -> None:
    claim, span = "In Paris the tower stands 330 m tall.", "The tower stands 330 m tall."
    assert found(claim, span) == ["name"]
    assert found(claim, span, titled=frozenset({"pari"})) == []


def test_a_negation_added_or_dropped_is_flagged_with_the_word_it_negates() -> None:
    [added] = conflicts(facts("The rule is not enforced."), facts("The rule is enforced strictly."))
    assert added.check == "negation" and "'not' about 'enforced'" in added.reason
    [dropped] = conflicts(facts("The rule is enforced."), facts("The rule is not enforced."))
    assert dropped.reason == "the passage says the opposite ('not' about 'enforced')"
    assert found("Not only the king but also the queen came.", "The king and the queen came.") == []


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("The bill passed.", "The bill failed in the senate."),
        ("Sales increased in 2020.", "Sales decreased in 2020."),
        ("It happened before the war.", "It happened after the war."),
        (
            "Extra elections are held in addition, even when held within six months.",
            "Extra elections are in addition, unless held within six months.",
        ),
        # the words of prescriptions, settings, statements and minutes
        ("Take the tablet before meals.", "Take the tablet after meals."),
        ("Disable two-factor authentication.", "Enable two-factor authentication."),
        ("The budget for testing was rejected.", "The budget for testing was approved."),
        ("Amlodipine was stopped in May.", "Amlodipine was started in May."),
        ("The train departs at 07:35.", "The train arrives at 07:35."),
    ],
)
def test_opposites_count_like_a_negation(claim: str, span: str) -> None:
    assert found(claim, span) == ["opposite"]


def test_a_negated_word_agrees_with_its_opposite() -> None:
    assert found("The bill did not pass.", "The bill failed in the senate.") == []


def test_the_same_word_negated_is_left_to_the_negation_check() -> None:
    """ "rather than opening the file" against "visudo opens the file": not the opposite
    "opens" of "not opening", which would read as a contradiction; what the negation check
    makes of it stands."""
    assert "opposite" not in found(
        "Use visudo rather than opening the file in an editor.",
        "visudo opens the file in an editor that checks the syntax.",
    )


def test_a_computed_figure_is_backed_when_the_sentence_says_it_computes() -> None:
    span = "Operating income was 1,196 and depreciation and amortization was 636."
    assert found("Operating income of 1,196 plus depreciation of 636 gives 1,832.", span) == []
    assert found("The company made 1,832 that year.", span) == ["figure"]  # says no computing


def test_a_percentage_is_worked_out_as_one_not_as_a_bare_ratio() -> None:
    """Costs of $100 million on revenue of $1,200 million are 8.3% of it; "12%" is only the
    bare ratio 1,200 / 100, and costs of $1,188 million are not "12% below" revenue of $1,200
    million (1,200 - 1,188): a percentage is a percentage of figures, a change in percent, or
    the sum or difference of two percentages."""
    span = "Revenue was $1,200 million and costs were $100 million."
    claim = "Costs of $100 million were {} of the total revenue of $1,200 million."
    assert found(claim.format("about 8.3%"), span) == []
    for wrong in ("12%", "12 percent", "12 pct"):
        assert found(claim.format(wrong), span) == ["figure"], wrong
    assert found(claim.format("a twelfth, 0.083"), span) == []  # a ratio written as one
    below = "Revenue was $1,200 million and costs were $1,188 million."
    assert found("Costs of $1,188 million were 12% below the total of $1,200 million.", below)
    assert not found("Costs of $1,188 million were 1% below the total of $1,200 million.", below)
    margins = "The margin was 30% in 2021 and 34% in 2022."
    assert not found("The margin went from 30% to 34%, a change of 4% in all.", margins)
    assert facts("a margin of 34.6% and 8 per cent of 1,200").percents == {"34.6", "8"}


def test_facts_of_two_spans_taken_together_back_what_each_gives() -> None:
    both = merge([facts("Built in 1889."), facts("Designed by Eiffel.")])
    assert isinstance(both, Facts)
    claim = facts("It was built in 1889 by Eiffel.")
    assert conflicts(claim, both) == []
    assert [f.check for f in conflicts(claim, facts("Built in 1889."))] == ["name"]
    one = facts("Alone.")
    assert merge([one]) is one


@dataclass
class Passage:
    n: int
    text: str
    label: str = ""


def test_a_date_in_a_table_parts_heading_path_need_not_be_in_its_rows() -> None:
    """A balance sheet's later part holds its rows; its heading path holds the date its
    columns are for. A claim about that date is backed by the row; another date is not."""
    rows = (
        "Accrued expenses | 315,094 | 197,632\n"
        "Total current liabilities | 5,466,312 | 4,586,657\n"
        "Non-current content liabilities | 3,329,796 | 2,894,654"
    )
    heads = "NETFLIX 2017 10K Consolidated Balance Sheets › As of December 31, 2017 | 2016"
    claim = "At December 31, 2017, total current liabilities were $5,466,312 thousand [1]."
    (mark,) = mark_sentences(claim, [Passage(1, rows, heads)])
    assert mark.supported, mark.reason
    (mark,) = mark_sentences(claim, [Passage(1, rows, "NETFLIX 2017 10K")])
    assert not mark.supported and "december" in mark.reason
    (mark,) = mark_sentences(claim.replace("2017", "2019"), [Passage(1, rows, heads)])
    assert not mark.supported and "2019" in mark.reason


def test_a_scale_the_heading_path_states_is_the_rows_scale() -> None:
    """A table part under its statement's "(in thousands)": its 5,466,312 is $5,466 million,
    never $5,466,312 million, which a row without a stated scale could be."""
    rows = "Accrued expenses | 315,094 | 197,632\nTotal current liabilities | 5,466,312 | 4,586,657"
    scaled = "Balance Sheets › (in thousands, except per share data) As of December 31,"
    wrong = "Total current liabilities were $5,466,312 million [1]."
    (mark,) = mark_sentences(wrong, [Passage(1, rows, scaled)])
    assert not mark.supported
    (mark,) = mark_sentences(wrong, [Passage(1, rows, "Balance Sheets")])
    assert mark.supported, mark.reason  # read at millions: a table's scale may be any
    right = "Total current liabilities were about $5,466 million [1]."
    (mark,) = mark_sentences(right, [Passage(1, rows, scaled)])
    assert mark.supported, mark.reason


def test_one_figure_at_two_scales_is_checked_at_each() -> None:
    """ "23.3 million members and $23.3 billion" against a passage of 23.3 million members:
    the billion is not backed, neither by the stated figure nor by its value read at a
    table's scale (23,300,000 in thousands)."""
    members = facts("The company added 23.3 million streaming members during the year.")
    both = "Netflix added 23.3 million streaming members and earned $23.3 billion in 2017."
    found = conflicts(facts(both), members)
    assert [f.reason for f in found if "23.3" in f.reason] == [
        "the passage gives 23.3 at another scale"
    ]
    one = "Netflix added 23.3 million streaming members in 2017."
    assert not any("23.3" in f.reason for f in conflicts(facts(one), members))
    rounded = facts("Revenue reached about $11.7 billion.")
    assert conflicts(rounded, facts("Revenue grew to $11.69 billion.")) == []


def test_the_docstrings_computed_total_with_unit_letters_is_backed() -> None:
    claim = "The sum of $15,441M and $2,165M is $17,606M."
    span = "Segment A made $15,441M and segment B made $2,165M in 2020."
    assert found(claim, span) == []


def test_a_first_word_in_capitals_is_still_a_name() -> None:
    """ "NSFUS was created to link researchers": a sentence's first word is capitalised
    anyway, but one in capitals is a name the passage must hold (it names NSFNET)."""
    passage = Passage(
        1,
        "The NSFNET program began in 1985. Initially created to link researchers to the "
        "nation's supercomputing centers, it grew into a backbone.",
    )
    claim = (
        "NSFUS was initially created to link researchers to the nation's supercomputing "
        "centers [1]."
    )
    (mark,) = mark_sentences(claim, [passage])
    assert not mark.supported and "NSFUS" in mark.reason
    (mark,) = mark_sentences(claim.replace("NSFUS", "NSFNET"), [passage])
    assert mark.supported, mark.reason


@pytest.mark.parametrize(
    ("claim", "backed"),
    [
        ("Ban Ki-moon was Secretary General of the United Nations [1].", True),
        ("Ban Ki-moon was Secretary General of the Arab League [1].", False),
    ],
)
def test_initials_stand_for_each_part_of_a_run(claim: str, backed: bool) -> None:
    """ "U.N." names the United Nations also at the end of "Secretary General of the United
    Nations"; it names no other body."""
    passage = Passage(1, "U.N. Secretary General Ban Ki-moon studied at Harvard.")
    (mark,) = mark_sentences(claim, [passage])
    assert mark.supported is backed, mark.reason


def test_initials_stand_for_a_run_that_starts_lower_case() -> None:
    marks = mark_sentences(
        "In 2021 the MSPs voted to pass the budget bill [1].",
        [
            Passage(
                1, "In 2021 the members of the Scottish Parliament voted to pass the budget bill."
            )
        ],
        question="What did the MSPs vote for in 2021?",
    )
    assert marks[0].supported


def test_even_is_a_concession_only_before_when_or_if() -> None:
    span = "Extra elections are in addition, unless held within six months."
    assert found("Extra elections come in addition, even more often.", span) == []


def test_an_opposite_about_the_same_things_in_another_sentence_is_found() -> None:
    claim = "Set the options inside the configure block of each environment config file."
    other = "Add the options just outside of the standard configure block in each config file."
    assert (
        opposed_about(claim, other) == "the passage says 'outside' of the same things, not 'inside'"
    )
    # a sentence about other things, though it has the opposite word, says nothing of it
    assert opposed_about(claim, "Keep your coat outside of the house in summer.") is None


def test_a_run_of_capitalised_words_ends_with_its_sentence() -> None:
    """ "… the European Union. The European Court of Justice …" is two names with their own
    initials (EU, ECJ), not one run "EUTECJ"; and facts merged from two spans keep the runs of
    both, so a sentence resting on two still knows the initials of each."""
    two = facts("It acts under the European Union. The European Court of Justice rules.")
    initials = {letters for letters, _ in two.runs}
    assert {"eu", "ecj"} <= initials and not any("euecj" in i for i in initials)
    merged = merge([facts("It acts under the European Union."), facts("The Court rules.")])
    assert "eu" in {letters for letters, _ in merged.runs}


@pytest.mark.parametrize(
    ("claim", "span", "named"),
    [
        ("Her BP was 162/98 mmHg.", "Her blood pressure was 162/98 mmHg.", True),
        ("Contact HR by 5 May.", "Contact human resources by 5 May.", True),
        # no words in a row with those initials
        ("Her BP was 7.1 mmol/L.", "Her blood sugar was 7.1 mmol/L.", False),
        # small words stand for no initials: "to him" is no "HR"
        ("Give the form to HR by 5 May.", "Give the form to him by 5 May.", False),
    ],
)
def test_initials_in_capitals_stand_for_words_written_out(
    claim: str, span: str, named: bool
) -> None:
    assert ("name" not in found(claim, span)) is named
