"""Sentence support marks: align each answer sentence to the passage span that supports it.

A span is one passage sentence or two adjacent ones (``spans``). Coverage is lexical: the share
of the sentence's content words (lowercased, stopwords removed, light suffix stemming), weighted
by rarity across the sources, that the span contains; the sources a sentence cites are tried
first. Coverage alone cannot see a swapped number, name or negation, so the facts the sentence
commits to (``facts.py``) are compared with the span as well: a sentence is supported only by
a span that covers it and contradicts none of its facts, else it is unsupported with the
reason ("the passage does not say 1898 (it has 1889)"). A sentence found word for word (or
nearly) in a source it cites is backed by that source, where its facts agree (``verbatim.py``).
Sentences about the sources themselves ("The sources do not say."), list numerals, headings,
contents lines and sentences with no content words are ``kind="meta"`` (``shapes.py``): they
are not claims, so they are never flagged as unsupported and carry no spans. Lines of a table
of contents or an index, and sentences addressed to the model, are no witness: they never back
a claim, and a claim only they back says so. A backed claim is then read for what it asserts
(``attest``: who did what, which figure belongs to which word), and, given the question, for
its premise (``premise``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

from app.core.text import citations, link_words, sentence_spans, stem, strip_citations
from app.core.verdict.attest import contradictions, linked
from app.core.verdict.captions import swapped_caption
from app.core.verdict.checks import Finding, on
from app.core.verdict.choice import RIVAL_SHARE, Claim, choose, only_unwitnessed, score_of, unbacked
from app.core.verdict.code import INLINE_CODE, code_source, inline_code_finding
from app.core.verdict.contrast import crossed
from app.core.verdict.copies import clauses_copied, figures_moved, find_copy
from app.core.verdict.declines import declines, gap
from app.core.verdict.facts import Facts, conflicts, facts, merge
from app.core.verdict.figures import RANGE, computed, same_value, scale_word
from app.core.verdict.kinds import (
    NOT_A_CLAIM,
    in_code_block,
    is_meta,
    is_planted,
    looks_like_code,
    sentence_kind,
)
from app.core.verdict.lang import en
from app.core.verdict.lines import lent_across
from app.core.verdict.measures import quantities
from app.core.verdict.opposites import opposed_about
from app.core.verdict.order import reversed_order
from app.core.verdict.premise import asked_event, counted_other, echoed, premise, undated
from app.core.verdict.question import asked as asked_for
from app.core.verdict.question import counted_group, defined_names
from app.core.verdict.relations import lead_name, main_clauses, read_text
from app.core.verdict.sentence import SentenceMark
from app.core.verdict.spans import Passage, Span, by_initials, rarity, source_spans
from app.core.verdict.terms import lemma_terms

__all__ = ["Passage", "is_meta", "mark_sentences", "prepare"]

SUPPORT_THRESHOLD = 0.5
GAP = "says the sources do not give this: not a claim"


def mark_sentences(
    answer: str,
    sources: Sequence[Passage],
    *,
    threshold: float = SUPPORT_THRESHOLD,
    question: str = "",
) -> list[SentenceMark]:
    """Split ``answer`` into sentences and find each one's best supporting passage span."""
    by_n = {s.n: s for s in sources}
    spans = source_spans(sources)
    idf = rarity(spans)
    unseen = math.log(1 + sum(sp.single for v in spans.values() for sp in v) + 1)
    held = {n: frozenset().union(*(sp.terms for sp in group)) for n, group in spans.items()}
    # the question's words, read for the premises an answer takes from it; a how-to question
    # states none, only what the person wants done ("both columns of a composite key")
    asked = lemma_terms(question) if question and not en.HOW_TO.match(question) else set()
    wants = asked_for(question).kind if question else ""
    defined = defined_names(question) if question and on("defined") else frozenset()
    event = asked_event(question) if wants == "time" else None
    counted = counted_group(question) if wants == "number" else frozenset()
    said_where = [sp.text for group in spans.values() for sp in group if sp.single and sp.witness]
    marks: list[SentenceMark] = []
    for start, end in sentence_spans(answer, lines=True):
        text = answer[start:end]
        cited = citations(INLINE_CODE.sub(lambda m: " " * len(m.group()), text))
        valid = [n for n in cited if n in by_n]
        bad = [n for n in cited if n not in by_n] if on("citation") else []
        mark = SentenceMark(text, start, end, supported=True, sources=valid, bad_citations=bad)
        plain = strip_citations(text)
        terms = lemma_terms(plain)
        shape = "" if bad else sentence_kind(answer, start, end) or ("" if terms else NOT_A_CLAIM)
        if shape and not on("about_sources" if shape == NOT_A_CLAIM else "layout"):
            shape = ""
        found = gap(plain) if shape in ("", NOT_A_CLAIM) and on("gap") else None
        if found is not None:
            first = not any(m.kind == "claim" or m.declines for m in marks)
            mark.kind, mark.reason, mark.checks = "meta", GAP, ["gap"]
            mark.declines = declines(question, plain, found, first=first)
        elif shape:
            mark.kind, mark.reason = "meta", shape
            mark.checks = ["about_sources" if shape == NOT_A_CLAIM else "layout"]
        elif on("planted") and is_planted(plain):
            mark.supported, mark.planted, mark.checks = False, True, ["planted"]
            mark.reason = (
                "this is an instruction addressed to the model, not a claim your files make"
            )
        elif on("code") and (in_code_block(answer, start) or looks_like_code(plain)):
            _code(mark, plain, by_n)
        else:
            weights = {t: idf.get(t, unseen) for t in terms}
            stated = facts(plain)
            opens = on("name") and not _CODE_FIRST.match(plain)  # code is the code checks'
            lead = lead_name(_plain_markup(plain)) if opens else None
            if lead is not None and _in_lower_case(lead, sources):
                lead = None  # "Use `visudo` …": a word the passages write in lower case
            if lead is not None:  # a name the sentence opens with, which facts cannot tell
                stated = replace(stated, names=stated.names | {stem(lead.lower())})
            if stated.names & defined:  # the question's own word for what passages say
                stated = replace(stated, names=stated.names - defined)
            claim = Claim(weights, stated)
            _figures_by_value(claim, terms, spans)
            copied = on("copy") and _copied(mark, plain, claim, by_n, spans)
            if not copied:
                _align(mark, claim, by_initials(spans, plain, stated.runs), threshold)
            if mark.supported and not _tabular(plain) and not _reordered(mark, plain, by_n):
                _relations(mark, plain, spans, asked, copied, wants)
            if not mark.supported and on("clauses"):
                _clauses(mark, plain, sources, threshold, question)
            if mark.supported:
                _inline_code(mark, text, by_n)  # the code as written: "[2:4]" is no citation
            if mark.supported and on("opposite"):
                _opposed_elsewhere(mark, plain, spans)
            if mark.supported and on("crossed"):
                _crossed(mark, plain, by_n)
            if mark.supported and on("figure_order"):
                _moved(mark, plain, by_n)
            if mark.supported and on("line_lent"):
                _line_lent(mark, claim, spans)
            if mark.supported and on("caption"):
                _swapped_caption(mark, text, by_n)
            if mark.supported and asked:
                holding = [held[n] for n in mark.sources if n in held] or list(held.values())
                said = echoed(plain, asked, frozenset().union(*holding))
                said = said or undated(event, plain, said_where)
                said = said or _counted_other(mark, claim, counted, by_n)
                if said is not None:
                    mark.unback(said.check, said.reason[0].upper() + said.reason[1:])
        if bad:
            mark.supported, mark.checks = False, ["citation"]
            given = len(sources)
            have = "only source [1]" if given == 1 else f"only sources [1]–[{given}]"
            mark.reason = f"cites [{', '.join(map(str, bad))}], but the model was given " + (
                have if given else "no sources"
            )
        marks.append(mark)
    return marks


