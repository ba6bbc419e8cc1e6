"""What a row of the verdict's check table is: a check, its effect, its examples, a finding.

The table itself is ``checks.CHECKS`` (the rows that read a sentence's parse are in
``arc_checks``, those that read it against the question's premise in ``premise_checks``); the
checks report what they find as ``Finding``s named by their row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Effect(StrEnum):
    """What a check does to a sentence or to the answer."""

    NOT_A_CLAIM = "not a claim"  # the sentence is about the sources or is no statement
    BACKS = "backs"  # the sentence is backed by a passage span
    FLAGS = "flags"  # the claim sentence is marked unsupported, with the check's reason
    LEVEL = "level"  # the answer's level is set (no answer, unsupported) with the reason


@dataclass(frozen=True)
class Example:
    """A claim (an answer sentence or a whole answer) against a passage, and what the check
    must make of it: ``"flagged"``, ``"backed"``, ``"not a claim"`` or a verdict level."""

    claim: str
    passage: str
    outcome: str
    question: str = ""
    source: str = ""  # the passage's file name and heading, where the example needs them


@dataclass(frozen=True)
class Check:
    """One row of the table."""

    name: str
    finds: str
    reason: str  # the words a person sees (a template: the code fills in the details)
    effect: Effect
    language: str  # "any" or a language pack ("en")
    examples: tuple[Example, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Finding:
    """What a check found about a claim: the check's name and the reason in words."""

    check: str
    reason: str
