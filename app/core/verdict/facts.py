"""The facts a sentence commits to, for checking an answer sentence against a passage span.

Word overlap cannot tell "completed in 1889" from "completed in 1890", "Rollo" from "Charles",
or "is enforced" from "is not enforced": the words that carry the claim are few. So besides
coverage, a sentence's numbers (digits, number words, ordinals, months), its names (capitalised
words after the first) and its negations are compared with the span it rests on; any of them
that the span contradicts or lacks makes the sentence unsupported. A negation is compared
where it applies: a "not" counts as added or removed only when the other text has the words
around it (the word it negates and a word of its clause, or the same few words in a row without
it), so a clause dropped from a shortened sentence does not count as a removed "not"; "rather
than" and "instead of" deny the words after them as a "not" does (``negation`` reads which
words a negation rules). Opposites count like a negation: a sentence saying "passed",
"increased", "after", "the most", "may" where its span says "failed", "decreased", "before",
"the least", "must" is contradicted (a negated word counts as its opposite: "did not pass"
agrees with "failed"; ``opposites``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from app.core.text import stem
from app.core.verdict.checks import Finding, on
from app.core.verdict.dated import figure_years, period_name, year_swapped
from app.core.verdict.days import Days, day_not_given, given_words, written_days
from app.core.verdict.figures import computed
from app.core.verdict.labelled import Label, labels, role_elsewhere, said_roles
from app.core.verdict.lang.en import COMPUTATION_WORDS as _COMPUTATION_WORDS
from app.core.verdict.lang.en import MONTHS as _MONTHS
from app.core.verdict.lang.en import NEGATION_MOVED as _MOVED
from app.core.verdict.lang.en import NUMBER_WORDS as _NUMBER_WORDS
from app.core.verdict.lang.en import ONE_AS_MEMBER_AFTER as _ONE_AS_MEMBER_AFTER
from app.core.verdict.lang.en import ONE_AS_PRONOUN_BEFORE as _ONE_AS_PRONOUN_BEFORE
from app.core.verdict.lang.en import ONE_COUNTED_AFTER as _ONE_COUNTED_AFTER
from app.core.verdict.lang.en import ONE_SAID_AS as _ONE_SAID_AS
from app.core.verdict.lang.en import ORDINAL_IDIOMS as _NOT_FIGURES
from app.core.verdict.lang.en import ORDINAL_SUFFIXES as _ORDINAL_SUFFIX
from app.core.verdict.lang.en import PERCENT as _PERCENT
from app.core.verdict.lang.en import PRONOUNS as _PRONOUNS
from app.core.verdict.lang.en import SCALE_WORDS as _MULTIPLIERS
from app.core.verdict.lang.en import spelled_figures, whole_day_word
from app.core.verdict.measures import Measure, measures, quantities, written
from app.core.verdict.names import known_name, runs, spelled_out
from app.core.verdict.negation import clause_word, frame, negates, scope
from app.core.verdict.opposites import Poles, opposed, polarity, pole_at
from app.core.verdict.terms import same_sense
from app.core.verdict.tokens import Token, tokens

_ONE_STEMS = frozenset(stem(w) for w in _ONE_SAID_AS)


@dataclass(frozen=True)
class Facts:
    """What a text commits to: numbers, names, and what it negates."""

    stems: frozenset[str]  # every word's stem (lower case), to look names and words up
    numbers: frozenset[str]  # normalised: "1,000" -> "1000", "three" -> "3", "May" -> "may"
    names: frozenset[str]  # stems of capitalised words that are not the sentence's first
    negations: tuple[tuple[str, str], ...]  # (an anchor word in its clause, the negated word)
    negated: frozenset[str]  # stems within a negation's reach
    pronoun: bool  # refers back to something named earlier ("he", "its", "this")
    counted: frozenset[tuple[str, str]] = frozenset()  # (number, the word it counts): 3 waves
    frames: tuple[str, ...] = ()  # " a b c d ": the words around a "not", without it
    words: str = " "  # every word in order, lower case, space-separated and space-framed
    spelled: dict[str, str] = field(default_factory=dict, compare=False)  # stem -> word
    # (axis, side, as written, word before, word after) of each word of an opposite pair
    # ("not pass" is on fail's side)
    poles: Poles = ()
    # (number, its value scaled by the word after it): "1,577 million" is (1577, 1577000000)
    scaled: frozenset[tuple[str, str]] = frozenset()
    # the initials of each run of capitalised words ("members of the Scottish Parliament"
    # -> "msp", "National LambdaRail" -> "nlr"), with the run's stems
    runs: tuple[tuple[str, frozenset[str]], ...] = ()
    computes: bool = False  # says it computes ("+", "=", "margin", "change"): see ``computed``
    # (figure, the year in its clause): "$11.69 billion in 2017, up from $8.83 billion in
    # 2016" -> (11.69, 2017), (8.83, 2016); see ``dated.figure_years``
    dated: frozenset[tuple[str, str]] = frozenset()
    percents: frozenset[str] = frozenset()  # its figures written as percentages ("8%")
    days: Days = field(default_factory=Days, compare=False)  # "28 February 2025" whole
    labels: frozenset[Label] = frozenset()  # roles given in brackets: "Ann Smith (landlord)"
    roles: frozenset[Label] = frozenset()  # roles it states: "Bob Jones is the landlord"
    # (figure, its quantity in its measure's base unit): "1 hour" -> ("1", "time:3600")
    measures: frozenset[Measure] = frozenset()


def _listed_before(toks: list[Token], i: int, number: str) -> list[str]:
    """``number`` (at ``i``) and the figures listed before it, which the word after it counts
    too: "$0.55, $0.50 and $0.50 per share" gives each figure "per share". A list ends in
    "and" or "or" before its last figure; without one, a figure before a comma is another
    phrase's ("In 2019, 500 people")."""
    out = [number]
    if i < 2 or toks[i - 1].word.lower() not in ("and", "or"):
        return out
    j = i - 2
    while j >= 0 and (listed := _number(toks[j].word.lower())) is not None:
        out.append(listed)
        if not toks[j].after_break:  # no comma before it: the list starts here
            break
        j -= 1
    return out