_CLAUSE_BREAK = re.compile(r"\s*;\s+")
_CLAUSE_TERMS = 3  # a clause read on its own says at least this much


def _clauses(
    mark: SentenceMark, plain: str, sources: Sequence[Passage], threshold: float, question: str
) -> None:
    """A sentence of clauses joined by semicolons, or by a comma and a conjunction with a
    subject of their own (``main_clauses``), each backed on its own: one sentence may gather
    what its passage says in three ("The war ended in 1748 with the treaty, which focused on
    Europe; the claims went to a commission that reached no decision"), which no span of one
    or two sentences covers. Only a sentence that lacked coverage, or had a name or
    figure outside its closest sentence, is read so: a contradiction stays one."""
    if not set(mark.checks) <= {"coverage", *_PLACED}:
        return
    parts = [c for p in _CLAUSE_BREAK.split(plain) if p.strip() for c in main_clauses(p)]
    if len(parts) < 2 or any(len(lemma_terms(p)) < _CLAUSE_TERMS for p in parts):
        return
    cites = "".join(f"[{n}]" for n in mark.sources)
    marks = [
        m
        for p in parts
        for m in mark_sentences(
            f"{p.rstrip(' .')} {cites}.", sources, threshold=threshold, question=question
        )
    ]
    if not all(m.kind == "claim" and m.supported for m in marks):
        return
    mark.supported, mark.checks = True, ["clauses"]
    mark.support_spans = list(dict.fromkeys(sp for m in marks for sp in m.support_spans))
    mark.reason = f"matches [{', '.join(map(str, mark.backed_by))}], clause by clause"


