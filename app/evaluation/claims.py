"""A labelled dev set for the claim checks, built on the fly from SQuAD 2.0 passages.

Each example is one answer sentence citing ``[1]``, with three sources: the passage it is
about and two other passages of the same article (what retrieval would put beside it).
Kinds that must stay supported: the passage sentence verbatim, shortened at a clause
boundary, its clauses reordered, lightly reworded. Kinds that must be flagged: one number or
date swapped, two figures of the sentence exchanged (each still in the passage, given to the
other's word), one name swapped for a name from another article, a negation inserted or
removed, one word swapped for its opposite (passed/failed, before/after, won/lost), a
comparative or superlative flipped (most/least, more/less, first/last), a modality flipped
(may/must, possible/impossible), a sentence from another article cited as if from this one.
A fixed seed makes the set the same on every run; articles are split in two halves
(``title_half``) so that the checks are tuned on one half and reported on the other.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.text import STOPWORDS, sentence_spans
from app.core.verdict.marks import mark_sentences
from app.evaluation.datasets import read_jsonl
from app.evaluation.support import title_half
from app.evaluation.support_data import DEV_HALF

SEED = 13
SUPPORTED_KINDS = ("verbatim", "shortened", "reordered", "reworded")
UNSUPPORTED_KINDS = (
    "number_swapped",
    "figures_exchanged",
    "name_swapped",
    "negation_inserted",
    "negation_removed",
    "antonym_swapped",
    "comparative_swapped",
    "modality_swapped",
    "wrong_source",
)
KINDS = SUPPORTED_KINDS + UNSUPPORTED_KINDS
# the checks were tuned on this half of the articles; the other is reported
TUNE_HALF = DEV_HALF

_MIN_WORDS = 8
_MONTHS = tuple(
    "January February March April May June July August September October November December".split()  # noqa: SIM905
)
_NUMBER_WORDS = tuple("two three four five six seven eight nine ten eleven twelve".split())  # noqa: SIM905
_AUX = re.compile(
    r"\b(is|was|are|were|has|had|have|can|could|will|would|should|may|might|must|does|did)"
    r"\b(?!,| not\b| never\b| no\b| only\b| just\b|n't)",
)
_PAST_VERB = re.compile(r"(?<=\s)([a-z]{3,}ed)\b")
_NEGATION = re.compile(r"\b(?:not|never) (?!only\b|just\b|merely\b)|n't\b(?! just\b)|\bcannot\b")
_NAME_RUN = re.compile(r"(?<=[a-z,;]\s)(?:[A-Z][a-zA-Z'\-]+(?:\s+(?:of\s+)?[A-Z][a-zA-Z'\-]+)*)")
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*\b")
_WORD = re.compile(r"[^\W\d_]+")
_APART_WORDS = 3  # figures this many words apart or more belong to different words
_CLAUSE = re.compile(
    r",\s+(?=(?:which|who|whose|where|while|and|but|although|though|as|when|after|before|"
    r"because|since|until|with|making|becoming|including|leading)\b)|;\s+|\s+\(|,\s+"
)
# Light rewording: common words a model might say in other words (the checks never see this).
_SYNONYMS = {
    "began": "started",
    "begin": "start",
    "large": "big",
    "largest": "biggest",
    "important": "significant",
    "many": "numerous",
    "used": "employed",
    "use": "employ",
    "known as": "called",
    "however, ": "",
    "also ": "",
    "founded": "established",
    "created": "made",
    "received": "got",
    "several": "a number of",
    "often": "frequently",
    "major": "key",
    "small": "little",
    "called": "named",
    "became": "turned into",
    "built": "constructed",
    "between": "among",
    "area": "region",
    "during": "in the course of",
    "people": "persons",
    "first": "earliest",
    "main": "principal",
    "although": "though",
    "therefore": "so",
    "including": "such as",
    "increase": "rise",
    "increased": "rose",
    "allowed": "let",
    "required": "needed",
    "provide": "give",
    "provided": "gave",
    "considered": "regarded as",
    "approximately": "about",
    "around": "about",
    "due to": "because of",
    "in order to": "to",
    "developed": "devised",
    "entire": "whole",
    "rapidly": "quickly",
    "various": "different",
    "significant": "considerable",
    "however": "but",
}


# Opposites as written, both ways (the swap keeps the word's case). Kept apart from the checks'
# own table in facts.py, so a word the checks miss shows here as a miss.
_ANTONYMS = {
    "increased": "decreased",
    "increase": "decrease",
    "increases": "decreases",
    "rose": "fell",
    "grew": "shrank",
    "before": "after",
    "earlier": "later",
    "won": "lost",
    "win": "lose",
    "wins": "loses",
    "victory": "defeat",
    "passed": "failed",
    "success": "failure",
    "successful": "unsuccessful",
    "accepted": "rejected",
    "allowed": "forbidden",
    "included": "excluded",
    "bought": "sold",
    "north": "south",
    "northern": "southern",
    "east": "west",
    "eastern": "western",
    "above": "below",
    "inside": "outside",
    "majority": "minority",
    "strong": "weak",
    "positive": "negative",
    "legal": "illegal",
    "import": "export",
    "imported": "exported",
}
_COMPARATIVES = {
    "most": "least",
    "more": "less",
    "first": "last",
    "largest": "smallest",
    "larger": "smaller",
    "biggest": "smallest",
    "highest": "lowest",
    "higher": "lower",
    "best": "worst",
    "better": "worse",
    "longest": "shortest",
    "longer": "shorter",
    "oldest": "youngest",
    "earliest": "latest",
    "greatest": "least",
    "maximum": "minimum",
}
_MODALS = {
    "may": "must",
    "might": "must",
    "could": "must",
    "possible": "impossible",
    "likely": "unlikely",
    "able": "unable",
    "optional": "mandatory",
    "voluntary": "compulsory",
}


def _both_ways(pairs: dict[str, str]) -> dict[str, str]:
    return {**pairs, **{b: a for a, b in pairs.items() if b not in pairs}}


@dataclass(frozen=True)
class ClaimPassage:
    """A numbered source, as the claim checks see one."""

    n: int
    text: str


@dataclass(frozen=True)
class ClaimExample:
    """One answer sentence, its sources, its kind and whether it should count as supported."""

    kind: str
    sentence: str
    sources: tuple[ClaimPassage, ...]
    title: str
    original: str

    @property
    def supported(self) -> bool:
        return self.kind in SUPPORTED_KINDS

    @property
    def half(self) -> int:
        return title_half(self.title)


def load_passages(data_dir: Path) -> list[dict[str, Any]]:
    """SQuAD 2.0 passages (``_id``, ``title``, ``text``)."""
    return read_jsonl(data_dir / "squad2" / "passages.jsonl")


def _sentences(text: str) -> list[str]:
    return [
        text[s:e]
        for s, e in sentence_spans(text)
        if len(text[s:e].split()) >= _MIN_WORDS and text[s:e].rstrip()[-1:] in ".!?"
    ]


def _cite(sentence: str) -> str:
    return sentence.rstrip().rstrip(".!?").rstrip() + " [1]."


def _shortened(s: str, rng: random.Random) -> str | None:
    words = len(s.split())
    cuts = [
        m.start()
        for m in _CLAUSE.finditer(s)
        if len(s[: m.start()].split()) >= max(5, words // 3) and len(s[m.start() :].split()) >= 3
    ]
    if not cuts:
        return None
    return s[: rng.choice(cuts)].rstrip(" ,;")


def _reordered(s: str) -> str | None:
    body = s.rstrip().rstrip(".!?")
    parts = [m.start() for m in re.finditer(r",\s+", body)]
    for cut in parts:
        head, tail = body[:cut], body[cut:].lstrip(", ")
        if len(head.split()) < 2 or len(tail.split()) < 4:
            continue
        first = head.split()[0]
        if first.lower() in STOPWORDS or first.lower() in ("during", "after", "before", "since"):
            head = head[0].lower() + head[1:]
        return tail[0].upper() + tail[1:] + ", " + head
    return None


def _reworded(s: str, rng: random.Random) -> str | None:
    options = [w for w in _SYNONYMS if re.search(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", s)]
    if not options:
        return None
    out = s
    for word in rng.sample(options, min(4, len(options))):
        pattern = r"(?<![\w-])" + re.escape(word) + r"(?![\w-])"
        out = re.sub(pattern, _SYNONYMS[word], out, count=1)
    out = re.sub(r"\s*\([^()]*\)", "", out, count=1)  # and leave out an aside in brackets
    return out if out != s else None


def _number_swapped(s: str, rng: random.Random) -> str | None:
    choices: list[tuple[int, int, str]] = []
    for m in _NUMBER.finditer(s):
        raw = m.group()
        value = raw.replace(",", "")
        if "." in value:
            whole, frac = value.split(".", 1)
            new = f"{int(whole) + rng.randint(1, 9)}.{frac}"
        elif len(value) == 4 and 1000 <= int(value) <= 2099:
            new = str(int(value) + rng.choice([-1, 1]) * rng.randint(1, 30))
        else:
            n = int(value)
            new = str(n + rng.randint(1, 9) if n < 20 else n + rng.randint(1, max(2, n // 3)))
        choices.append((m.start(), m.end(), new))
    for word in _MONTHS + _NUMBER_WORDS:
        flags = 0 if word in _MONTHS else re.IGNORECASE  # "may" is a month only as "May"
        for m in re.finditer(r"\b" + word + r"\b", s, flags):
            pool = _MONTHS if word in _MONTHS else _NUMBER_WORDS
            new = rng.choice([w for w in pool if w != word])
            new = new if m.group()[0].isupper() else new.lower()
            choices.append((m.start(), m.end(), new))
    if not choices:
        return None
    start, end, new = rng.choice(choices)
    return s[:start] + new + s[end:]


def _figures_exchanged(s: str, rng: random.Random) -> str | None:
    """Two figures of the sentence with different values, each put in the other's place:
    every word is still the passage's, the figures belong to other words. Figures fewer than
    ``_APART_WORDS`` words apart are one thing (a range, "1038–40", "between 1402 and 1405";
    a date, "1 May 1191"): turned round, they say the same facts garbled, not another's."""
    found = list(_NUMBER.finditer(s))
    pairs = [
        (a, b)
        for i, a in enumerate(found)
        for b in found[i + 1 :]
        if a.group() != b.group() and len(_WORD.findall(s[a.end() : b.start()])) >= _APART_WORDS
    ]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    return s[: a.start()] + b.group() + s[a.end() : b.start()] + a.group() + s[b.end() :]