def facts(text: str) -> Facts:
    """The facts of one sentence or span, its figures read as the passage may write them
    ("forty-five" as 45, "per cent" as "%": ``en.spelled_figures``)."""
    text = spelled_figures(text)
    toks = tokens(text)
    numbers: set[str] = set()
    names: set[str] = set()
    negations: list[tuple[str, str]] = []
    negated: set[str] = set()
    frames: list[str] = []
    spelled: dict[str, str] = {}
    counted: set[tuple[str, str]] = set()
    poles: list[tuple[str, int, str, str, str]] = []
    pairs: set[tuple[str, str]] = set()
    figure_at: dict[int, str] = {}
    expanded: set[str] = set()  # the whole names of "Mar", "Fri" written short by a figure
    first = True
    for i, t in enumerate(toks):
        low = t.word.lower()
        whole = whole_day_word(t.word, _next_to_figure(toks, i))
        if whole is not None:
            expanded.add(stem(whole))
        number = _number(low)
        if low == "one" and _pronoun_one(toks, i):
            number = None
        if number is not None and i and f"{toks[i - 1].word.lower()} {low}" in _NOT_FIGURES:
            number = None  # "at first as a fiefdom": at the start, not the first of a count
        if number is not None and i and toks[i - 1].glued and period_name(toks[i - 1].word, low):
            number = None  # "Q2", "H1": a period's name, which a filing writes as its months
        if number is not None:
            numbers.add(number)
            figure_at[i] = number
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            scaled = _scaled(number, nxt.word.lower() if nxt else "")
            if scaled:
                numbers.add(scaled)
                pairs.add((number, scaled))
            # "$5,466 million" is a value (compared by value), not 5,466 of something
            if (
                nxt is not None
                and not scaled
                and nxt.content
                and not nxt.after_break
                and _number(nxt.word.lower()) is None
            ):
                counted.update((n, nxt.stem) for n in _listed_before(toks, i, number))
        elif (whole or low) in _MONTHS and t.word[0].isupper() and not first:
            numbers.add(whole or low)
        elif t.word[0].isupper() and (not first or _marked(t.word)) and t.content and not t.glued:
            # a sentence's first word is capitalised anyway, unless marked
            names.add(stem(whole) if whole else t.stem)
        spelled.setdefault(t.stem, t.word)
        if negates(toks, i):
            governed = scope(toks, i)
            negated.update(governed)
            if i and toks[i - 1].word.lower() in _MOVED and not t.after_break:
                negated.add(toks[i - 1].stem)  # "would otherwise not be": "not otherwise"
            anchor = clause_word(toks, i) or (governed[1] if len(governed) > 1 else None)
            if governed and anchor:
                negations.append((anchor, governed[0]))
            around = frame(toks, i)
            if around:
                frames.append(around)
        pole = pole_at(toks, i)
        if pole is not None:
            poles.append(polarity(toks, i, pole))
        first = first and not t.word[0].isalnum()
    return Facts(
        frozenset(t.stem for t in toks) | expanded,
        frozenset(n for n in numbers if n not in _ORDINAL_SUFFIX),
        frozenset(names),
        tuple(negations),
        frozenset(negated),
        any(t.word.lower() in _PRONOUNS for t in toks),
        frozenset(counted),
        tuple(frames),
        " " + " ".join(t.word.lower() for t in toks) + " ",
        spelled,
        tuple(poles),
        frozenset(pairs),
        runs(toks),
        bool(_COMPUTING.search(text)),
        figure_years([t.word for t in toks], [t.after_break for t in toks]),
        frozenset(m.group(1).replace(",", "") for m in _PERCENT.finditer(text)),
        written_days(text),
        labels(text),
        said_roles(text),
        measures(toks, figure_at),
    )