def _copied(
    mark: SentenceMark,
    plain: str,
    claim: Claim,
    by_n: dict[int, Passage],
    spans: dict[int, list[Span]],
) -> bool:
    """Back ``mark`` by the first source (cited ones first) holding it word for word, or nearly,
    in passage sentences that are witnesses and agree with its facts; True when one does."""
    order = mark.sources + [n for n in by_n if n not in mark.sources and not mark.sources]
    for n in order:
        found = find_copy(plain, by_n[n].text)
        if found is None:
            continue
        singles = [sp for sp in spans[n] if sp.single and sp.start < found[1] and found[0] < sp.end]
        if not singles or not all(sp.witness for sp in singles):
            continue
        start, end = singles[0].start, singles[-1].end
        text = by_n[n].text
        context = facts(text[singles[0]._context : start])
        if conflicts(
            claim.facts,
            facts(text[start:end]),
            context,
            singles[0].titled,
            table_scale=singles[0].scale,
        ):
            continue
        mark.supported, mark.score, mark.checks = True, 1.0, ["copy"]
        mark.support_spans = [(n, start, end)]
        cited = n in mark.sources or not mark.sources
        mark.reason = f"matches [{n}]" if cited else f"found in [{n}], not in the cited source"
        return True
    return False


def _line_lent(mark: SentenceMark, claim: Claim, spans: dict[int, list[Span]]) -> None:
    """Unback a claim resting on two lines of one kind that takes one line's figure or name
    into the other (``lines``): "Take metformin 20 mg twice daily" from the metformin line
    and the atorvastatin line's dose."""
    if len(mark.support_spans) != 1:
        return
    n, start, end = mark.support_spans[0]
    pair = next((sp for sp in spans.get(n, []) if (sp.start, sp.end) == (start, end)), None)
    if pair is None:
        return
    found = lent_across(claim.facts, claim.weights, pair, spans[n])
    if found is not None:
        mark.unback(found.check, found.reason[0].upper() + found.reason[1:])


def _reordered(mark: SentenceMark, plain: str, by_n: dict[int, Passage]) -> bool:
    """Whether the sentence is a passage sentence with its clauses moved (``copies``)."""
    return any(clauses_copied(plain, by_n[n].text) for n, _, _ in mark.support_spans)