def names_in(s: str) -> list[tuple[int, int]]:
    """Runs of capitalised words after the first word (a rough name finder)."""
    return [
        (m.start(), m.end())
        for m in _NAME_RUN.finditer(s)
        if m.group().split()[0] not in _MONTHS and m.group() not in ("I",)
    ]


def _name_swapped(s: str, names: Sequence[str], rng: random.Random) -> str | None:
    found = names_in(s)
    if not found:
        return None
    start, end = rng.choice(found)
    old = s[start:end]
    pool = [n for n in names if n.lower() != old.lower() and n not in s]
    if not pool:
        return None
    return s[:start] + rng.choice(pool) + s[end:]


def _negation_inserted(s: str) -> str | None:
    m = _AUX.search(s)
    if m:
        return s[: m.end()] + " not" + s[m.end() :]
    v = _PAST_VERB.search(s, len(s.split()[0]) + 1)
    if v:
        return s[: v.start()] + "never " + s[v.start() :]
    return None


def _negation_removed(s: str) -> str | None:
    m = _NEGATION.search(s)
    if not m:
        return None
    if m.group() == "cannot":
        return s[: m.start()] + "can" + s[m.end() :]
    return s[: m.start()] + s[m.end() :]


def _word_swapped(s: str, pairs: dict[str, str], rng: random.Random) -> str | None:
    """One word of ``pairs`` (lower case as written, never a capitalised name) swapped for its
    counterpart."""
    table = _both_ways(pairs)
    found = [
        m
        for m in re.finditer(r"\b[A-Za-z]+\b", s)
        if m.group().lower() in table and (m.group().islower() or m.start() == 0)
    ]
    if not found:
        return None
    m = rng.choice(found)
    new = table[m.group().lower()]
    new = new.capitalize() if m.group()[0].isupper() else new
    return s[: m.start()] + new + s[m.end() :]


