""" "Supported" means the files answer the question: an answer that only restates it, or
repeats passage text around what it asks for, is never green."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from app.core.types import Support
from app.core.verdict.judge import RESTATES, Verdict, judge
from app.core.verdict.marks import mark_sentences
from app.core.verdict.question import dated_elsewhere, defined_names, unnegated

STRONG = Support(True, 0.9, "A passage in your files closely matches the question.")


@dataclass(frozen=True)
class Passage:
    n: int
    text: str


def verdict_of(answer: str, source: Passage, question: str, title: str = "") -> Verdict:
    """The verdict on ``answer`` from ``source`` alone, whose file is named ``title``: the
    verdict reads the passage text behind each backed sentence, as it does in the app."""
    marks = mark_sentences(answer, [source])
    return judge(STRONG, marks, question=question, passages={source.n: (source.text, title)})


UNIFLOW = Passage(
    1,
    "The uniflow engine is an attempt to fix an issue that arises in the cycle of a "
    "reciprocating steam engine. It removes the counterflow cycle, in which steam reverses "
    "direction in the cylinder.",
)
STEYMANN = Passage(
    1,
    "In Steymann v Staatssecretaris van Justitie, the German man claimed the right to live in "
    "Netherlands where he was a volunteer plumber.",
)
COMPLEXITY = Passage(
    1,
    "The P versus NP problem is one of the most important open questions in theoretical "
    "computer science.",
)
BIG_O = Passage(
    1, "An algorithm taking T(n) = 7n2 + 15n + 40 steps is written as O(n2) in big O notation."
)


@pytest.mark.parametrize(
    ("question", "answer", "source"),
    [
        (
            "Which cycle does the uniflow engine try to fix an issue with?",
            "The uniflow engine is an attempt to fix an issue that arises in the cycle of a "
            "reciprocating steam engine [1].",
            UNIFLOW,
        ),
        (
            "In which case did a German man claim the right to live in the Netherlands as a "
            "volunteer plumber?",
            "The German man claimed the right to live in Netherlands where he was a volunteer "
            "plumber [1].",
            STEYMANN,
        ),
        (
            "How is T(n) = 7n2 + 15n + 40 written in big O notation?",
            "The answer is: T(n) = 7n2 + 15n + 40 [1].",
            BIG_O,
        ),
    ],
)
def test_an_answer_that_restates_the_question_is_never_green(
    question: str, answer: str, source: Passage
) -> None:
    marks = mark_sentences(answer, [source])
    assert all(m.supported for m in marks if m.kind == "claim")  # backed, yet no answer
    verdict = judge(STRONG, marks, question=question)
    assert verdict.level == "unsupported" and not verdict.supported
    assert verdict.reason.startswith(RESTATES)


@pytest.mark.parametrize(
    ("question", "answer", "source"),
    [
        (
            "Which cycle does the uniflow engine try to fix an issue with?",
            "It removes the counterflow cycle [1].",
            UNIFLOW,
        ),
        (
            "In which case did a German man claim the right to live in the Netherlands as a "
            "volunteer plumber?",
            "In Steymann v Staatssecretaris van Justitie, the German man claimed the right to "
            "live in Netherlands [1].",
            STEYMANN,
        ),
        (
            "How is T(n) = 7n2 + 15n + 40 written in big O notation?",
            "It is written as O(n2) in big O notation [1].",
            BIG_O,
        ),
        (
            "What is one of the most important open questions in theoretical computer science?",
            "The P versus NP problem is one of the most important open questions in theoretical "
            "computer science [1].",
            COMPLEXITY,
        ),
    ],
)
def test_an_answer_that_supplies_what_is_asked_stays_green(
    question: str, answer: str, source: Passage
) -> None:
    verdict = judge(STRONG, mark_sentences(answer, [source]), question=question)
    assert verdict.level == "supported", verdict.reason


def test_an_echo_of_an_unanswerable_question_is_not_green() -> None:
    """The issue's negative: "the least important open question" asked, the answer quotes the
    question back (and flips "most" to "least")."""
    question = "What is one of the least important open questions in theoretical computer science?"
    answer = (
        "The least important open question in theoretical computer science is the answer to the "
        "question 'What is one of the least important open questions' [1]."
    )
    verdict = judge(STRONG, mark_sentences(answer, [COMPLEXITY]), question=question)
    assert verdict.level != "supported"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("When did the archive open?", "The archive opened [1]."),
        ("Who opened the archive?", "The archive was opened [1]."),
        ("How many records does the archive hold?", "The archive holds records [1]."),
    ],
)
def test_each_question_shape_needs_its_own_kind_of_answer(question: str, answer: str) -> None:
    archive = Passage(
        1,
        "The archive opened in 1889. The mayor, Helena Brandt, opened the archive. "
        "The archive holds 4,000 records.",
    )
    marks = mark_sentences(answer, [archive])
    assert judge(STRONG, marks, question=question).level == "unsupported"
    assert judge(STRONG, marks).level == "supported"  # without the question: as before


def test_a_yes_no_question_is_answered_by_a_statement() -> None:
    room = Passage(1, "The reading room is not open on Sundays.")
    marks = mark_sentences("The reading room is not open on Sundays [1].", [room])
    assert judge(STRONG, marks, question="Is the reading room open on Sundays?").supported


PACKETS = Passage(
    1,
    "Packet switching was used in the early days of computer networks. In the 1980s it "
    "carried traffic on the ARPANET and on British university networks.",
)


def test_a_where_question_needs_a_place_not_a_time() -> None:
    """Seen on real generations: a "where" answered with "in the early days" was green."""
    q = "Where was the packet switching used in the 1980s?"
    echo = "The packet switching was used in the 1980s, in the early days of networks [1]."
    v = judge(STRONG, mark_sentences(echo, [PACKETS]), question=q)
    assert v.level == "unsupported" and v.reason.startswith(RESTATES)
    placed = (
        "In the 1980s it carried traffic on the ARPANET and on British university networks [1]."
    )
    assert judge(STRONG, mark_sentences(placed, [PACKETS]), question=q).level == "supported"


HUGUENOT = Passage(
    1,
    "The Huguenot Street Historic District in New Paltz, New York, holds stone houses built "
    "by French Protestant settlers.",
)


def test_an_answer_about_something_else_is_never_green() -> None:
    """Seen on real generations: "Where is D'Olier Street?" answered (backed, green) from a
    passage on another street. Neither the answer nor its passage names D'Olier."""
    q = "Where is D'Olier Street?"
    about_else = "The Huguenot Street Historic District is in New Paltz, New York [1]."
    marks = mark_sentences(about_else, [HUGUENOT])
    assert all(m.supported for m in marks)
    passages = {1: (HUGUENOT.text, "huguenot street")}
    v = judge(STRONG, marks, question=q, passages=passages)
    assert v.level == "unsupported" and "“D'Olier”" in v.reason and "something else" in v.reason
    # the subject left to a pronoun is fine when the backing passage names it
    dublin = Passage(1, "D'Olier Street is a street in Dublin, south of the River Liffey.")
    marks = mark_sentences("It is in Dublin, south of the River Liffey [1].", [dublin])
    v = judge(STRONG, marks, question=q, passages={1: (dublin.text, "streets")})
    assert v.level == "supported"