def _relations(
    mark: SentenceMark,
    plain: str,
    spans: dict[int, list[Span]],
    asked: set[str],
    copied: bool = False,
    wants: str = "",
) -> None:
    """Unback a backed claim whose arcs the sentences of its sources contradict (``attest``):
    a role swapped, a slot given another name or figure, a figure attached to another word,
    a negation added or dropped; or that gives a name of the question (``asked``: its terms)
    a word no source sentence gives it (``premise``). Skipped without a parser.

    A near copy (``copied``) is read for its roles and slots, since a dropped clause may leave
    it another subject ("… called Abilene, in 1998 and was a prime investor", where the
    community was the investor); not for the question's premise, since it says what it says
    in the passage's own words, nor for two names given one word (``apart``), which a copy's
    parse may split where the passage's does not."""
    claim = read_text(_plain_markup(plain))
    if claim is None:
        return
    cited = [n for n in mark.sources if n in spans] or list(spans)
    read = [
        read_text(sp.text)
        for n in cited
        for sp in spans[n]
        if sp.single and sp.witness and not _tabular(sp.text)  # a table parses as no sentence
    ]
    pool = [r for r in read if r is not None]
    found = contradictions(claim, pool)
    if copied:
        found = [f for f in found if f.check != "apart"]
    elif not found and (taken := premise(claim, pool, asked, wants)) is not None:
        found = [taken]
    if not found and on("order"):
        texts = [sp.text for n in cited for sp in spans[n] if sp.single and sp.witness]
        turned = _reversed(plain, [t for t in texts if not _tabular(t)])
        found = [turned] if turned is not None else []
    if found:
        mark.supported = False
        mark.support_spans = []
        mark.checks = [f.check for f in found]
        why = "; ".join(f.reason for f in found)
        mark.reason = why[0].upper() + why[1:]


def _reversed(plain: str, passage_sentences: list[str]) -> Finding | None:
    """The order of two things the claim states that a passage sentence reverses
    (``order``): "Norman architecture followed the Early Gothic", where the Norman period
    precedes the Early Gothic."""
    from app.core.verdict.parse import parse, parse_all

    claim = parse(_plain_markup(plain))
    if claim is None:
        return None
    docs = [d for d in parse_all(passage_sentences) if d is not None]
    turned = reversed_order(claim, docs)
    if turned is None:
        return None
    first, then = turned.first.text, turned.then.text
    if turned.years is not None:
        was, later = turned.years
        return Finding("order", f"the passage dates {then} to {later}, {first} to {was}")
    return Finding("order", f"the passage puts {then} before {first}")


_FIGURE = re.compile(rf"{RANGE.pattern}|\d[\d,.]*")  # a range ("1919–1980") is one
_WORDS = re.compile(r"[^\W\d_]{2,}")


def _figures_by_value(claim: Claim, terms: set[str], spans: dict[int, list[Span]]) -> None:
    """Count a claim's figure as present in a span that gives it in other digits ("about
    $5,466 million" in a table's 5,466,312 thousand; "1,577 million" in a bare 1,577 of a table
    in millions; "1 hour" in "60 minutes", with its unit): coverage compares figures by value,
    as the figure checks do."""
    scaled = dict(claim.facts.scaled)
    scales = {t for t in terms if scale_word(t) is not None}
    for n in (t for t in terms if t[:1].isdigit()):
        value = scaled.get(n, n)
        for sp in (sp for group in spans.values() for sp in group):
            if n in sp.terms:
                continue
            figures = [t for t in sp.terms if t[:1].isdigit()]
            if any(same_value(value, m, table_scale=sp.scale) for m in figures):
                sp.terms = sp.terms | {n} | (scales if n in scaled else set())
    if claim.facts.measures:  # "1 hour" in a span that says "60 minutes": its figure and unit
        for sp in (sp for group in spans.values() for sp in group):
            said = quantities(sp.facts.measures)
            for figure, quantity, _ in claim.facts.measures:
                if quantity in said:
                    sp.terms = sp.terms | (terms & ({figure} | _UNIT_TERMS))
    if claim.facts.computes and on("computed"):  # worked out from figures the span gives
        mine = [t for t in terms if t[:1].isdigit()]
        for sp in (sp for group in spans.values() for sp in group):
            missing = [t for t in mine if t not in sp.terms]
            if missing and len(missing) < len(mine):
                given = [t for t in mine if t in sp.terms]
                left = computed(missing, given, claim.facts.percents)
                sp.terms = sp.terms | (set(missing) - set(left))


_UNIT_TERMS = frozenset(
    stem(w) for w in [*en.UNITS, *en.PERIOD_DAYS, *en.PERIOD_ADVERBS, "time", "times"]
)


def _in_lower_case(word: str, sources: Sequence[Passage]) -> bool:
    """Whether a source writes ``word`` in lower case, as a common word, not a name."""
    low = re.compile(rf"(?<![\w-]){re.escape(word.lower())}(?![\w-])")
    return any(low.search(p.text) for p in sources)


