"""The verdict's view of words: stemmed content words and whole figures, for matching claims.

``claim_terms`` stems a text's content words (the Porter rule the lexical index uses, so search
and the checks agree on what a word is) and keeps figures whole, a spelled one as its digits
("ten", "forty-five"); it leaves out stopwords, the words an answer uses about its sources
(``lang.en.ANSWER_FILLER``), the hedges and quantifiers a paraphrase adds
(``lang.en.PARAPHRASE_FILLER``), an ordinal's suffix and connectives ("In addition, …" does
not back an answer that the thing asked about is called "addition").
Dotted initials ("U.N.") are one term, "un", as "UN" is.
"""

from __future__ import annotations

import re

from app.core.text import stem
from app.core.verdict.lang import en

_CLAIM_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
_ORDINAL = frozenset({"st", "nd", "rd", "th"})
_DOTTED = re.compile(r"\b(?:[A-Z]\.){2,}")  # "U.N.": initials, which name a name
_CONNECTIVE = re.compile(  # any white space between the words: PDFs set no-break spaces
    r"\b(?:" + "|".join(p.replace(" ", r"\s+") for p in en.CONNECTIVES) + r")\b",
    re.IGNORECASE,
)


def lemma_terms(text: str) -> set[str]:
    """``claim_terms`` with each word stemmed from its lemma where the parser is there ("met"
    -> "meet", "took" -> "take", "meeting" -> "meet"): a claim's "meeting" is a passage's "met",
    whichever irregular form each writes. Without a parser, ``claim_terms``."""
    from app.core.verdict.parse import parse

    doc = parse(text)
    if doc is None:
        return claim_terms(text)
    lemmas = {t.lower_: t.lemma_.lower() for t in doc if t.is_alpha and t.lemma_}
    return claim_terms(text, lemmas)


def claim_terms(text: str, lemmas: dict[str, str] | None = None) -> set[str]:
    """Stemmed content words and normalised numbers of ``text`` (connectives left out); with
    ``lemmas`` (word -> lemma), each word is stemmed from its lemma."""
    terms = {m.group().replace(".", "").lower() for m in _DOTTED.finditer(text)}  # "U.N."
    text = en.spelled_figures(_CONNECTIVE.sub(" ", text))
    for m in _CLAIM_WORD.finditer(text):
        tok = m.group().lower()
        if len(tok) <= 2 and _contracted(text, m.start()):
            continue  # a contraction's tail ("you're", "we've", "they'll"): no word of its own
        if tok in _ORDINAL and m.start() and text[m.start() - 1].isdigit():
            continue  # "1000th" is the figure 1000, not a word "th"
        if tok[0].isdigit():
            terms.add(tok.replace(",", ""))
        elif tok in en.CARDINAL_WORDS:
            terms.add(en.CARDINAL_WORDS[tok])  # "ten" is the passage's "10"
        elif (whole := en.whole_day_word(m.group(), _by_figure(text, m))) is not None:
            terms.add(stem(whole))  # "14 Mar" is the passage's "14 March"
        elif len(tok) > 1 and not (
            tok in en.STOPWORDS or tok in en.ANSWER_FILLER or tok in en.PARAPHRASE_FILLER
        ):
            terms.add(stem(lemmas.get(tok, tok) if lemmas else tok))
    return terms


def _by_figure(text: str, m: re.Match[str]) -> bool:
    """Whether the word ``m`` has a figure right before or after it ("14 Mar", "Fri 14")."""
    before = text[max(0, m.start() - 3) : m.start()].rstrip(" ,")
    after = text[m.end() : m.end() + 3].lstrip(" .,")
    return before[-1:].isdigit() or after[:1].isdigit()


def _contracted(text: str, start: int) -> bool:
    """Whether the word at ``start`` follows an apostrophe inside a word ("you're"), not a
    quotation mark ("'hr_hotels'")."""
    return start >= 2 and text[start - 1] in "'’" and text[start - 2].isalpha()


# Each key with the keys of the words of its sense ("permit": "allow")
_SAME_SENSE: dict[str, frozenset[str]] = {
    stem(w): frozenset(stem(o) for o in group.split() if o != w)
    for group in en.SAME_SENSE
    for w in group.split()
}


def same_sense(key: str) -> frozenset[str]:
    """The stems of the words that say what the word of stem ``key`` says (``en.SAME_SENSE``):
    "allow" for "permit"."""
    return _SAME_SENSE.get(key, frozenset())
