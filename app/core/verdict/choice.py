"""Which passage spans a claim sentence rests on, and what they fail to back.

A claim is its content words, weighted by rarity across the sources, and the facts it commits
to (``facts``). The span that adds most coverage is chosen, one passage sentence unless an
adjacent pair clearly covers more (``_PAIR_MARGIN``), and, where the claim cites two sources,
a second span from another one when it adds enough (``_EXTRA_SPAN_GAIN``). A choice that
covers the claim but contradicts one of its facts gives way to another span only where that
one covers the claim nearly as well (``RIVAL_SHARE``): a span that merely shares the
sentence's common words is no witness. ``marks`` reads the choice into a sentence's mark.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.verdict.checks import Finding
from app.core.verdict.facts import Facts, conflicts, merge
from app.core.verdict.spans import Span

_EXTRA_SPAN_GAIN = 0.15  # a second span (another cited source) must add this much coverage
_PAIR_MARGIN = 0.15  # two adjacent passage sentences must cover this much more than one
RIVAL_SHARE = 0.85  # a span backing a fact the closest span contradicts covers this much of it


@dataclass
class Claim:
    """An answer sentence as the choice reads it: its terms' weights and its facts."""

    weights: dict[str, float]
    facts: Facts


def _coverage(weights: dict[str, float], terms: set[str]) -> float:
    """The share of the claim's weighted terms that ``terms`` holds."""
    total = sum(weights.values())
    return sum(w for t, w in weights.items() if t in terms) / total if total else 0.0


def _best(
    weights: dict[str, float], candidates: list[Span], have: set[str], threshold: float
) -> Span | None:
    """The span adding most coverage to ``have``: one sentence unless a pair clearly wins."""
    base = _coverage(weights, have)
    top: dict[bool, tuple[float, Span] | None] = {True: None, False: None}
    for sp in candidates:
        gain = round(_coverage(weights, sp.terms | have) - base, 9)
        best = top[sp.single]
        shorter = best is not None and sp.end - sp.start < best[1].end - best[1].start
        if gain > 0 and (best is None or gain > best[0] or (gain == best[0] and shorter)):
            top[sp.single] = (gain, sp)
    single, pair = top[True], top[False]
    if pair is None:
        return single[1] if single else None
    if single is None:
        return pair[1]
    wins = pair[0] >= single[0] + _PAIR_MARGIN or base + single[0] < threshold <= base + pair[0]
    return pair[1] if wins else single[1]


def unbacked(claim: Claim, chosen: list[Span]) -> list[Finding]:
    """What the chosen spans (together) fail to back among the claim's facts."""
    if not chosen:
        return []
    titled = frozenset().union(*(sp.titled for sp in chosen))
    return conflicts(
        claim.facts,
        merge([sp.facts for sp in chosen]),
        merge([sp.context for sp in chosen]),
        titled,
        merge([sp.whole for sp in chosen]),
        table_scale=chosen[0].scale,
    )


def _consistent(claim: Claim, pool: list[Span], threshold: float) -> list[Span]:
    """The best-covering span of ``pool`` that covers enough and contradicts no fact."""
    ranked = sorted(
        (sp for sp in pool if _coverage(claim.weights, sp.terms) >= threshold),
        key=lambda sp: (-_coverage(claim.weights, sp.terms), not sp.single, sp.end - sp.start),
    )
    return next(([sp] for sp in ranked if not unbacked(claim, [sp])), [])


def choose(
    claim: Claim, pool: list[Span], extra: bool, threshold: float, floor: float = 0.0
) -> tuple[list[Span], list[Finding]]:
    """Spans of ``pool`` that back the claim, or the closest ones and what they fail to back.

    When the closest spans contradict a fact, another span may back the claim instead, but
    only one that covers it nearly as well (``RIVAL_SHARE``, and at least ``floor``): a span
    that merely shares the sentence's common words is no witness. Against a span that says
    the opposite word of the same things, only one that covers it at least as well.
    """
    chosen = _pick(claim.weights, pool, extra, threshold)
    score = score_of(claim.weights, chosen)
    problems = unbacked(claim, chosen)
    if score >= threshold and not problems:
        return chosen, []
    share = 1.0 if any(f.check == "opposite" for f in problems) else RIVAL_SHARE
    other = _consistent(claim, pool, max(threshold, floor, share * score))
    return (other, []) if other else (chosen, problems)


def only_unwitnessed(claim: Claim, listed: list[Span], threshold: float) -> Span | None:
    """The contents line or planted instruction that alone would have backed the claim."""
    best = _best(claim.weights, listed, set(), threshold)
    if best is None or _coverage(claim.weights, best.terms) < threshold:
        return None
    return best


def _pick(weights: dict[str, float], pool: list[Span], extra: bool, threshold: float) -> list[Span]:
    """The best span of ``pool``, and with ``extra`` a second from another source when it adds
    ``_EXTRA_SPAN_GAIN`` of coverage."""
    first = _best(weights, pool, set(), threshold)
    if first is None:
        return []
    chosen = [first]
    if extra:
        rest = [sp for sp in pool if sp.n != first.n]
        second = _best(weights, rest, first.terms, threshold)
        gain = _coverage(weights, first.terms | (second.terms if second else set()))
        if second is not None and gain - _coverage(weights, first.terms) >= _EXTRA_SPAN_GAIN:
            chosen.append(second)
    return chosen


def score_of(weights: dict[str, float], chosen: list[Span]) -> float:
    """The coverage of the claim by the chosen spans together."""
    have = set().union(*(sp.terms for sp in chosen)) if chosen else set()
    return _coverage(weights, have)
