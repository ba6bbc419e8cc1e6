"""Words of opposite pairs a sentence says, and a claim that says the other side.

A sentence saying "passed", "increased", "after", "the most", "may" where its span says
"failed", "decreased", "before", "the least", "must" is contradicted, as by a negation
(``lang.en.OPPOSITES``). A negation shortly before such a word flips it: "did not pass" is on
"failed"'s side (``polarity``). ``facts`` reads each sentence's words of opposite pairs
(``pole_at``, ``polarity``) and compares a claim's with its span's (``opposed``);
``opposed_about`` reads a claim against a passage sentence other than the one it rests on.
"""

from __future__ import annotations

import functools

from app.core.text import stem
from app.core.verdict.lang.en import CONCEDED as _CONCEDED
from app.core.verdict.lang.en import CONCESSIVE as _CONCESSIVE
from app.core.verdict.lang.en import NEGATIVE_QUANTIFIERS as _NEGATIVE_QUANTIFIERS
from app.core.verdict.lang.en import OPPOSITES as _OPPOSITES
from app.core.verdict.negation import negates
from app.core.verdict.tokens import Token, tokens

# (axis, side, as written, word before, word after) of each word of an opposite pair ("not
# pass" is on fail's side)
Pole = tuple[str, int, str, str, str]
Poles = tuple[Pole, ...]

_POLAR_REACH = 3  # a negation this many words before an opposite-pair word flips it
# ... and a negative quantifier that opens the clause, this many: "None of the attacks succeeded"
_QUANTIFIER_REACH = 6
_SIDES: dict[str, tuple[tuple[str, ...], ...]] = {
    pair.split()[0]: tuple(tuple(words.split()) for words in pair.split("|")) for pair in _OPPOSITES
}
_POLES: dict[str, tuple[str, int]] = {
    word: (pair.split()[0], side)
    for pair in _OPPOSITES
    for side, words in enumerate(pair.split("|"))
    for word in words.split()
}


def pole_at(toks: list[Token], i: int) -> tuple[str, int] | None:
    """The opposite pair (axis, side) the word at ``i`` belongs to, if any. A capitalised one
    inside a sentence is a name ("Best Buy"); "even" is a concession only before "when", "if"
    and the like ("even numbers" is none)."""
    t = toks[i]
    low = t.word.lower()
    if not (t.after_stop or not t.word[0].isupper()):
        return None
    if low in _CONCESSIVE and not (i + 1 < len(toks) and toks[i + 1].word.lower() in _CONCEDED):
        return None
    return _POLES.get(low)


_SAME_SHARE = 0.5  # of a claim's content words, in a sentence about the same things
_POLE_ABOUT = 6  # content words after an opposite-pair word that say what it is about


@functools.lru_cache(maxsize=4096)
def _poles_about(text: str) -> tuple[tuple[str, int, str, frozenset[str]], ...]:
    """Each opposite-pair word of ``text`` (axis, side, as written) with what it is about: the
    content words right after it ("inside the configure block": {"configur", "block"})."""
    toks = tokens(text)
    out = []
    for i in range(len(toks)):
        pole = pole_at(toks, i)
        if pole is None:
            continue
        axis, side, word, _, _ = polarity(toks, i, pole)
        about = [t.stem for t in toks[i + 1 :] if t.content][:_POLE_ABOUT]
        out.append((axis, side, word, frozenset(about)))
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _content(text: str) -> frozenset[str]:
    return frozenset(t.stem for t in tokens(text) if t.content)


def opposed_about(claim: str, other: str) -> str | None:
    """A word of ``claim`` whose opposite ``other`` says about the same things (two of the
    content words after each, and half the claim's content words in all), where the claim
    says one side only and ``other`` the other side only: "inside the configure block"
    against a note's "just outside of the standard configure block", in a sentence other than
    the one the claim rests on."""
    mine = _poles_about(claim)
    if not mine or len(_content(claim) & _content(other)) < _SAME_SHARE * len(_content(claim)):
        return None  # a sentence about other things, though it shares a few words
    theirs = _poles_about(other)
    for axis, side, word, about in mine:
        if {s for a, s, _, _ in mine if a == axis} != {side}:
            continue
        if any(a == axis and s == side for a, s, _, _ in theirs):
            continue
        for a, _, said, other_about in theirs:
            if said.startswith("not ") or word.startswith("not "):
                continue  # a negated word is read where it stands (``negation``), not here
            if a == axis and len(about & other_about) >= 2:
                return f"the passage says '{said}' of the same things, not '{word}'"
    return None


def polarity(toks: list[Token], i: int, pole: tuple[str, int]) -> Pole:
    """The pole of word ``i``, flipped when a negation shortly before it in its clause rules it,
    with the words either side of it."""
    axis, side = pole
    word = toks[i].word.lower()
    before = toks[i - 1].word.lower() if i else ""
    after = toks[i + 1].word.lower() if i + 1 < len(toks) else ""
    for j in range(i - 1, max(-1, i - 1 - _QUANTIFIER_REACH), -1):
        if toks[j + 1].after_break:
            break
        low = toks[j].word.lower()
        opens = j == 0 or toks[j].after_break  # "None of the attacks succeeded"
        reach = _QUANTIFIER_REACH if low in _NEGATIVE_QUANTIFIERS and opens else _POLAR_REACH
        if i - j <= reach and negates(toks, j):
            return axis, 1 - side, f"not {word}", before, after
    return axis, side, word, before, after


def opposed(claim: Poles, span: Poles, span_words: str) -> list[str]:
    """Words of a claim (its ``poles``) whose opposite a span says: "passed" for "failed"
    (``span_words``: the span's words in order, space-framed).

    When the span says both sides ("northern and southern China"), the opposite counts where
    it stands between the same words as the claim's ("reunited southern and").
    """
    said: dict[str, dict[int, str]] = {}
    for axis, side, word, _, _ in span:
        said.setdefault(axis, {}).setdefault(side, word)
    out: list[str] = []
    for axis, side, word, before, after in dict.fromkeys(claim):
        sides = said.get(axis, {})
        if 1 - side not in sides:
            continue
        if side not in sides and {p[1] for p in claim if p[0] == axis} == {side}:
            if word.startswith("not ") and stem(word[4:]) == stem(sides[1 - side]):
                continue  # "rather than opening it" against "opens it": the negation check's
            out.append(f"the passage says '{sides[1 - side]}', not '{word}'")
            continue
        if word.startswith("not ") or not (before and after):
            continue
        if f" {before} {word} {after} " in span_words:
            continue
        opposite = next(
            (w for w in _SIDES[axis][1 - side] if f" {before} {w} {after} " in span_words), None
        )
        if opposite is not None:
            out.append(f"the passage says '{before} {opposite} {after}', not '{word}'")
    return out
