"""Finding an answer sentence word for word (or nearly) in a passage, wherever it breaks lines.

A sentence copied from its cited source is backed by that source, whatever the passage's
sentence splitting makes of it (a header, a heading and the sentence run together; wrapped
lines; a sentence of three passage sentences). Words are compared lower case, without
punctuation or whitespace; "nearly" allows a word or two in ten to differ, but not a figure:
the passage may hold the copy's figure elsewhere in the sentence ("fell to 18% …, while its
rival grew to 25%"), where the presence of the figure proves nothing, so a copy with its
figure changed is read as any other sentence. The caller still compares the facts. A copy
whose figures are all the passage's sentence's but stand in each other's places
(``figures_moved``) gives each figure to another thing, unless whole groups of them moved
together, as parallel clauses told in another order do.

Code is held to more: a line of code in an answer is backed only where a passage holds it
character for character (whitespace aside, ``find_code``): a changed key or operator makes
other code, however many of its words match (``code.py`` reads an answer's code).
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence

_WORD = re.compile(r"\w+")
_MIN_WORDS = 3  # shorter sentences are left to the span alignment
_NEAR_MIN_WORDS = 6
_NEAR_SHARE = 0.9  # of the sentence's words, in order, in one place of the passage
_NEAR_STRETCH = 1.25  # the matched place is at most this much longer than the sentence


@functools.lru_cache(maxsize=256)
def _words(text: str) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...]]:
    found = list(_WORD.finditer(text))
    return tuple(m.group().lower() for m in found), tuple((m.start(), m.end()) for m in found)


def find_copy(sentence: str, passage: str) -> tuple[int, int] | None:
    """(start, end) in ``passage`` of the words of ``sentence``, copied or nearly; else None."""
    said, _ = _words(sentence)
    have, offsets = _words(passage)
    n = len(said)
    if n < _MIN_WORDS or n > len(have) * _NEAR_STRETCH + 2:
        return None
    first = said[0]
    for i in range(len(have) - n + 1):
        if have[i] == first and have[i : i + n] == said:
            return offsets[i][0], offsets[i + n - 1][1]
    if n < _NEAR_MIN_WORDS:
        return None
    matcher = difflib.SequenceMatcher(None, have, said, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size >= 2]
    matched = sum(b.size for b in blocks)
    if not blocks or matched < _NEAR_SHARE * n:
        return None
    kept = {b.b + k for b in blocks for k in range(b.size)}
    if any(said[i][:1].isdigit() for i in range(n) if i not in kept):
        return None  # a figure changed
    lo, hi = blocks[0].a, blocks[-1].a + blocks[-1].size
    if hi - lo > n * _NEAR_STRETCH:
        return None
    return offsets[lo][0], offsets[hi - 1][1]


# A figure ("0.47", "1,000", "1·14") or a word, for reading a sentence with its figures masked.
_FIGURE_OR_WORD = re.compile(r"\d+(?:[.,·]\d+)*|[^\W\d_]+")
_FIGURE = "#"


@functools.lru_cache(maxsize=256)
def _masked(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words of ``text`` lower case with each figure as ``_FIGURE``, and its figures'
    values in order."""
    words, figures = [], []
    for m in _FIGURE_OR_WORD.finditer(text):
        token = m.group()
        if token[0].isdigit():
            words.append(_FIGURE)
            figures.append(token.replace(",", "").replace("·", "."))
        else:
            words.append(token.lower())
    return tuple(words), tuple(figures)


def figures_moved(sentence: str, passage: str) -> tuple[str, str] | None:
    """(the sentence's figure, the passage's) where ``sentence`` is a passage sentence word for
    word, or nearly, but with figures in each other's places: "83% had peripheral
    neuropathy, 27% had autonomic neuropathy, and 33% had cardiomyopathy" where the passage
    gives autonomic neuropathy 33% and cardiomyopathy 27%. Every figure is the passage's, so
    no figure is missing; the words around each say it belongs to another thing. A figure
    that is in no such place of the passage is left to the figure checks."""
    said, said_figures = _masked(sentence)
    have, have_figures = _masked(passage)
    n = len(said)
    if n < _NEAR_MIN_WORDS or len(said_figures) < 2:
        return None
    matcher = difflib.SequenceMatcher(None, have, said, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size >= 2]
    if not blocks or sum(b.size for b in blocks) < _NEAR_SHARE * n:
        return None
    lo, hi = blocks[0].a, blocks[-1].a + blocks[-1].size
    if hi - lo > n * _NEAR_STRETCH:
        return None
    # the place of each figure among the figures: the i-th "#" of each sequence
    said_at = {j: k for k, j in enumerate(j for j, w in enumerate(said) if w == _FIGURE)}
    have_at = {i: k for k, i in enumerate(i for i, w in enumerate(have) if w == _FIGURE)}
    region = [have_figures[have_at[i]] for i in range(lo, hi) if i in have_at]
    if _groups_moved(said_figures, region):
        return None
    for b in blocks:
        for k in range(b.size):
            if said[b.b + k] != _FIGURE:
                continue
            mine, theirs = said_figures[said_at[b.b + k]], have_figures[have_at[b.a + k]]
            if mine != theirs and mine in region:
                return mine, theirs
    return None


def _groups_moved(said: Sequence[str], have: Sequence[str]) -> bool:
    """Whether the figures ``said`` are the figures ``have`` in groups of two or more moved
    whole, as parallel clauses are told in another order: "5% in 2019 and 7% in 2020" as
    "7% in 2020 and 5% in 2019" (the same words around the figures, the same facts)."""
    n = len(have)
    if len(said) != n:
        return False
    for size in range(2, n // 2 + 1):
        if n % size == 0 and sorted(_chunks(said, size)) == sorted(_chunks(have, size)):
            return True
    return False


def _chunks(figures: Sequence[str], size: int) -> list[tuple[str, ...]]:
    return [tuple(figures[i : i + size]) for i in range(0, len(figures), size)]


_CLAUSE = re.compile(r"[,;:—–()]")
_MIN_CLAUSE_WORDS = 3


def clauses_copied(sentence: str, passage: str) -> bool:
    """Whether every clause of ``sentence`` (its parts between commas, semicolons, dashes)
    stands word for word in ``passage``, in whatever order: the passage's sentence with its
    clauses moved ("Around 1294, a French version was prepared" for "A French version was
    prepared around 1294"). A swapped role or figure changes the words inside a clause, so it
    is no such copy."""
    have = " " + " ".join(_words(passage)[0]) + " "
    parts = [_words(p)[0] for p in _CLAUSE.split(sentence)]
    parts = [p for p in parts if p]
    if len(parts) < 2 or any(len(p) < _MIN_CLAUSE_WORDS for p in parts):
        return False
    return all(f" {' '.join(p)} " in have for p in parts)


_MIN_CODE_CHARS = 3


def find_code(line: str, passage: str) -> tuple[int, int] | None:
    """(start, end) in ``passage`` of the code ``line``, character for character but for
    whitespace; else None."""
    key = "".join(strip_code_line(line).split())
    if len(key) < _MIN_CODE_CHARS:
        return None
    kept = [i for i, c in enumerate(passage) if not c.isspace()]
    at = "".join(passage[i] for i in kept).find(key)
    if at < 0:
        return None
    return kept[at], kept[at + len(key) - 1] + 1


def strip_code_line(line: str) -> str:
    """A code line without the list marker or the trailing comment marker a model adds."""
    return re.sub(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)", "", line).rstrip()
