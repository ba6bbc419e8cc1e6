"""What a question asks for, and whether an answer supplies it or only restates the question.

A small model often answers "Which case…?" with the question turned into a statement, or with a
passage sentence that surrounds the answer without giving it. Every sentence is then backed by
a passage, yet nothing answers. So the question's shape is read from its wh-word and the noun
after it (``asked``): a number (how many, what year), a time (when), a person (who), a place
(where), a reason (why), a named thing (which case, which river) or a thing (what). An answer
supplies it (``supplies``) when its sentences bring content beyond the question's own words of
that shape: a new number for a number, a date or a time word or a name a time is given by
("under Louis XIV") for a time, a new name or a word that names the asked-for noun ("the
counterflow cycle") for a "which" question, new words for the rest. A yes/no question
is answered by any statement.

A bare value ("The answer is 2,151,054.") takes its meaning from the question, so it answers
only where the passage gives that value for what the question asks about (``mislabelled``):
in a balance sheet the figure of the line "Other accrued liabilities" is no answer to "what is
the amount of accounts payable", though the passage holds both.

A question also states things: the names it asks about (``missing_names``: an answer whose
passages mention none of them may be about something else; the noun "what" asks for, "What
French City …?", is no such name), and counts (``counted_elsewhere``: "varied by up to three
months", where the passages say one month, is a premise the answer should not have taken),
the words it puts before a title and a name (``titled_elsewhere``: "French architect Enric
Miralles", where the passages say Spanish), a year or a decade (``dated_elsewhere``: "in the
1970s", where the passages say the 1990s), and a negation it asks the reason for
(``unnegated``: "Why must capitalist countries not have an imperialist policy?", where no
passage says they must not).
The names it defines in a parenthesis ("(unadjusted EBITDA)", ``defined_names``) are its own
words for what the passages say otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TypeVar

from app.core.text import STOPWORDS, fold, stem, strip_citations
from app.core.verdict.dated import EVENT_YEAR
from app.core.verdict.facts import facts
from app.core.verdict.lang import en
from app.core.verdict.names import alike, of_a_people, spelled_alike
from app.core.verdict.relations import negated
from app.core.verdict.terms import claim_terms
from app.core.verdict.tokens import Token, tokens

_WH = en.WH_WORDS
_AUX = en.QUESTION_AUXILIARIES
_HOW_MUCH = en.HOW_ADJECTIVES
_TIME_NOUNS = en.TIME_NOUNS
_NUMBER_NOUNS = en.NUMBER_NOUNS
_NAMED = en.NAMED_NOUNS
_NOUN_IN_NAME = en.NOUNS_IN_NAMES
_SKIP = en.WH_SKIPPED
_QUANTITY = en.QUANTITY_WORDS
_TIME_CUES = frozenset(stem(w) for w in en.TIME_CUES)
_REASON_CUES = frozenset(stem(w) for w in en.REASON_CUES)
_ECHO = frozenset(stem(w) for w in en.ECHO_WORDS)
_COPULA = en.COPULAS
_WORD = re.compile(r"[^\W_]+(?:['’][^\W\d_]+)?")
_K = TypeVar("_K")  # what a premise is keyed by: a unit noun, a title and a name


@dataclass(frozen=True)
class Asked:
    """The shape of what a question asks for, and the noun it asks about (if any)."""

    kind: str  # number, time, person, place, reason, named, thing, yes_no, open
    focus: str = ""  # stem of the asked-for noun: "which cycle" -> "cycl"
    noun: str = ""  # the asked-for noun as the question writes it (lower case): "cycle"


def asked(question: str) -> Asked:
    """What ``question`` asks for, from its wh-word and the words after it."""
    words = [w.lower() for w in _WORD.findall(question)]
    at = next((i for i, w in enumerate(words) if w in _WH), None)
    if at is None:
        return Asked("yes_no" if words and words[0] in _AUX else "open")
    wh, rest = words[at], words[at + 1 :]
    nxt = rest[0] if rest else ""
    if wh == "how":
        if nxt in _HOW_MUCH:
            return Asked("number")
        return Asked("thing")
    if wh == "when":
        return Asked("time")
    if wh == "where":
        return Asked("place")
    if wh == "why":
        return Asked("reason")
    if wh in ("who", "whom", "whose"):
        return Asked("person")
    noun = next((w for w in rest if w not in _SKIP), "") if nxt not in _AUX else ""
    if not noun or noun in STOPWORDS:
        return Asked("thing")
    if noun in _TIME_NOUNS:
        return Asked("time")
    if noun in _NUMBER_NOUNS:
        return Asked("number")
    return Asked("named" if noun in _NAMED else "thing", stem(noun), noun)


def supplies(question: str, sentences: Sequence[str], passages: Sequence[str] = ()) -> bool:
    """Whether ``sentences`` bring what ``question`` asks for (see the module docstring);
    ``passages`` are the texts that back them: where they name the asked-for thing with its
    noun ("What act…?": "the Scotland Act 1998"), so must the answer."""
    if not question.strip() or not sentences:
        return True
    want = asked(question)
    if want.kind == "yes_no":
        return True
    q_facts = facts(question)
    q_terms = claim_terms(question) | q_facts.stems
    text = " ".join(strip_citations(s) for s in sentences)
    said = facts(text)
    new = claim_terms(text) - q_terms - _ECHO
    new |= _coded(text) - _coded(question)  # "O(n2)": words with digits the stems split up
    numbers = said.numbers - q_facts.numbers
    names = {
        t.stem
        for t in tokens(text)
        if t.word[:1].isupper() and t.content and t.stem not in q_terms and t.stem not in _ECHO
    }
    if want.kind == "number":
        return bool(numbers or (said.stems - q_terms) & {stem(w) for w in _QUANTITY})
    if want.kind == "time":  # a date, a time word, or a name a time is given by
        return bool(numbers or (new and said.stems & _TIME_CUES) or _timed_name(text, names))
    if want.kind == "place":  # a new name, or "in/at/near ..." a new word that is no time
        return bool(names or _places(text, q_terms))
    if want.kind == "reason":
        return len(new) >= 2 or bool(new and said.stems & _REASON_CUES)
    if want.kind == "named":
        if _named_with_noun(passages, want.focus) and want.focus not in said.stems:
            return False  # "What act…?" answered without naming any act
        return bool(numbers or names or _names_focus(text, want.focus, q_terms))
    if want.focus and want.focus in said.stems:  # "which cycle": the answer must say which
        return bool(numbers or names or _names_focus(text, want.focus, q_terms))
    return bool(new or numbers or names)


def _named_with_noun(passages: Sequence[str], focus: str) -> bool:
    """Whether a passage names a thing of this kind with its noun, capitalised within a
    sentence ("under the Scotland Act 1998"), for the nouns such names carry."""
    if focus not in {stem(w) for w in _NOUN_IN_NAME}:
        return False
    for passage in passages:
        for t in tokens(passage)[1:]:
            if t.stem == focus and t.word[:1].isupper() and not t.after_stop:
                return True
    return False


_TIME_PREPOSITIONS = en.TIME_PREPOSITIONS


def _timed_name(text: str, names: set[str]) -> bool:
    """Whether one of the answer's new ``names`` follows a preposition that can give a time
    ("during the Renaissance"); a name alone ("a quote from the Lease") says no time."""
    toks = tokens(text)
    for i, t in enumerate(toks):
        if t.stem not in names or not t.word[:1].isupper():
            continue
        before = [w.word.lower() for w in toks[max(0, i - 2) : i]]
        if before[-1:] == ["the"]:
            before = before[:-1]
        if before and before[-1] in _TIME_PREPOSITIONS:
            return True
    return False


def _coded(text: str) -> set[str]:
    """Lower-case words that mix letters and digits ("n2", "7n2", "b12")."""
    return {
        w
        for w in (m.lower() for m in re.findall(r"\w+", text))
        if not w.isdigit() and not w.isalpha()
    }


def _names_focus(text: str, focus: str, known: set[str] | frozenset[str]) -> bool:
    """Whether ``text`` says which ``focus`` it is: a new word right before it ("the counterflow
    cycle"), or after it and a copula ("the cycle is counterflow", "counterflow is the cycle")."""
    toks = tokens(text)
    for i, t in enumerate(toks):
        if t.stem != focus:
            continue
        before = toks[i - 1] if i else None
        if before is not None and before.content and before.stem not in known:
            return True
        after = toks[i + 1 : i + 4]
        if (
            after
            and after[0].word.lower() in _COPULA
            and any(a.content and a.stem not in known for a in after[1:])
        ):
            return True
        ahead = toks[max(0, i - 4) : i]
        if any(a.word.lower() in _COPULA for a in ahead):
            lead = toks[max(0, i - 6) : max(0, i - 2)]
            if any(a.content and a.stem not in known and a.stem not in _ECHO for a in lead):
                return True
    return False


_PLACE_WORDS = en.PLACE_PREPOSITIONS
_NOT_PLACES = _TIME_CUES | {stem(w) for w in _TIME_NOUNS} | {stem(w) for w in _QUANTITY}


def _places(text: str, known: set[str] | frozenset[str]) -> bool:
    """Whether ``text`` puts something somewhere: a place preposition followed (within three
    words) by a new content word that is not a time ("in the early days" is no place)."""
    toks = tokens(text)
    for i, t in enumerate(toks):
        if t.word.lower() not in _PLACE_WORDS:
            continue
        for a in toks[i + 1 : i + 4]:
            if a.content and a.stem not in known and a.stem not in _NOT_PLACES:
                return True
    return False


def missing_names(question: str, answer: str, evidence: Sequence[str]) -> list[str]:
    """The names the question asks about that neither the answer nor any passage backing it
    mentions, in any spelling (a demonym for its country, initials, an accent or a letter
    off): the answer may well be about something else ("Where is D'Olier Street?" answered
    from a passage on the Huguenot Street district)."""
    said = facts(" ".join([strip_citations(answer), *evidence]))
    known = said.stems
    asked = list(_names_asked(question))
    joined = _joined_names(question, asked, said.words)
    out: list[str] = []
    for t in asked:
        word = t.word.replace("’", "'")
        low = word.lower()
        if f" {low} " in said.words or t.stem in known or word in out or t in joined:
            continue
        if alike(t.stem, known) or any(spelled_alike(low, w) for w in said.words.split()):
            continue
        if of_a_people(t.stem):
            continue  # "When did British begin to build the fort?": whose, not what about
        if len(low) >= 5 and any(w.startswith(low) for w in said.words.split()):
            continue  # the name inside a longer word ("New World": "worldwide")
        out.append(word)
    return out


def _joined_names(question: str, asked: Sequence[Token], words: str) -> list[Token]:
    """The question's names that a passage spells as one word with their neighbours: a
    filing's file name says "BESTBUY_2017_10K" for "Best Buy's", "AMERICANWATERWORKS" for
    "American Water Works" (two or more adjacent names, joined, at least six letters, inside
    one of the passages' ``words``)."""
    said = [fold(w) for w in words.split()]
    runs: list[list[Token]] = [[]]
    for t in tokens(question):
        if t in asked and not (t.after_break and runs[-1]):
            runs[-1].append(t)
        elif runs[-1]:
            runs.append([t] if t in asked else [])
    found: list[Token] = []
    for run in runs:
        for i in range(len(run)):
            for j in range(i + 2, len(run) + 1):
                # the word as ``tokens`` reads it: "Buy's" is "buy"
                glued = "".join(
                    fold(t.word.lower().replace("’", "'").split("'")[0]) for t in run[i:j]
                )
                if len(glued) >= 6 and any(glued in w for w in said):
                    found += run[i:j]
    return found


def names_something(question: str) -> bool:
    """Whether the question asks about something it names ("Which religion did Kublai
    prefer?"), which passages about it name too; "When did the archive open?" names nothing."""
    return any(True for _ in _names_asked(question))


def _names_asked(question: str) -> Iterator[Token]:
    """The question's words that name what it asks about (``missing_names``)."""
    kind = _kind_phrase(question)
    for t in tokens(question)[1:]:  # a question's first word is capitalised anyway
        low = t.word.replace("’", "'").lower()
        if not (t.word[:1].isupper() and len(t.word) >= 4) or low in STOPWORDS or low in _WH:
            continue
        if low in kind:  # "What French City …?": the kind of thing asked for, not a name
            continue
        if t.after_stop or t.glued:  # a second sentence's first word; part of a code
            continue
        yield t


def _kind_phrase(question: str) -> frozenset[str]:
    """The words of the kind of thing a question's "what" or "which" asks for (lower case),
    the run that follows it up to the verb: "french" and "city" in "What French City was New
    Rochelle named after?", "northern", "european" and "cities" in "What other Northern
    European cities had Huguenot congregations?". They say what the answer is to be, not what
    the question is about; empty when the wh-word stands alone."""
    words = [w.lower() for w in _WORD.findall(question)]
    at = next((i for i, w in enumerate(words) if w in ("what", "which")), None)
    if at is None:
        return frozenset()
    rest = words[at + 1 :]
    while rest and rest[0] in en.WH_OTHER:
        rest = rest[1:]
    run = []
    for w in rest:
        if w in _AUX or w in STOPWORDS:
            break
        run.append(w)
    return frozenset(run)


_UNITS = frozenset(stem(w) for w in en.VALUE_UNITS)
_LABEL_LINES_BACK = 4  # a table's value may sit a few lines below its row's label


def mislabelled(question: str, sentence: str, passage: str) -> str | None:
    """The passage's label for the value a bare ``sentence`` gives (see the module docstring),
    when a table of the passage gives that value only for something else than the question
    asks about; None when it gives it for the asked-about thing, or when the check does not
    apply: the sentence says more than a value, the passage shares no word with the question,
    or the value is in prose (a sentence may say it of what the one before it named)."""
    q_terms = claim_terms(question)
    said = facts(strip_citations(sentence))
    values = said.numbers - facts(question).numbers
    words = claim_terms(strip_citations(sentence)) - q_terms - _ECHO - _UNITS - said.numbers
    if not values or words:
        return None
    asked = {t for t in q_terms & claim_terms(passage) if not t[:1].isdigit()}
    if not asked:
        return None
    labels = _labels_of(values, passage)
    if not labels or None in labels or any(claim_terms(x or "") & asked for x in labels):
        return None
    return labels[0]


# A table's row on one line: a short label, then its figures ("Accounts payable $ 302,578 255,028").
_ROW = re.compile(r"^[^\d.!?;:]{1,80}?(?:\s+[$€£(]?\s*-?[\d][\d,.]*\)?%?)+\s*$")


def _labels_of(values: frozenset[str], passage: str) -> list[str | None]:
    """The label of each occurrence of one of ``values`` in ``passage``: for a value alone on
    its line (a table's cell), the nearest line above with words; for a row on one line, the
    row's words; None for a value in prose."""
    lines = passage.split("\n")
    out: list[str | None] = []
    for i, line in enumerate(lines):
        if not facts(line).numbers & values:
            continue
        label = " ".join(w for w in _WORD.findall(line) if not w[:1].isdigit())
        if label and not _ROW.match(line.strip()):
            out.append(None)
            continue
        j = i
        while not label and j > 0 and i - j < _LABEL_LINES_BACK:
            j -= 1
            label = " ".join(w for w in _WORD.findall(lines[j]) if not w[:1].isdigit())
        if label:
            out.append(label.strip())
    return out


_HOW_MANY = re.compile(r"\b(?i:how many)\s+((?:[A-Z][\w'’-]*\s+)+)")


def counted_group(question: str) -> frozenset[str]:
    """The named group a "how many" question counts ("How many French Catholics died …?":
    {"french", "cathol"}); empty when it counts no named group ("how many people")."""
    found = _HOW_MANY.search(question)
    return frozenset(stem(w.lower()) for w in found.group(1).split()) if found else frozenset()


_PARENTHESIS = re.compile(r"\(([^()]{1,80})\)")


def defined_names(question: str) -> frozenset[str]:
    """The names a question defines in a parenthesis, which an answer may use though no
    passage says them: "operating income + depreciation and amortization (unadjusted
    EBITDA)" defines EBITDA by the words before it, which the passages must hold instead."""
    return frozenset(
        name for inside in _PARENTHESIS.findall(question) for name in facts(f"x {inside}").names
    )


def counted_elsewhere(question: str, evidence: Sequence[str]) -> tuple[str, str] | None:
    """A count the question states ("varied by up to three months") that the passages backing
    the answer give otherwise ("up to one month") and never as the question does: the answer
    took the question's premise, which its passages contradict. (what the question says, what
    the passages say), or None. Only a spelled or written figure right before its unit noun is
    read; a year, a figure with no noun, or a unit the passages never count is no premise."""
    asked_counts = _counts(question)
    return _said_otherwise(asked_counts, _counts(" ".join(evidence))) if asked_counts else None


def _said_otherwise(
    asked: Mapping[_K, tuple[set[str], set[str]]], said: Mapping[_K, tuple[set[str], set[str]]]
) -> tuple[str, str] | None:
    """The first thing the question states (key -> its values; as written) that the passages
    state (the same form) only with other values: (the question's words, the passages')."""
    for key, (values, written) in asked.items():
        given = said.get(key)
        if given is not None and not values & given[0]:
            return min(written), min(given[1])
    return None


def _counts(text: str) -> dict[str, tuple[set[str], set[str]]]:
    """unit stem -> (its figures, as normalised values; the count as written) in ``text``."""
    toks = tokens(text)
    out: dict[str, tuple[set[str], set[str]]] = {}
    for a, b in pairwise(toks):
        value = _count_value(a.word)
        if value is None or not b.word.isalpha() or b.word.lower() in STOPWORDS:
            continue
        values, written = out.setdefault(b.stem, (set(), set()))
        values.add(value)
        written.add(f"{a.word} {b.word}")
    return out


# A year or a decade as a question or a passage writes it: "1754", "the 1970s", "FY2019".
_DATED = re.compile(rf"(?:\bFY|\b)({EVENT_YEAR.pattern})(s?)\b")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")  # "1,500" is the figure 1500


def dated_elsewhere(question: str, evidence: Sequence[str]) -> tuple[str, str] | None:
    """A year or a decade the question states ("in the 1970s") that the passages backing the
    answer never give, though they date things the same way (a decade for a decade, a year
    for a year): the answer took the question's date for theirs ("Rankine cycles generated
    about 90% … in that period", where the passage says the 1990s). (What the question says,
    what the passages say), or None. A year the passages give inside the question's decade
    ("1975" for "the 1970s"), or a decade holding the question's year ("the 1750s" for 1754),
    is the question's date."""
    asked = [(m.group(1), bool(m.group(2))) for m in _DATED.finditer(question)]
    if not asked:
        return None
    # a figure the passages write with a comma ("1,500 soldiers") is one they give too
    text = _THOUSANDS.sub("", " ".join(evidence))
    said = [(m.group(1), bool(m.group(2)), m.group()) for m in _DATED.finditer(text)]
    for year, decade in asked:
        if any(y == year or ((decade or d) and y[:3] == year[:3]) for y, d, _ in said):
            continue
        other = [written for _, d, written in said if d == decade]
        if other:
            return year + ("s" if decade else ""), other[0]
    return None


def unnegated(question: str, evidence: Sequence[str]) -> tuple[str, str] | None:
    """The verb of a negated question ("Why must capitalist countries not have an imperialist
    policy?", "When was the directorate not established?") that no sentence of the passages
    backing the answer negates (a word of refusal governing it counts: "the refusal to
    allow"): an answer explaining or dating it from them says something they do not say,
    taking the question's premise. (The verb as the question writes it with its negation,
    "not have"; "", as the passages say nothing of it), or None."""
    from app.core.verdict.parse import parse

    doc = parse(question)
    if doc is None:
        return None
    # the negation on the verb "why" asks about ("If it is not useful, explain why": no such),
    # or on the question's own verb ("When was the directorate not established?")
    if asked(question).kind == "reason":
        asks = {t.head.i for t in doc if t.lower_ in en.REASON_WORDS}
    else:
        asks = {t.i for t in doc if t.dep_ == "ROOT"}
    negation = next((t for t in doc or () if t.dep_ == "neg" and t.head.i in asks), None)
    if negation is None:
        return None
    verb = negation.head
    # the verb's subject: a passage sentence that negates a verb said of it may word the verb
    # otherwise ("Why didn't the Constitution take effect?": "the Treaty establishing a
    # Constitution … never came into force")
    subject = {
        t.lemma_.lower()
        for c in verb.children
        if c.dep_ in ("nsubj", "nsubjpass")
        for t in c.subtree
        if t.is_alpha and t.lower_ not in STOPWORDS
    }
    for text in evidence:
        passage = parse(text)
        if passage is None:
            return None
        if any(t.lemma_ == verb.lemma_ and negated(t) for t in passage):
            return None  # "not allowed": "the crown's refusal to allow"
        for sent in passage.sents:
            if subject & {t.lemma_.lower() for t in sent} and any(t.dep_ == "neg" for t in sent):
                return None
    return f"{negation.text} {verb.text}", ""


def titled_elsewhere(question: str, evidence: Sequence[str]) -> tuple[str, str] | None:
    """A capitalised word the question puts before a title and a name ("French architect
    Enric Miralles") where the passages backing the answer put another before the same title
    and name ("Spanish architect Enric Miralles") and never the question's: the answer took
    the question's premise, which its passages contradict. (what the question says, what the
    passages say), or None."""
    asked_titles = _titles(question)
    return _said_otherwise(asked_titles, _titles(" ".join(evidence))) if asked_titles else None


def _titles(text: str) -> dict[tuple[str, str], tuple[set[str], set[str]]]:
    """(title stem, name) -> (the capitalised words before them, lower case; as written) in
    ``text``: "French architect Enric Miralles" gives ("architect", "Enric") -> "french"."""
    out: dict[tuple[str, str], tuple[set[str], set[str]]] = {}
    toks = tokens(text)
    for i, (a, b, c) in enumerate(zip(toks, toks[1:], toks[2:], strict=False)):
        if not (a.word[:1].isupper() and a.word.isalpha() and a.word.lower() not in STOPWORDS):
            continue
        if a.word.lower() in _WH or not (b.word.isalpha() and b.word.islower()):
            continue
        if b.word in STOPWORDS or not _capital(c.word):
            continue
        name = [c.word]
        for t in toks[i + 3 :]:
            if not _capital(t.word) or t.after_stop:
                break
            name.append(t.word)
        words, written = out.setdefault((b.stem, c.word), (set(), set()))
        words.add(a.word.lower())
        written.add(" ".join([a.word, b.word, *name]))
    return out


def _capital(word: str) -> bool:
    return word[:1].isupper() and word.isalpha()


# Spelled ordinals ("first", "third") rank things, they count none.
_ORDINAL_WORDS = frozenset(w for w in en.NUMBER_WORDS if w.endswith(("st", "nd", "rd", "th")))


def _count_value(word: str) -> str | None:
    """A count's value ("three" -> "3", "1,200" -> "1200"); None for a year or no figure."""
    low = word.lower()
    if low in en.NUMBER_WORDS and low not in _ORDINAL_WORDS:
        return en.NUMBER_WORDS[low]
    digits = low.replace(",", "")
    if not digits.isdigit() or (len(digits) == 4 and 1000 <= int(digits) <= 2100):
        return None
    return digits
