"""Which words a negation rules: the negators of a sentence, the words they govern, and the
words around them.

A "not", "never", "no", a word of refusal ("refused", "forbidden"), "unable to" and
"impossible to", and the second word of "rather than" or "instead of" negate what follows
(``negates``), unless they negate nothing ("not only", "no doubt", "with or without"). The few
content words after one, up to its clause's end, are what it governs (``scope``); the content
word before it in its clause is what it is said of (``clause_word``); the words either side of
it, without it, are what the text says if it is dropped (``frame``). ``facts`` compares these
between a claim and a passage; ``opposites`` lets a negation flip an opposite-pair word.
"""

from __future__ import annotations

from app.core.verdict.lang.en import DENYING as _DENYING
from app.core.verdict.lang.en import NEGATING_WORDS as _NEGATIONS
from app.core.verdict.lang.en import NEGATION_SCOPE_END as _SCOPE_END
from app.core.verdict.lang.en import NOT_NEGATING_AFTER as _NOT_NEGATING
from app.core.verdict.lang.en import UNABLE as _UNABLE
from app.core.verdict.tokens import Token

_SCOPE = 3  # content words after a negation that it governs
_FRAME = 2  # words either side of a negation compared in order


def negates(toks: list[Token], i: int) -> bool:
    """Whether word ``i`` negates what follows: a negation ("not", "never"), "unable to",
    "impossible to" (``UNABLE``), or the second word of a pair that sets a thing against
    another ("rather than the death of Ali", "instead of valves": ``DENYING``)."""
    low = toks[i].word.lower()
    if low in _NEGATIONS:
        return not _negation_exempt(toks, i)
    if low in _UNABLE:  # "unable to legislate", not "impossible that they collapse"
        return i + 1 < len(toks) and toks[i + 1].word.lower() in ("to", "of")
    return i > 0 and _DENYING.get(toks[i - 1].word.lower()) == low


def _negation_exempt(toks: list[Token], i: int) -> bool:
    """A negation that negates nothing: "not only", "no doubt" (``NOT_NEGATING_AFTER``), and
    "with or without alpha", which allows both."""
    nxt = toks[i + 1].word.lower() if i + 1 < len(toks) else ""
    before = " ".join(t.word.lower() for t in toks[max(0, i - 2) : i])
    return nxt in _NOT_NEGATING or (toks[i].word.lower() == "without" and before == "with or")


def clause_word(toks: list[Token], i: int) -> str | None:
    """The content word nearest before a negation in its own clause (what it is said of)."""
    for j in range(i, 0, -1):
        if toks[j].after_break:
            return None
        if toks[j - 1].content:
            return toks[j - 1].stem
    return None


def scope(toks: list[Token], i: int) -> list[str]:
    """The stems of the content words a negation at ``i`` governs: a few after it, up to the
    end of its clause or a word that ends its reach ("not in Paris but in Lyon")."""
    scope: list[str] = []
    for t in toks[i + 1 :]:
        if t.after_break or len(scope) >= _SCOPE or (scope and t.word.lower() in _SCOPE_END):
            break
        if t.content:
            scope.append(t.stem)
    return scope


def frame(toks: list[Token], i: int) -> str | None:
    """Two words either side of a negation, without it: what the text says if it is dropped."""
    before = [t.word.lower() for t in toks[max(0, i - _FRAME) : i]]
    after = [t.word.lower() for t in toks[i + 1 : i + 1 + _FRAME]]
    if not after or len(before) + len(after) < _FRAME + 1:
        return None
    if any(w in _NEGATIONS for w in before + after):
        return None
    return " " + " ".join(before + after) + " "