def build_dev_set(
    passages: Sequence[dict[str, Any]], seed: int = SEED, per_passage: int = 1
) -> list[ClaimExample]:
    """The labelled examples: for each passage, up to ``per_passage`` of each kind."""
    rng = random.Random(seed)
    # a kind added later draws from a stream of its own, so the earlier kinds' examples stay
    # the same
    later = random.Random(seed + 1)
    by_title: dict[str, list[dict[str, Any]]] = {}
    for p in passages:
        by_title.setdefault(p["title"], []).append(p)
    names_by_title = {
        t: sorted({s[a:b] for p in ps for s in _sentences(p["text"]) for a, b in names_in(s)})
        for t, ps in by_title.items()
    }
    out: list[ClaimExample] = []
    for p in passages:
        title, text = p["title"], p["text"]
        sentences = _sentences(text)
        if not sentences:
            continue
        others = [q for q in by_title[title] if q["_id"] != p["_id"]]
        extra = rng.sample(others, min(2, len(others)))
        sources = (
            ClaimPassage(1, text),
            *(ClaimPassage(i, q["text"]) for i, q in enumerate(extra, start=2)),
        )
        foreign_titles = [t for t in by_title if t != title]
        foreign_names = [
            n
            for t in rng.sample(foreign_titles, min(3, len(foreign_titles)))
            for n in names_by_title[t]
        ]
        makers: dict[str, Callable[[str], str | None]] = {
            "verbatim": lambda s: s,
            "shortened": functools.partial(_shortened, rng=rng),
            "reordered": _reordered,
            "reworded": functools.partial(_reworded, rng=rng),
            "number_swapped": functools.partial(_number_swapped, rng=rng),
            "name_swapped": functools.partial(_name_swapped, names=foreign_names, rng=rng),
            "negation_inserted": _negation_inserted,
            "negation_removed": _negation_removed,
            "antonym_swapped": functools.partial(_word_swapped, pairs=_ANTONYMS, rng=rng),
            "comparative_swapped": functools.partial(_word_swapped, pairs=_COMPARATIVES, rng=rng),
            "modality_swapped": functools.partial(_word_swapped, pairs=_MODALS, rng=rng),
        }
        makers_later: dict[str, Callable[[str], str | None]] = {
            "figures_exchanged": functools.partial(_figures_exchanged, rng=later),
        }
        for kind, make in (*makers.items(), *makers_later.items()):
            order = (later if kind in makers_later else rng).sample(sentences, len(sentences))
            made = 0
            for s in order:
                new = make(s)
                if new is None or (kind != "verbatim" and new.strip() == s.strip()):
                    continue
                out.append(ClaimExample(kind, _cite(new), sources, title, s))
                made += 1
                if made >= per_passage:
                    break
        foreign = rng.choice(by_title[rng.choice(foreign_titles)])
        stranger = _sentences(foreign["text"])
        if stranger:
            s = rng.choice(stranger)
            out.append(ClaimExample("wrong_source", _cite(s), sources, title, s))
    return out


