"""A text's words as the fact checks read them: each word's stem, whether it is a content
word, and the clause and sentence breaks before it (``tokens``).

"didn't" is read as its verb and a "not", "U.S." as one word "US", and a word written against a
figure, an ampersand or a hyphen is marked so ("the M of $1,305M", "one-liner"): the checks of
``facts`` and ``question`` then read names, figures and negations off these tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.core.text import STOPWORDS, stem
from app.core.verdict.lang.en import ANSWER_FILLER

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)?")
_CLAUSE_END = re.compile(r"[,;:.!?()\[\]—–]")


@dataclass(frozen=True)
class Token:
    """A word of a text as the fact checks read it (``tokens``)."""

    word: str  # as written
    stem: str
    content: bool
    after_break: bool  # a clause break (comma, semicolon...) comes right before it
    after_stop: bool = False  # a sentence ends right before it: a capital there is no name
    # written against a figure or an ampersand: the "M" of "$1,305M", the "FY" of "FY2021", the
    # "MD" of "MD&A" (parts of a code, not names)
    glued: bool = False
    hyphened: bool = False  # written against a hyphen: part of a word ("one-liner")


# "U.S.", "U.N.": an abbreviation with full stops is one word ("US"), as it is written without.
_DOTTED = re.compile(r"\b(?:[A-Za-z]\.){2,}")


def tokens(text: str) -> list[Token]:
    """Words and numbers of ``text``, each marked content or not, and with clause breaks."""
    out: list[Token] = []
    last = 0
    text = _DOTTED.sub(lambda m: m.group().replace(".", "") + " " * m.group().count("."), text)
    for m in _TOKEN.finditer(text):
        raw = m.group()
        before, after = text[max(0, m.start() - 1) : m.start()], text[m.end() : m.end() + 1]
        glued = before.isdigit() or after.isdigit() or "&" in (before, after)
        low = raw.lower().replace("’", "'")
        gap = text[last : m.start()]
        broke = bool(_CLAUSE_END.search(gap))
        stop = not last or any(c in gap for c in ".!?")
        last = m.end()
        if low.endswith("n't"):  # didn't, wasn't, can't: the verb, then a "not"
            head = low[:-3] or "can"
            out.append(Token(raw[: len(head)], head, False, broke))
            out.append(Token("not", "not", False, False))
            continue
        if low == "cannot":
            out += [Token("can", "can", False, broke), Token("not", "not", False, False)]
            continue
        low = low.split("'")[0]
        short = len(low) > 1 or low.isdigit() or raw.isupper()  # "P", "X" name things
        content = short and low not in STOPWORDS and low not in ANSWER_FILLER
        key = low if low[0].isdigit() else stem(low)
        hyphened = "-" in (before, after)
        out.append(Token(raw, key, content, broke, stop, glued and not low[0].isdigit(), hyphened))
    return out