# A sentence that shows a computation: an operator between figures, or a word for one.
_COMPUTING = re.compile(
    r"\d\s*[-+×x*/÷=]\s*\$?\d|[=≈]|\b(?:" + "|".join(_COMPUTATION_WORDS) + r")\b",
    re.IGNORECASE,
)


def _next_to_figure(toks: list[Token], i: int) -> bool:
    """Whether the word at ``i`` has a figure right before or after it ("14 Mar", "Fri 14")."""
    return any(0 <= j < len(toks) and toks[j].word[:1].isdigit() for j in (i - 1, i + 1))


def _marked(word: str) -> bool:
    """A word whose capitals say it is a name wherever it stands: initials ("NSFNET", "US"),
    a capital inside it ("LambdaRail")."""
    return len(word) >= 2 and any(c.isupper() for c in word[1:])


def _pronoun_one(toks: list[Token], i: int) -> bool:
    """Whether "one" at ``i`` is a pronoun or part of a word ("the one you're in", "one of the
    first", "a one-liner"), or says what its subject is ("he was one leader who"), not the
    figure 1."""
    before = toks[i - 1].word.lower() if i else ""
    after = toks[i + 1] if i + 1 < len(toks) else None
    if before in _ONE_COUNTED_AFTER and not toks[i].hyphened:
        return False  # "only one of the three expeditions": a count
    if before in _ONE_AS_PRONOUN_BEFORE or toks[i].hyphened:
        return True
    if before in _ONE_AS_MEMBER_AFTER and not (i > 1 and toks[i - 2].word.lower() == "there"):
        return True  # "there was one survivor" counts
    later = [t.word.lower() for t in toks[i + 1 : i + 1 + _ONE_ANOTHER_REACH]]
    if "another" in later or any(a == "the" and b == "other" for a, b in pairwise(later)):
        return True  # "one country taking control of another", "one … the other"
    return after is None or after.word.lower() == "of" or not after.content


_ONE_ANOTHER_REACH = 8  # "one … another" this many words apart is no count