def limit_per_kind(examples: Sequence[ClaimExample], limit: int) -> list[ClaimExample]:
    """The first ``limit`` examples of each kind in each half (a quick run)."""
    taken: dict[tuple[str, int], int] = {}
    out = []
    for ex in examples:
        key = (ex.kind, ex.half)
        if taken.get(key, 0) < limit:
            taken[key] = taken.get(key, 0) + 1
            out.append(ex)
    return out


Checker = Callable[[ClaimExample], bool]


def check_with_marks(example: ClaimExample) -> bool:
    """The shipped claim checks: True when the sentence is marked supported."""
    marks = mark_sentences(example.sentence, example.sources)
    return all(m.supported for m in marks if m.kind == "claim")


def evaluate(examples: Sequence[ClaimExample], check: Checker = check_with_marks) -> dict[str, Any]:
    """Per half and kind: how many examples, and the share the checks got right."""
    tally: dict[int, dict[str, list[int]]] = {0: {}, 1: {}}
    mistakes: list[dict[str, Any]] = []
    for ex in examples:
        ok = check(ex) == ex.supported
        row = tally[ex.half].setdefault(ex.kind, [0, 0])
        row[0] += 1
        row[1] += int(ok)
        if not ok and ex.half == TUNE_HALF:
            mistakes.append({"kind": ex.kind, "sentence": ex.sentence, "original": ex.original})
    halves: dict[str, Any] = {}
    for half, kinds in tally.items():
        name = "tuning" if half == TUNE_HALF else "held_out"
        halves[name] = {
            kind: {"n": kinds[kind][0], "correct": round(kinds[kind][1] / kinds[kind][0], 4)}
            for kind in KINDS
            if kind in kinds
        }
    return {"halves": halves, "tuning_mistakes": mistakes}