def test_a_company_named_in_two_words_is_found_in_a_file_name_that_joins_them() -> None:
    """A filing's passages seldom repeat the company's name; its file name does, as one word
    ("BESTBUY_2017_10K.pdf"). Another company's filing still leaves the answer about something
    else."""
    q = "Which boards does Mr. Joly serve on, according to Best Buy's 10-K?"
    joly = Passage(1, "Mr. Joly also serves on the Board of Trustees of the Minnesota Orchestra.")
    answer = "He serves on the board of the Minnesota Orchestra [1]."
    assert verdict_of(answer, joly, q, "BESTBUY_2017_10K.pdf").level == "supported"
    other = verdict_of(answer, joly, q, "WALMART_2017_10K.pdf")
    assert other.level == "unsupported" and "“Best”, “Buy's”" in other.reason


HASH = Passage(1, "Use Hash#compact to remove nil values from a hash. It returns a new hash.")


def test_an_answer_that_declines_and_then_answers_is_not_green() -> None:
    """Seen on real generations: "The sources do not contain the answer." followed by the
    answer, shown green. The model's own words say it is not vouched for: neutral, not green."""
    reply = "The sources do not contain the answer. Use Hash#compact to remove nil values [1]."
    v = judge(STRONG, mark_sentences(reply, [HASH]), question="How do I drop nil values?")
    assert v.level == "no_answer" and "answers anyway" in v.reason