def _closest(missing: list[str], have: Iterable[str], k: int = 3) -> list[str]:
    """The ``k`` figures of ``have`` most like the first of ``missing``, most like first:
    a year's other years, an amount's nearest amounts (a reason naming "1, 2023, 2024" for a
    missing 2025 read as the passage's smallest figures, not the ones it might mean)."""
    try:
        target = float(missing[0])
    except (IndexError, ValueError):
        return sorted(have)[:k]

    def unlike(n: str) -> tuple[int, float, str]:
        try:
            value = float(n)
        except ValueError:
            return (2, 0.0, n)  # a month's name, after the figures
        digits = len(n.split(".")[0]) != len(missing[0].split(".")[0])
        return (int(digits), abs(value - target), n)

    return sorted(have, key=unlike)[:k]


def _as_written(number: str, said: Facts) -> str:
    """A figure as the text writes it ("1,450" for 1450), else as normalised."""
    for key, word in said.spelled.items():
        if key[:1].isdigit() and _number(key.lower()) == number:
            return word
    return number


def _number(low: str) -> str | None:
    """A number word or digits, normalised ("1,000" -> "1000", "three" -> "3"), else None."""
    if low[0].isdigit():
        return low.replace(",", "")
    return _NUMBER_WORDS.get(low)


def _scaled(number: str, word: str) -> str | None:
    """'3' before 'thousand' is also 3000, so "three thousand" matches "3,000"."""
    try:
        value = float(number) * _MULTIPLIERS[word]
    except (KeyError, ValueError):
        return None
    return str(int(value)) if value == int(value) else None