def _tabular(text: str) -> bool:
    """Rows of a table rather than a sentence: three figures or more, one to every four words
    or fewer (a link's address counts for neither)."""
    text = link_words(text)
    figures = len(_FIGURE.findall(text))
    return figures >= 3 and figures * 4 >= len(_WORDS.findall(text))


_CODE_FIRST = re.compile(r"^[\s*_#>+-]*`")  # a sentence that opens with inline code
_MARKUP = re.compile(r"\*\*|__|`|^\s*[-*+]\s+|^\s*#+\s*")


def _plain_markup(text: str) -> str:
    """A sentence without its Markdown emphasis, code ticks and list markers, for the parser."""
    return _MARKUP.sub(" ", text)


def _inline_code(mark: SentenceMark, sentence: str, by_n: dict[int, Passage]) -> None:
    """Unback a sentence whose inline code the sources do not hold as written, or that says
    an expression gives what a source's session shows it does not (``code.py``)."""
    found = inline_code_finding(sentence, [p.text for p in by_n.values()])
    if found is not None:
        mark.unback(found.check, found.reason)


def _code(mark: SentenceMark, line: str, by_n: dict[int, Passage]) -> None:
    """Back a line of code by the first source (cited ones first) holding it character for
    character, whitespace aside: code with one key or operator changed is other code."""
    order = mark.sources + [n for n in by_n if n not in mark.sources]
    found = code_source(line, order, {n: p.text for n, p in by_n.items()})
    mark.checks = ["code"]
    if found is None:
        mark.supported, mark.score = False, 0.0
        mark.reason = "no source holds this code as written"
        return
    n = found[0]
    mark.supported, mark.score, mark.support_spans = True, 1.0, [found]
    cited = n in mark.sources or not mark.sources
    mark.reason = f"matches [{n}]" if cited else f"found in [{n}], not in the cited source"


def _align(
    mark: SentenceMark, claim: Claim, spans: dict[int, list[Span]], threshold: float
) -> None:
    threshold = threshold if on("coverage") else 0.0
    cited = [n for n in mark.sources if n in spans]
    listed = [sp for group in spans.values() for sp in group if not sp.witness]
    spans = {n: [sp for sp in group if sp.witness] for n, group in spans.items()}
    pool = [sp for n in (cited or list(spans)) for sp in spans[n]]
    chosen, problems = choose(claim, pool, len(cited) > 1, threshold)
    score = score_of(claim.weights, chosen)
    if cited and (score < threshold or problems):  # the claim may be in a source it did not cite
        rest = [sp for n in spans if n not in cited for sp in spans[n]]
        floor = RIVAL_SHARE * score if problems else 0.0
        others, trouble = choose(claim, rest, False, threshold, floor)
        if score_of(claim.weights, others) >= max(threshold, floor) and not trouble:
            chosen, problems, score = others, [], score_of(claim.weights, others)
    placed = bool(problems) and {f.check for f in problems} <= _PLACED
    if placed and _in_relation(mark, claim.facts, chosen, spans):
        problems = []
    if cited and (score < threshold or problems) and {f.check for f in problems} <= _PLACED:
        spread = _spread(mark, claim, spans, cited, threshold)
        if spread:
            chosen, score, problems = spread, score_of(claim.weights, spread), []
    mark.score = round(score, 4)
    mark.support_spans = [(sp.n, sp.start, sp.end) for sp in chosen]
    mark.supported = score >= threshold and not problems
    found = sorted({sp.n for sp in chosen})
    if not mark.supported:
        mark.support_spans = []
        lister = only_unwitnessed(claim, listed, threshold) if score < threshold else None
        if problems:
            where = f"[{', '.join(map(str, found))}]"
            mark.checks = list(dict.fromkeys(f.check for f in problems))
            mark.reason = f"{'; '.join(f.reason for f in problems)}; closest: {where}"
            mark.reason = mark.reason[0].upper() + mark.reason[1:]
        elif lister is not None:
            mark.planted, mark.checks = lister.planted, ["witness"]
            mark.reason = (
                f"only an instruction addressed to the model in [{lister.n}] says this"
                if lister.planted
                else f"only a table of contents or an index in [{lister.n}] lists this"
            )
        elif not cited:
            mark.reason, mark.checks = "no source contains this", ["coverage"]
        elif len(cited) == 1:
            mark.reason, mark.checks = (
                f"the cited source [{cited[0]}] does not contain this",
                ["coverage"],
            )
        else:
            mark.reason, mark.checks = "the cited sources do not contain this", ["coverage"]
    elif cited and not set(found) & set(cited):
        mark.reason = f"found in [{', '.join(map(str, found))}], not in the cited source"
    else:
        mark.reason = f"matches [{', '.join(map(str, found))}]"