def test_source_markup_pasted_back_is_not_a_claim() -> None:
    reply = '<source n="1" file="hash.md">\nUse Hash#compact to remove nil values [1].\n</source>'
    marks = mark_sentences(reply, [HASH])
    assert [m.kind for m in marks] == ["meta", "claim", "meta"]
    assert judge(STRONG, marks, question="How do I remove nil values?").level == "supported"


MSPS = Passage(1, "The Parliament has 129 MSPs: 73 constituency MSPs and 56 regional members.")


def test_the_answer_is_framing_does_not_hide_a_backed_number() -> None:
    """Seen on real generations: "The answer is 73." was 'no source contains this' because
    the framing word "answer" counted as a claim word no passage holds."""
    q = "What is the number of Constituency MSPs?"
    assert judge(STRONG, mark_sentences("The answer is 73.", [MSPS]), question=q).supported
    wrong = judge(STRONG, mark_sentences("The answer is 75.", [MSPS]), question=q)
    assert wrong.level == "unsupported"


# A balance sheet as PDF text comes out: each label on its line, its figures on the lines below.
BALANCE_SHEET = Passage(
    3,
    "LIABILITIES AND STOCKHOLDERS' EQUITY\nCurrent liabilities\nAccounts payable\n $\n"
    "302,578 \n $\n255,028 \nConstruction payable\n311,793 \n474,807 \n"
    "Other accrued liabilities\n2,151,054 \n2,114,635 \nTotal current liabilities\n2,948,882 \n",
)
PAYABLE = "What is the year end FY2018 amount of accounts payable for MGM Resorts?"


@pytest.mark.parametrize(
    "answer",
    ["The answer is 2,151,054 [3].", "Accounts payable were 2,151,054 [3].", "2,151,054."],
)
def test_a_figure_the_passage_gives_for_another_line_is_not_an_answer(answer: str) -> None:
    """A real small model's answer: the figure is in the passage, so the sentence is backed,
    but it is the figure of "Other accrued liabilities", not of accounts payable."""
    marks = mark_sentences(answer, [BALANCE_SHEET])
    assert [m.supported for m in marks if m.kind == "claim"] == [True]
    verdict = verdict_of(answer, BALANCE_SHEET, PAYABLE)
    assert verdict.level == "unsupported"
    assert "“Other accrued liabilities”" in verdict.reason and "[3]" in verdict.reason


@pytest.mark.parametrize(
    ("question", "answer", "source"),
    [
        (PAYABLE, "The answer is 302,578 [3].", BALANCE_SHEET),
        (PAYABLE, "Accounts payable were $302,578 [3].", BALANCE_SHEET),
        (
            "What is the number of Constituency MSPs?",
            "The answer is 73 [1].",
            Passage(1, "Of the 129 MSPs, 73 are elected to represent constituencies."),
        ),
    ],
)
def test_a_figure_given_for_what_the_question_asks_is_an_answer(
    question: str, answer: str, source: Passage
) -> None:
    # the file's name, which the question names
    verdict = verdict_of(answer, source, question, "MGM Resorts 2018 10K")
    assert verdict.level == "supported", verdict.reason


SCOTLAND = Passage(
    1,
    "The Scottish Parliament has the power to legislate in all areas that are not explicitly "
    "reserved to Westminster. Its powers as a devolved legislature were set out in the "
    "Scotland Act 1998.",
)


def test_a_what_act_question_is_answered_only_by_naming_the_act() -> None:
    """A real small model's green answer: the passage names the act, the answer only repeats
    the passage around it."""
    q = "What act set out the Parliament's powers as a devolved legislature?"
    around = (
        "The Scottish Parliament has the power to legislate in all areas that are not "
        "explicitly reserved to Westminster [1]."
    )
    v = verdict_of(around, SCOTLAND, q, "scotland")
    assert v.level == "unsupported" and v.reason.startswith(RESTATES)
    assert "which act" in v.reason
    named = "The Parliament's powers were set out in the Scotland Act 1998 [1]."
    v = verdict_of(named, SCOTLAND, q, "scotland")
    assert v.level == "supported", v.reason