def conflicts(
    claim: Facts,
    span: Facts,
    context: Facts | None = None,
    titled: frozenset[str] = frozenset(),
    passage: Facts | None = None,
    *,
    table_scale: int | None = None,
) -> list[Finding]:
    """How ``span`` fails to back ``claim``'s facts; empty when nothing conflicts. Each
    finding names its check (``checks.CHECKS``): figure, figure_place, name, name_place,
    negation, opposite.

    ``context`` is the text just before the span: a name the span refers to with a pronoun
    may be named there. ``titled`` are the words of the source's file name and heading and
    its topic (the names it repeats, the years of its first line), which any sentence of it
    may leave unsaid. ``passage`` is the span's whole passage: a number or name it has
    elsewhere still fails the span, but the reason then says where it is instead of saying
    the passage lacks it. ``table_scale`` is the scale the passage states for its bare
    figures ("in thousands"), when it states one.
    """
    out: list[Finding] = []
    # a day the passage writes another way ("2024-02-28" for "28 February 2024"): its parts
    dated = given_words(claim.days, (passage or span).days)
    missing = [n for n in _missing_figures(claim, span, table_scale) if n not in titled | dated]
    mismeasured = _mismeasured(claim, span, missing)
    counts = {w for _, w in span.counted}
    measured = quantities(span.measures)  # "75 minutes" for "1 hour 15 minutes": no count
    by_count = sorted(
        {
            n
            for n, w in claim.counted - span.counted
            if w in counts and n not in missing and not quantities(claim.measures, n) & measured
        }
    )
    if by_count and on("computed") and claim.computes:  # "$17,606M", the sum of two "…M"
        given = [n for n in claim.numbers if n[:1].isdigit() and n not in missing + by_count]
        by_count = computed(by_count, given, claim.percents)
    # written with a scale the span gives the figure at another: "$23.3 billion" for its
    # "23.3 million"
    rescaled = [n for n in missing if n in span.numbers and n in {m for m, _ in claim.scaled}]
    missing = [n for n in missing if n not in rescaled]
    elsewhere = [n for n in missing if passage is not None and n in passage.numbers]
    missing = [n for n in missing if n not in elsewhere]
    if missing and on("figure"):
        have = [_as_written(n, span) for n in _closest(missing, span.numbers - claim.numbers)]
        out.append(
            Finding(
                "figure",
                f"the passage does not say {', '.join(_as_written(n, claim) for n in missing)}"
                + (f" (it has {', '.join(have)})" if have else ""),
            )
        )
    if mismeasured and on("figure"):
        out.append(
            Finding(
                "figure",
                "the passage gives "
                + ", ".join(
                    f"{written(span.measures, n)}, not {written(claim.measures, n)}"
                    for n in mismeasured
                ),
            )
        )
    if rescaled and on("figure"):
        out.append(Finding("figure", f"the passage gives {', '.join(rescaled)} at another scale"))
    if by_count and on("count_swapped"):  # in the span, so never "elsewhere" in the passage
        out.append(
            Finding(
                "count_swapped",
                f"the passage gives {', '.join(by_count)}, but as the count of something else",
            )
        )
    if on("figure_year"):
        out += year_swapped(claim.dated, span.dated)
    found_figure = any(f.check == "figure" for f in out)  # which says what the day lacks
    day = day_not_given(claim.days, (passage or span).days, titled) if on("day") else None
    if day is not None and not found_figure:
        out.append(day)
    if (
        on("labelled_role")
        and (
            swapped := role_elsewhere(
                claim.roles, (passage or span).labels, (passage or span).words
            )
        )
        is not None
    ):
        out.append(swapped)
    if elsewhere and on("figure_place"):
        out.append(
            Finding(
                "figure_place",
                f"the passage says {', '.join(elsewhere)}, but not in the sentence closest to this",
            )
        )
    known = span.stems | titled | {stem(w) for w in dated}
    if context is not None and span.pronoun:
        known |= context.stems
    absent = sorted(
        n
        for n in claim.names - known
        if not known_name(n, known, claim.words, claim.runs, span.runs)
        and not spelled_out(claim.spelled.get(n, n), span.words)  # "BP": "blood pressure"
    )
    named = [n for n in absent if passage is not None and n in passage.stems]
    absent = [n for n in absent if n not in named]
    if absent and on("name"):
        words = ", ".join(claim.spelled.get(n, n) for n in absent)
        out.append(Finding("name", f"the passage does not name {words}"))
    if named and on("name_place"):
        words = ", ".join(claim.spelled.get(n, n) for n in named)
        out.append(
            Finding(
                "name_place", f"the passage names {words}, but not in the sentence closest to this"
            )
        )
    added = _negation_changed(claim, span) if on("negation") else None
    if added:
        word = claim.spelled.get(added, added)
        out.append(Finding("negation", f"the passage does not say 'not' about '{word}'"))
    dropped = _negation_changed(span, claim, senses=True) if on("negation") else None
    if dropped:
        word = span.spelled.get(dropped, dropped)
        out.append(Finding("negation", f"the passage says the opposite ('not' about '{word}')"))
    if not (added or dropped) and on("opposite"):  # a negation named is not named again
        out += [Finding("opposite", why) for why in opposed(claim.poles, span.poles, span.words)]
    return out


def _mismeasured(claim: Facts, span: Facts, missing: list[str]) -> list[str]:
    """The claim's figures with a unit that the span gives with another quantity only: "five
    minutes" against "5 hours" or "5 pm" (the figure is there; the quantity is not)."""
    given = quantities(span.measures)
    return [
        n
        for n in sorted(claim.numbers - set(missing))
        if (mine := quantities(claim.measures, n))
        and quantities(span.measures, n)
        and not mine & given
    ]


