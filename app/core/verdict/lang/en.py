"""English for the verdict's checks: the word lists the language-neutral checks look words up in.

Each list names what it is for; the checks that read it are in ``app/core/verdict/checks.py``.
Another language gets a module of its own with the same names.
"""

from __future__ import annotations

import re

from app.core.text import STOPWORDS

__all__ = ["STOPWORDS"]


def _list(text: str) -> list[str]:
    """The words of a space-separated list, in order (long lists stay readable as prose)."""
    return text.split()


def _words(text: str) -> frozenset[str]:
    """The words of a space-separated list, as a set."""
    return frozenset(text.split())


# Words an answer uses about its sources and itself: never what a claim is about.
ANSWER_FILLER = _words(
    "also may might must shall one ones s t however therefore thus yes according source sources"
    " passage passages document documents summary overall conclusion additionally furthermore"
    " moreover finally unfortunately specifically answer answers"
)
# Phrases that link sentences, or say nothing themselves.
CONNECTIVES = (
    "in addition",
    "in fact",
    "in particular",
    "in contrast",
    "in general",
    "in short",
    "in summary",
    "as a result",
    "for example",
    "for instance",
    "of course",
    "on the other hand",
    "in other words",
    # a light verb that says only that something happened: "the meeting took place in 1755"
    # is the passage's "they met in 1755"
    "take place",
    "takes place",
    "took place",
    "taken place",
    "taking place",
)
# A word that negates the word it modifies ("never", "not"), and determiners that negate
# their noun ("no troops", "neither side").
NEGATORS = _words("not n't never no nowhere neither nor")
NEGATING_DETERMINERS = _words("no neither none")
RELATIVE_PRONOUNS = _words("which who whom that whose")
# Participles that work as prepositions ("starting with Villion", "including New Orleans"):
# the clause's subject does not do them
PREPOSITIONAL_PARTICIPLES = _words(
    "starting beginning including excluding following according regarding concerning"
    " considering given compared based depending"
)

_UNITS = _list(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
    " fifteen sixteen seventeen eighteen nineteen twenty"
)
_TENS = _list("thirty forty fifty sixty seventy eighty ninety")
_ORDINALS = _list(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"
)
# Spelled figures, read as their values.
NUMBER_WORDS: dict[str, str] = {
    **{w: str(i) for i, w in enumerate(_UNITS)},
    **{w: str(10 * i) for i, w in enumerate(_TENS, 3)},
    **{w: str(i) for i, w in enumerate(_ORDINALS, 1)},
}
# Words that scale the figure before them ("1,577 million").
SCALE_WORDS: dict[str, int] = {
    "hundred": 100,
    "thousand": 10**3,
    "thousands": 10**3,
    "million": 10**6,
    "millions": 10**6,
    "mn": 10**6,
    "billion": 10**9,
    "billions": 10**9,
    "bn": 10**9,
    "trillion": 10**12,
}

# What an answer calls the passages it was given: a sentence about them is no claim about the
# world ("The sources do not say…").
SOURCE_NOUNS = _words(
    "source sources passage passages document documents text texts context excerpt excerpts"
    " file files filing filings page pages snippet snippets extract extracts information"
)
# The answerer speaking of itself ("I couldn't find…").
ANSWERER = _words("i we")
# Quantifiers that negate the clause they are the subject or object of ("None of the passages
# mention…", "Nothing in the sources…").
NEGATIVE_PRONOUNS = _words("none nothing nobody neither nowhere")
# The question words: a question asks by one, and a gap statement may name what is missing by
# one alone ("The sources do not say when.").
WH_WORDS = _words("what which who whom whose when where why how")
# Words that leave a gap statement's topic open ("The sources don't say." / "…answer that").
EMPTY_TOPIC = _words(
    "answer answers question questions this that it anything something everything one"
    " specifically directly clearly exactly such all any provided given available anywhere"
    " nowhere"
)

# A country or region and what its people and things are called: "France" and "French" name one
# place (either backs the other in a name check).
DEMONYMS = (
    "France French Frenchman Frenchmen",
    "Britain British Briton Britons",
    "England English Englishman",
    "Scotland Scottish Scots Scot",
    "Wales Welsh",
    "Ireland Irish",
    "Spain Spanish Spaniard Spaniards",
    "Portugal Portuguese",
    "Netherlands Holland Dutch",
    "Germany German Germans",
    "Poland Polish Pole Poles",
    "China Chinese",
    "Japan Japanese",
    "Mongolia Mongol Mongols Mongolian",
    "Norway Norwegian Norse",
    "Denmark Danish Dane Danes",
    "Sweden Swedish Swede Swedes",
    "Italy Italian Italians",
    "Greece Greek Greeks",
    "Russia Russian Russians",
    "Europe European Europeans",
    "America American Americans",
    "Africa African Africans",
    "Asia Asian Asians",
    "Canada Canadian Canadians",
    "Mexico Mexican Mexicans",
    "India Indian Indians",
    "Switzerland Swiss",
    "Austria Austrian",
    "Belgium Belgian",
    "Turkey Turkish Turks",
    "Egypt Egyptian Egyptians",
    "Israel Israeli",
    "Iran Iranian Persia Persian",
    "Arabia Arab Arabs Arabian",
    "Normandy Norman Normans",
    "Byzantium Byzantine",
    "Rome Roman Romans",
)

# How a table states the scale of its bare figures: "(in thousands, except per share data)",
# "(Dollars in millions)", "in millions of U.S. dollars".
STATED_SCALE = re.compile(
    r"\b(?:in|amounts in|dollars in|\$ in|usd in)\s+(thousands|millions|billions)\b",
    re.IGNORECASE,
)

# Words that say a figure was worked out from others ("an operating margin of 34.6%", "the
# change", "in total"): a figure the passage does not give may then be the sum, difference,
# product, ratio or percentage change of figures it does (``figures.computed``).
COMPUTATION_WORDS = _list(
    "margin margins ratio ratios total totals sum sums difference change changes growth grew"
    " increase increased decrease decreased percent percentage share average plus minus times"
    " divided yields gives equals"
)
# What a sentence says an expression gives, between the two: "`3 === Integer` returns `false`".
RESULT_VERBS = (
    "returns",
    "return",
    "gives",
    "give",
    "evaluates to",
    "yields",
    "outputs",
    "prints",
    "results in",
    "is",
)
# Verbs that order their subject and object in time: "A precedes B" puts A first, "A follows B"
# puts B first (``order.py``; "succeed" only with an object: "succeeds that of the Anglo-Saxon").
ORDER_BEFORE = frozenset({"precede", "predate", "antedate", "forerun"})
ORDER_AFTER = frozenset({"follow", "succeed", "postdate"})
