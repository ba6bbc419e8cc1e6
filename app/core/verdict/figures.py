"""Figures as values: what number a written figure is, and when two figures are the same one.

"1,577 million", "$1.577 billion" and a balance sheet's bare "1,577" (its figures in millions)
are one value; "1,577 billion" is another; "about $5,466 million" is the 5,466,312 of a table
in thousands, rounded. A figure is read with its sign, its decimals, a scale word after it
("million", "bn", the "M" of "$1,305M") and a percent sign; years, ordinals ("10th"), spelled
numbers ("three") and month names are figures too. Two figures match when their values are
equal, when one rounds the other to the digits it gives, or when a bare figure is the other
read at a table's scale (thousands, millions, billions) — unless the passage states its scale
("in thousands"), which then is the only one allowed.

A range ("1919–1980", "from 200,000 to 1,000,000") is one figure, its key the two values
joined by an en dash; it is the same figure as the range with the same ends, or as a single
figure inside it.

Values are kept as strings of digits (``key``), so they can stand in word sets beside stems.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection

from app.core.verdict.lang import en

# A figure as written: "1,577", "1.5", "-3", "(1,373)", "14.6%", "1860s", "10th", "$1,305M".
_FIGURE = re.compile(
    r"^[(\-−–]?[$€£¥]?(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<decimals>\.\d+)?"
    r"(?P<suffix>%|s|st|nd|rd|th|[kKmMbB]n?|bn|tn)?\)?$"
)
_SCALE_SUFFIX = {"k": 10**3, "m": 10**6, "mn": 10**6, "b": 10**9, "bn": 10**9, "tn": 10**12}
SUFFIXES = _SCALE_SUFFIX  # a scale letter written against its figure ("$1,305M")
# A range written as one token ("1919–1980", "1862–90", "2021-22"): one figure, read whole.
RANGE = re.compile(r"\d[\d,.]*[–—-]\d[\d,.]*")
TABLE_SCALES = (10**3, 10**6, 10**9)


def value_of(text: str) -> str | None:
    """The value of a figure as written (digits, no separators: "1,577" -> "1577", "1.50" ->
    "1.5", "$1,305M" -> "1305000000", "three" -> "3", "10th" -> "10"), or None."""
    low = text.strip().lower()
    if low in en.NUMBER_WORDS:
        return en.NUMBER_WORDS[low]
    m = _FIGURE.match(low.replace("−", "-"))
    if not m:
        return None
    digits = m.group("digits").replace(",", "")
    decimals = (m.group("decimals") or "").rstrip("0").rstrip(".")
    number = digits + decimals
    suffix = (m.group("suffix") or "").lower()
    if suffix in _SCALE_SUFFIX:
        return scaled(number, _SCALE_SUFFIX[suffix])
    return number


def scaled(number: str, factor: int) -> str:
    """``number`` times ``factor``, as digits ("1.5", 10**6 -> "1500000")."""
    value = float(number) * factor
    if value == int(value):
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")


def scale_word(word: str) -> int | None:
    """The factor of a scale word ("thousand", "million", "billion", "bn"), or None."""
    return en.SCALE_WORDS.get(word.lower())


def range_of(text: str) -> str | None:
    """The key of a range written as one token ("1919–1980", "1862–90": "1862–1890"), or None:
    a range is compared whole."""
    if not RANGE.fullmatch(text):
        return None
    start, end = re.split("[–—-]", text, maxsplit=1)
    low, high = value_of(start), value_of(end)
    if low is None or high is None:
        return None
    if float(high) < float(low) and len(high) < len(low):  # "1862–90": the century is the start's
        high = low[: len(low) - len(high)] + high
    return f"{low}–{high}"


def range_key(low: str, high: str) -> str | None:
    """The key of the range from value ``low`` to ``high`` ("200,000 to 1,000,000"), or None
    when they make none (the first not the smaller, or either a range already)."""
    try:
        return f"{low}–{high}" if float(low) < float(high) else None
    except ValueError:
        return None


def bounds(key: str) -> tuple[float, float] | None:
    """The ends of a range's key ("1919–1980"), or None for a single figure."""
    low, dash, high = key.partition("–")
    return (float(low), float(high)) if dash else None