def _missing_figures(claim: Facts, span: Facts, table_scale: int | None) -> list[str]:
    """The claim's figures the span does not give, compared by value (``figures``): "1,577
    million" is backed by "1,577,000,000", by a bare "1,577" (a table's figures in millions,
    unless the passage states another scale) and by "1,577.3 million" rounded, never by "1,577
    billion"."""
    from app.core.verdict.figures import restates, same_value

    stated = {n for n, _ in span.scaled}  # "1,577 billion": a figure with its own scale
    values = {v for _, v in span.scaled}  # and its value, which no table's scale multiplies
    plain = [m for m in span.numbers if m[:1].isdigit() and m not in stated | values]

    def backed(n: str, scaled: str) -> bool:
        """``n`` written with a scale (``scaled`` its value): that value, a bare figure
        read at a table's scale, or ``n`` itself bare where the table's scale is not stated."""
        if scaled in span.numbers or any(
            same_value(scaled, m, table_scale=table_scale) for m in plain
        ):
            return True
        if any(same_value(scaled, v, table_scale=1) for v in values):
            return True  # "about $11.7 billion" rounds "$11.69 billion" (scale 1: as stated)
        return table_scale is None and n in span.numbers and n not in stated

    groups: dict[str, set[str]] = {}  # "23.3 million … $23.3 billion": each scale checked
    for n, scaled in claim.scaled:
        groups.setdefault(n, set()).add(scaled)
    out = []
    for n in sorted(claim.numbers - {v for scales in groups.values() for v in scales}):
        scales = groups.get(n)
        if scales is not None:
            if all(backed(n, scaled) for scaled in scales):
                continue
        elif (
            n in span.numbers
            or (n[:1].isdigit() and any(same_value(n, m) for m in plain))
            or (n == "1" and span.stems & _ONE_STEMS)  # "one statement": "a single statement"
        ):
            continue
        out.append(n)
    measured = quantities(span.measures)  # "1 hour" for "60 minutes"
    out = [n for n in out if not quantities(claim.measures, n) & measured]
    if out and on("restated"):  # "$3,142,308 thousand (about $3.1 billion)": one value
        values = {v for scales in groups.values() for v in scales}
        backed_values = [
            v for n in claim.numbers - values if n not in out for v in groups.get(n, {n})
        ]
        out = [
            n
            for n in out
            if not all(any(restates(v, b) for b in backed_values) for v in groups.get(n, {n}))
        ]
    if out and on("computed") and claim.computes:
        given = [n for n in claim.numbers if n[:1].isdigit() and n not in out]
        out = computed(out, given, claim.percents)
    return out


def _negation_changed(negating: Facts, other: Facts, senses: bool = False) -> str | None:
    """A word ``negating`` negates that ``other`` states without the negation, if any, read
    with the words of its sense (``terms.same_sense``: "not allowed" agrees with "one cat is
    allowed; dogs are not permitted"). With ``senses`` (a "not" the claim drops) a word of
    its sense is enough (the passage's "not permitted" against the claim's "allowed"); else
    (a "not" the claim adds) its own word must be there: "not allowed" is no opposite of a
    passage's "permitted … prohibited"."""
    anchors = {a for a, _ in other.negations}
    for anchor, word in negating.negations:
        said = [w for w in (word, *same_sense(word)) if w in other.stems]
        if not (senses or word in other.stems):
            continue
        if (anchor in other.negated) if not senses else (word in anchors):
            continue  # the same "not" scoped otherwise: "covers parts but not labour" for
            # "labour isn't covered"
        if said and anchor in other.stems and not any(w in other.negated for w in said):
            return word
    for around in negating.frames:
        if around in other.words:
            return around.split()[-1]
    return None


def merge(parts: list[Facts]) -> Facts:
    """The facts of several spans taken together (an answer sentence may rest on two)."""
    if len(parts) == 1:
        return parts[0]
    spelled: dict[str, str] = {}
    for p in parts:
        spelled.update(p.spelled)
    return Facts(
        frozenset().union(*(p.stems for p in parts)),
        frozenset().union(*(p.numbers for p in parts)),
        frozenset().union(*(p.names for p in parts)),
        tuple(n for p in parts for n in p.negations),
        frozenset().union(*(p.negated for p in parts)),
        any(p.pronoun for p in parts),
        frozenset().union(*(p.counted for p in parts)),
        tuple(f for p in parts for f in p.frames),
        " ".join(p.words for p in parts),
        spelled,
        tuple(x for p in parts for x in p.poles),
        frozenset().union(*(p.scaled for p in parts)),
        runs=tuple(r for p in parts for r in p.runs),
        dated=frozenset().union(*(p.dated for p in parts)),
        days=Days.union([p.days for p in parts]),
        labels=frozenset().union(*(p.labels for p in parts)),
        measures=frozenset().union(*(p.measures for p in parts)),
    )
