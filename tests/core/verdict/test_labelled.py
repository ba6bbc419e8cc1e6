"""Roles a contract gives its parties in brackets, and a claim that gives one party the
other's role: every word of "Bob Jones is the landlord" is in "Ann Smith (landlord) and Bob
Jones (tenant)"."""

from __future__ import annotations

import pytest

from app.core.verdict.facts import facts
from app.core.verdict.labelled import labels, role_elsewhere, said_roles

LEASE = "Lease agreement between Ann Smith (landlord) and Bob Jones (tenant) for the flat."
SALE = "This agreement is made between Acme Ltd (the “Seller”) and Beta Ltd (“Buyer”)."


def _pairs(text: str) -> set[tuple[str, str]]:
    return {(x.written, x.role) for x in labels(text) if x.bracketed}


def test_a_party_s_role_in_brackets_is_read_with_its_name() -> None:
    assert _pairs(LEASE) == {("Ann Smith", "landlord"), ("Bob Jones", "tenant")}
    assert _pairs(SALE) == {("Acme Ltd", "seller"), ("Beta Ltd", "buyer")}
    # a contract's other ways: "as", "hereinafter referred to as", a bare capitalised role
    # the text also writes in lower case
    formal = "Acme Ltd (hereinafter referred to as the “Seller”) and Beta Ltd (as Buyer) agree."
    assert _pairs(formal) == {("Acme Ltd", "seller"), ("Beta Ltd", "buyer")}
    capitals = "Ann Smith (Landlord) and Bob Jones (Tenant) agree. The tenant pays the landlord."
    assert _pairs(capitals) == {("Ann Smith", "landlord"), ("Bob Jones", "tenant")}


@pytest.mark.parametrize(
    "text",
    [
        "Use Math.floor(max) to round it down.",  # a call, not a bracket after a name
        "The Episcopal (Anglican) church and the Dutch (Calvinist) one.",  # other names
        "Frédéric Chopin (1 March 1810 – 17 October 1849) was a composer.",
    ],
)
def test_a_bracket_that_holds_no_role_is_none(text: str) -> None:
    assert _pairs(text) == set()


@pytest.mark.parametrize(
    ("passage", "claim", "flagged"),
    [
        (LEASE, "Bob Jones is the landlord.", True),
        (LEASE, "The tenant is Ann Smith.", True),
        (LEASE, "Mr Jones acts as the landlord.", True),
        (SALE, "Beta Ltd is the seller.", True),  # "Ltd" tells no party from the other
        (LEASE, "Ann Smith is the landlord.", False),
        (LEASE, "The tenant is Mr Jones.", False),
        (LEASE, "Bob Jones is the landlord's tenant.", False),
        (LEASE, "Carol White is the landlord.", False),  # a party the passage does not name
        (SALE, "Acme Ltd is the Seller.", False),
        # two parties and two roles in one sentence; a name ending a phrase
        (LEASE, "Ann Smith and Bob Jones are the landlord and tenant of the flat.", False),
        (LEASE, "The one who pays rent to the landlord is Bob Jones.", False),
        (SALE, "Beta Ltd is a seller of bricks.", False),  # "a seller", not the defined one
        # another person of the same surname; a role the passage gives in a sentence too
        (LEASE + " Mary Jones was the landlord until 2019.", "Mary Jones was the landlord.", False),
        (
            "Present: Ann Smith (chair), Bob Jones (secretary). Bob Jones was elected chair.",
            "Bob Jones is the chair.",
            False,
        ),
    ],
)
def test_a_role_given_to_the_other_party_is_flagged(
    passage: str, claim: str, flagged: bool
) -> None:
    found = role_elsewhere(said_roles(claim), labels(passage))
    assert (found is not None) == flagged, found


REPORT = "Year 8 report for Maya Okafor, Summer term. English: grade 7. Tutor: Mr Hughes."


def test_a_role_given_as_a_label_is_read_with_its_name() -> None:
    """ "Tutor: Mr Hughes." names the tutor; "English: grade 7" and "Action: Marcus to fix the
    bug" name no one (a grade, and a name that opens a sentence)."""
    found = {(x.written, x.role) for x in labels(REPORT)}
    assert ("Mr Hughes", "tutor") in found
    assert not {x for x in labels("Action: Marcus to fix the bug by 24 October.")}
    assert not [x for x in labels(REPORT) if x.role == "english"]


@pytest.mark.parametrize(
    ("claim", "flagged"),
    [
        ("Her tutor is Mr Okafor.", True),  # a name the report writes, given the tutor's role
        ("Her tutor is Mr Hughes.", False),
        ("The tutor is Mr Hughes.", False),
        ("Her tutor is Mr Patel.", False),  # a name the report does not write: the name check's
    ],
)
def test_a_labelled_role_given_to_another_name_the_passage_writes_is_flagged(
    claim: str, flagged: bool
) -> None:
    found = role_elsewhere(said_roles(claim), labels(REPORT), facts(REPORT).words)
    assert (found is not None) is flagged
    if found is not None:
        assert found.reason == "the passage names Mr Hughes the tutor, not Mr Okafor"