_PLACED = frozenset({"name_place", "figure_place"})


def _opposed_elsewhere(mark: SentenceMark, plain: str, spans: dict[int, list[Span]]) -> None:
    """Unback a backed claim when a sentence of a source it cites, other than those it rests
    on, says the opposite of its word about the same things (``opposites.opposed_about``). A
    copy of a passage sentence says what its passage says, and is left alone."""
    if "copy" in mark.checks:
        return
    resting = {(n, s, e) for n, s, e in mark.support_spans}
    for n in mark.sources:
        for sp in spans.get(n, ()):
            if not sp.single or (sp.n, sp.start, sp.end) in resting:
                continue
            said = opposed_about(plain, sp.text)
            if said is not None:
                mark.unback("opposite", f"{said[0].upper()}{said[1:]} ([{n}])")
                return


def _crossed(mark: SentenceMark, plain: str, by_n: dict[int, Passage]) -> None:
    """Unback a backed claim that gives one side of a contrast in a span it rests on what
    that span says of the other side (``contrast.crossed``)."""
    for n, start, end in mark.support_spans:
        found = crossed(plain, by_n[n].text[start:end])
        if found is not None:
            mark.unback("crossed", f"[{n}] says this of {found[1]}, not of {found[0]}")
            return


def _moved(mark: SentenceMark, plain: str, by_n: dict[int, Passage]) -> None:
    """Unback a backed claim that copies a sentence of a source it rests on or cites with
    the sentence's figures in each other's places (``copies.figures_moved``)."""
    for n in dict.fromkeys([*(n for n, _, _ in mark.support_spans), *mark.sources]):
        found = figures_moved(plain, by_n[n].text)
        if found is not None:
            mark.unback("figure_order", f"[{n}] gives {found[1]} where this gives {found[0]}")
            return


def _swapped_caption(mark: SentenceMark, text: str, by_n: dict[int, Passage]) -> None:
    """Unback a backed claim that gives a cited note's code the caption the note gives another
    block of its code (``captions.swapped_caption``)."""
    for n in mark.sources or list(by_n):
        found = swapped_caption(text, by_n[n].text)
        if found is not None:
            mark.unback("caption", f"[{n}] says this of `{found[1]}`, not of `{found[0]}`")
            return


def _counted_other(
    mark: SentenceMark, claim: Claim, group: frozenset[str], by_n: dict[int, Passage]
) -> Finding | None:
    """``premise.counted_other`` against each span that backs ``mark``."""
    for n, start, end in mark.support_spans if group else ():
        found = counted_other(group, claim.facts, facts(by_n[n].text[start:end]))
        if found is not None:
            return found
    return None