def test_a_table_row_on_one_line_labels_its_figures_and_prose_is_left_alone() -> None:
    rows = Passage(
        2, "Accounts payable $ 302,578 255,028\nOther accrued liabilities 2,151,054 2,114,635"
    )
    title = "MGM Resorts 2018 10K"
    wrong = verdict_of("2,151,054 [2].", rows, PAYABLE, title)
    assert wrong.level == "unsupported" and "“Other accrued liabilities”" in wrong.reason
    right = verdict_of("302,578 [2].", rows, PAYABLE, title)
    assert right.level == "supported", right.reason
    # in prose a sentence may give the figure of what the one before it named
    oslo = Passage(1, "Oslo is the capital of Norway. It has 700,000 inhabitants.")
    v = verdict_of("700,000 [1].", oslo, "How many people live in the capital?")
    assert v.level == "supported", v.reason


LEASE = Passage(
    1,
    "# Lease The lease runs until 30 June 2027 and renews for one year unless either side "
    "gives two months notice. Pets are allowed with the landlord's written consent.",
)


def test_a_when_question_is_not_answered_by_a_name_alone() -> None:
    """Seen with a real small model: the follow-up "and when does it end?" got the previous
    answer again, and "the Lease", capitalised, passed for the time asked for."""
    q = "and when does it end?"
    repeat = (
        "The source [n] is a quote from the Lease, which says that pets are allowed with the "
        "landlord's written consent."
    )
    v = verdict_of(repeat, LEASE, q, "lease")
    assert v.level == "unsupported" and v.reason.startswith(RESTATES)
    dated = "The lease runs until 30 June 2027 [1]."
    assert verdict_of(dated, LEASE, q, "lease").level == "supported"
    # a name that gives the time still does
    reign = Passage(2, "The palace was finished under Louis XIV, after twenty years of work.")
    v = verdict_of("It was finished under Louis XIV [2].", reign, "When was the palace finished?")
    assert v.level == "supported", v.reason


def test_a_name_the_question_defines_in_a_parenthesis_is_its_own_word() -> None:
    question = (
        "What is FY2021 operating income + depreciation and amortization from the cash flow "
        "statement (unadjusted EBITDA) in USD millions?"
    )
    assert defined_names(question) == {"ebitda"}
    assert defined_names("Who founded the EU?") == frozenset()


def test_a_negated_why_question_needs_passages_that_negate_its_verb() -> None:
    question = "Why did the French not settle in Louisiana?"
    assert unnegated(question, ["The French settled in Louisiana in 1699."]) == ("not settle", "")
    assert (
        unnegated(question, ["The French did not settle there, as the swamps spread fever."])
        is None
    )
    # a negation in a condition is no premise the question asks about
    conditional = (
        "Does the firm have an improving margin? If margin is not a useful metric, explain why."
    )
    assert unnegated(conditional, ["Margins rose."]) is None


def test_a_date_the_question_states_is_a_premise_when_the_passages_date_things_otherwise() -> None:
    """The question's year or decade, absent from passages that give other dates of the same
    kind, is a premise the answer took; a year inside the question's decade, a decade holding
    its year, or passages that give no date at all leave it be."""
    table = ["Inventories | 2018 | 2017\n2,721 | 2,667"]
    assert dated_elsewhere("What were FY2019 inventories?", table) == ("2019", "2018")
    assert dated_elsewhere("What were FY2018 inventories?", table) is None
    assert dated_elsewhere("What happened in the 1970s?", ["In 1975 the plant opened."]) is None
    assert dated_elsewhere("What happened in 1754?", ["In the 1750s the fort was built."]) is None
    assert dated_elsewhere("What happened in 1754?", ["The fort was built early on."]) is None
    # a count the passages write with a comma is no other date: "1,500" gives the 1500 asked
    assert dated_elsewhere("How many of the 1500 men died?", ["Of 1,500 men in 1754"]) is None
    # a year is no decade: "1990" beside "the 1970s" is another kind of date
    assert dated_elsewhere("What happened in the 1970s?", ["In 1990 it closed."]) is None
