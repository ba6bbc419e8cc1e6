"""Figures as values: what number a written figure is, and when a claim's figure is the
passage's ("1,577 million" is a table's bare "1,577"; "1,580" rounds 1,577)."""

from __future__ import annotations

import pytest

from app.core.verdict.figures import (
    computed,
    same_value,
    scale_word,
    scaled,
    stated_scale,
    value_of,
)


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("1,577", "1577"),
        ("1.50", "1.5"),
        ("3.0", "3"),
        ("$1,305M", "1305000000"),
        ("2.5bn", "2500000000"),
        ("€40k", "40000"),
        ("14.6%", "14.6"),
        ("(1,373)", "1373"),
        ("1860s", "1860"),
        ("10th", "10"),
        ("three", "3"),
        ("Twelve", "12"),
    ],
)
def test_a_figure_as_written_is_read_as_its_value(written: str, value: str) -> None:
    assert value_of(written) == value


@pytest.mark.parametrize("written", ["abc", "1,5", "", "one-third", "3-4"])
def test_what_is_no_figure_has_no_value(written: str) -> None:
    assert value_of(written) is None


def test_scale_words_multiply() -> None:
    assert scale_word("Million") == 10**6 and scale_word("bn") == 10**9
    assert scale_word("apples") is None
    assert scaled("1.5", 10**6) == "1500000"
    assert scaled("0.25", 10) == "2.5"


def test_equal_values_and_roundings_to_three_digits_or_more_are_one_figure() -> None:
    assert same_value("1577", "1577")
    assert same_value("1580", "1577")  # rounded to the claim's last digit
    assert same_value("14.6", "14.62")
    assert not same_value("1600", "1577")  # two digits say too little to be a rounding
    assert not same_value("1577", "1580")  # the claim is more precise than the passage
    assert not same_value("1889", "1890")
    assert same_value("may", "may") and not same_value("may", "june")  # months compare as words


def test_a_bare_table_figure_is_read_at_the_tables_scale() -> None:
    million = "1577000000"
    assert same_value(million, "1577")  # a balance sheet in millions
    assert same_value("5466000000", "5466312")  # "about $5,466 million" of a table in thousands
    assert not same_value("1577", "1577000000")  # never the other way round
    # a passage that states its scale allows that scale only
    assert same_value(million, "1577", table_scale=10**6)
    assert not same_value(million, "1577", table_scale=10**3)


def test_a_passage_states_its_scale_only_when_it_names_one() -> None:
    assert stated_scale("Consolidated balance sheet (in thousands, except per share data)") == (
        10**3
    )
    assert stated_scale("(In millions)") == 10**6
    assert stated_scale("Figures in millions, shares in thousands") is None  # two: neither
    assert stated_scale("Revenue grew fast.") is None


def test_a_figure_worked_out_from_the_passages_figures_is_accounted_for() -> None:
    assert computed(["17606"], ["15441", "2165"]) == []  # a sum
    assert computed(["34.6"], ["6098", "17606"]) == []  # a percentage, to the claim's precision
    assert computed(["13276"], ["15441", "2165"]) == []  # a difference
    assert computed(["999"], ["15441", "2165"]) == ["999"]  # made up
    # a worked-out figure may be worked on again: 17,606, then 6,098 of it
    assert computed(["34.6", "17606"], ["6098", "15441", "2165"]) == []
    assert computed(["17606"], ["15441"]) == ["17606"]  # one figure makes no sum