def _in_relation(
    mark: SentenceMark, claim_facts: Facts, chosen: list[Span], spans: dict[int, list[Span]]
) -> bool:
    """Whether a claim that takes a name or figure from another sentence of its passage than
    the one closest to it ("It was Tugh Temur (Emperor Wenzong), whose mother was a Tangut
    concubine", from two sentences) still says what the passage says: every arc of the claim
    that holds a name or a figure from another sentence is attested by a sentence of that
    passage, and none is contradicted (``attest``). Then the words are from two sentences, the
    relations are not recombined.

    The names and figures the closest sentence holds are backed by it as every word is, by
    coverage: "the community, founded in 1604 under Prince Louis de Condé, emigrated to the
    United States in the 1890s" takes 1604 and Condé from a sentence that says Condé arranged
    "to establish" the community in 1604, and the United States and the 1890s from a later
    one that says its members "emigrated to the United States in the 1890s". Only the later
    sentence's arcs must be attested; "founded" for "establish" is no arc of the passage,
    but is no recombination either. Where no arc holds what came from elsewhere (the parse
    split a name otherwise), every arc with a name or figure must be attested."""
    if not chosen or not on("in_relation"):
        return False
    claim = read_text(_plain_markup(strip_citations(mark.text)))
    if claim is None:
        return False
    near = merge([sp.facts for sp in chosen])
    moved = (claim_facts.numbers - near.numbers) | (claim_facts.names - near.stems)
    passages = {sp.n for sp in chosen}
    pool = [
        r
        for n in passages
        for sp in spans.get(n, [])
        if sp.single and not _tabular(sp.text)
        for r in [read_text(sp.text)]
        if r is not None
    ]
    held = [a for a in claim.arcs if a.dep.specific or a.head.specific]
    held = [a for a in held if (a.dep.keys | a.head.keys) & moved] or held
    if not held or not pool:
        return False
    if not all(any(linked(a, s) for s in pool) for a in held):
        return False
    return not contradictions(claim, pool)


# A passage (or each part of a note sent in parts) of at most this many sentences may back a
# claim as a whole.
SPREAD_SENTENCES = 12


def _fenced(sp: Span) -> bool:
    """Whether the span is a fenced code block of its passage, or inside one."""
    return sp.text.lstrip().startswith(("```", "~~~")) or in_code_block(sp.passage, sp.start)


def _spread(
    mark: SentenceMark,
    claim: Claim,
    spans: dict[int, list[Span]],
    cited: list[int],
    threshold: float,
) -> list[Span]:
    """The sentences of a short cited passage (or of the passages it cites together, a note
    sent in parts) that back, together, a sentence written around
    its code: "Call `Intl.DateTimeFormat().resolvedOptions().timeZone` from client-side code
    to tell which time zone a user is in" draws on a note's code block and a line further on,
    where alignment reads one sentence or two adjacent ones. Backed when the passage holds
    every piece of the sentence's inline code as written (code is the one thing read
    exactly: a placement or an argument changed is other code), its sentences together cover
    the sentence's words, hold its figures and names, and contradict none of its arcs
    (``attest``). [] when it is not so backed: a sentence
    with no code is left to the sentences it aligns with, since prose recombined from a
    passage's words ("led a revolt in 1259", the year of another event) reads as backed by
    the words alone."""
    code = ["".join(c.strip("`").split()) for c in INLINE_CODE.findall(mark.text)]
    if not code or not on("spread"):
        return []
    # each short cited passage, then the cited passages together (a note sent in parts,
    # each part short)
    parts = [[sp for sp in spans.get(n, []) if sp.single and sp.witness] for n in cited]
    pools = [part for part in parts if len(part) <= SPREAD_SENTENCES]
    if len(parts) > 1 and len(pools) == len(parts):
        pools.append([sp for part in parts for sp in part])
    for pool in pools:
        # a table's rows spread anything over its figures; a code block's output line with
        # figures ("Line 108 of 337; Word 397 of 1451") is the note's example, not a table
        if len(pool) <= 2 or any(_tabular(sp.text) and not _fenced(sp) for sp in pool):
            continue
        held = "".join("".join(p.split()) for p in dict.fromkeys(sp.passage for sp in pool))
        if not all(c in held for c in code):
            continue
        if score_of(claim.weights, pool) < threshold or unbacked(claim, pool):
            continue
        parsed = read_text(_plain_markup(strip_citations(mark.text)))
        sentences = [r for sp in pool for r in [read_text(sp.text)] if r is not None]
        if parsed is not None and not contradictions(parsed, sentences):
            return [sp for sp in pool if sp.terms & set(claim.weights)]
    return []


def prepare(sources: Sequence[Passage]) -> None:
    """Read the sources' sentences ahead (parse them and their arcs) while the answer streams,
    so that marking the finished answer only reads the answer's own sentences."""
    texts = [src.text[s:e] for src in sources for s, e in sentence_spans(src.text)]
    from app.core.verdict.parse import parse_all

    parse_all(texts)
    for text in texts:
        read_text(text)