def same_figure(a: str, b: str) -> bool:
    """Two figures' keys are one value; a range is the same range, or holds the single figure
    ("in 1884" of "in 1883–84")."""
    ends_a, ends_b = bounds(a), bounds(b)
    if ends_a is not None and ends_b is not None:
        return ends_a == ends_b
    ends, single = (ends_a, b) if ends_a is not None else (ends_b, a)
    if ends is None:
        return same_value(a, b)
    try:
        return ends[0] <= float(single) <= ends[1]
    except ValueError:
        return False


def same_value(a: str, b: str, *, table_scale: int | None = None) -> bool:
    """Whether figures ``a`` (a claim's) and ``b`` (a passage's) are one value: equal; ``a``
    rounding ``b``; or ``b`` read at a table's scale (``table_scale`` when the passage states
    it, else any of thousands, millions, billions) equal to or rounded by ``a``."""
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    if x == y or _rounds(a, y):
        return True
    if y == 0 or x <= abs(y):
        return False
    scales = (table_scale,) if table_scale else TABLE_SCALES
    return any(x == y * s or _rounds(a, y * s) for s in scales if s)


def restates(a: str, b: str) -> bool:
    """Whether figure ``a`` is figure ``b`` (both of one claim, each at its own scale)
    rounded to ``a``'s last significant digit, however coarse: "$3,142,308 thousand (about
    $3.1 billion)" says one value twice. (Against a passage, ``same_value`` asks for three
    significant digits: a coarse figure rounds too many of a table's.)"""
    try:
        return float(a) != float(b) and _rounds(a, float(b), least=1)
    except ValueError:
        return False


def _rounds(claim: str, value: float, *, least: int = 3) -> bool:
    """Whether ``claim`` is ``value`` rounded to the claim's last significant digit, with at
    least ``least`` significant digits kept ("5466000000" for 5,466,312,000)."""
    x = float(claim)
    if x == 0 or value == 0 or (x < 0) != (value < 0):
        return False
    digits = claim.lstrip("-").replace(".", "").rstrip("0")
    if len(digits) < least:
        return False
    if "." in claim:
        step = 10 ** -(len(claim.split(".")[1]))
    else:
        step = 10 ** (len(claim) - len(claim.rstrip("0")))
    return math.isclose(round(value / step) * step, x, rel_tol=1e-9) and abs(value - x) < step


def stated_scale(text: str) -> int | None:
    """The scale a passage states for its bare figures ("in thousands"), if exactly one."""
    found = {m.group(1).lower() for m in en.STATED_SCALE.finditer(text)}
    if len(found) != 1:
        return None
    return en.SCALE_WORDS[found.pop()]


def computed(missing: list[str], given: list[str], percents: Collection[str] = ()) -> list[str]:
    """Of the claim's ``missing`` figures, those that are not worked out from the figures it
    gives that the passage has (``given``): a sum, difference, product, ratio, percentage or
    percentage change of two of them, to the claim's own precision ("$17,606M" for $15,441M +
    $2,165M; "34.6%" for 6,098 / 17,606). A worked-out figure may be worked on again. A figure
    written as a percentage (in ``percents``) is a percentage or a percentage change of two
    figures, or the sum or difference of two percentages: "12%" is not 1,200 / 100, nor
    1,200 - 1,188."""
    have = [(float(g), g in percents) for g in dict.fromkeys(given)]
    left = list(missing)
    changed = True
    while left and changed:
        changed = False
        for n in list(left):
            if _worked_out(n, have, percent=n in percents):
                left.remove(n)
                have.append((float(n), n in percents))
                changed = True
    return left


def _worked_out(claim: str, have: list[tuple[float, bool]], *, percent: bool) -> bool:
    """Whether ``claim`` is worked out from two of ``have`` (each value, and whether it is a
    percentage), as ``computed`` says."""
    try:
        value = float(claim)
    except ValueError:
        return False
    step = 10 ** -len(claim.split(".")[1]) if "." in claim else 1.0
    for i, (a, a_percent) in enumerate(have):
        for j, (b, b_percent) in enumerate(have):
            if i == j:
                continue
            results = [100 * a / b, 100 * (a - b) / b] if b else []
            if not percent:
                results += [a + b, a - b, a * b] + ([a / b] if b else [])
            elif a_percent and b_percent:
                results += [a + b, a - b]
            if any(abs(abs(r) - abs(value)) <= step / 2 + 1e-9 for r in results):
                return True
    return False
