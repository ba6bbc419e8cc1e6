"""How one name is written another way: by its initials, as its people or country, spelled
with other accents or one letter off, or run together with the word beside it.

The name checks (``facts.conflicts``, ``question``) ask whether a passage names what a claim
names; a fluent answer writes "EU" for "European Union", "MSPs" for "members of the Scottish
Parliament", "French" for a passage's "France", "Ogödei" for "Ögedei", "PL/pgSQL" for
"plpgsql". ``runs`` reads a text's runs of capitalised words with their initials;
``known_name`` asks whether a span names a claim's name in any of these ways.
"""

from __future__ import annotations

import functools
import itertools
import re

from app.core.text import STOPWORDS, fold, stem
from app.core.verdict.tokens import Token

# (initials, the stems of the words they stand for) of each run of capitalised words
Runs = tuple[tuple[str, frozenset[str]], ...]

_RUN_JOINERS = frozenset({"of", "the", "and", "for", "on", "de", "du", "von", "van", "&"})
_HUMPS = re.compile(r"[A-Z][a-z]*")


def runs(toks: list[Token]) -> Runs:
    """Runs of capitalised words with their initials (``Facts.runs``). A run that a
    lower-case word leads into with "of" ("members of the Scottish Parliament") also stands
    with that word's initial ("msp"), as well as without it ("sp"); each part of a run that
    joiners split stands with its own (``_segments``)."""
    out: list[tuple[str, frozenset[str]]] = []
    run: list[Token] = []
    lead: Token | None = None  # the lower-case word before the run's "of"

    def close() -> None:
        while run and run[-1].word.lower() in _RUN_JOINERS:
            run.pop()
        words = [r for r in run if r.word.lower() not in _RUN_JOINERS]
        if len(words) >= 2 or (words and len(_HUMPS.findall(words[0].word)) >= 2):
            initials = "".join(h[0] for w in words for h in _HUMPS.findall(w.word) or [w.word])
            out.append((initials.lower(), frozenset(w.stem for w in words)))
            if lead is not None:
                out.append(((lead.word[0] + initials).lower(), frozenset(w.stem for w in words)))
            out.extend(_segments(run))
        run.clear()

    for i, t in enumerate(toks):
        if t.after_stop:  # a run ends with its sentence ("… Union. The Court …")
            close()
        if t.word[:1].isupper() or (run and t.word.lower() in _RUN_JOINERS):
            if not run:
                lead = _lead_in(toks, i)
            run.append(t)
            continue
        close()
    close()
    return tuple(out)


def _segments(run: list[Token]) -> list[tuple[str, frozenset[str]]]:
    """The initials of each part of a run that joiners split ("Secretary General of the United
    Nations": "sg" and "un"), when the run has more than one."""
    parts: list[list[Token]] = [[]]
    for t in run:
        if t.word.lower() in _RUN_JOINERS:
            parts.append([])
        else:
            parts[-1].append(t)
    parts = [p for p in parts if len(p) >= 2]
    if len(parts) < 2:
        return []
    return [("".join(w.word[0] for w in p).lower(), frozenset(w.stem for w in p)) for p in parts]


def _lead_in(toks: list[Token], i: int) -> Token | None:
    """The lower-case content word that leads into a run starting at ``i`` with "of" (and
    "the"): "members" in "members of the Scottish Parliament"."""
    j = i - 1
    if j >= 0 and toks[j].word.lower() == "the":
        j -= 1
    if j < 1 or toks[j].word.lower() != "of":
        return None
    word = toks[j - 1]
    return word if word.word[:1].islower() and word.content else None


def _demonyms() -> dict[str, frozenset[str]]:
    from app.core.verdict.lang.en import DEMONYMS

    out: dict[str, frozenset[str]] = {}
    for line in DEMONYMS:
        stems = frozenset(stem(w.lower()) for w in line.split())
        for s in stems:
            out[s] = stems
    return out


_ALIKE = _demonyms()


@functools.lru_cache(maxsize=1)
def _peoples() -> frozenset[str]:
    """The stems of the words for a country's people or things (every word of a
    ``DEMONYMS`` line after the country's own name): "british", "french"."""
    from app.core.verdict.lang.en import DEMONYMS

    return frozenset(stem(w.lower()) for line in DEMONYMS for w in line.split()[1:])


def with_peoples(terms: set[str]) -> set[str]:
    """``terms`` with the other words of each country or people among them: a passage that
    says "France" holds what a claim's "French" says, for coverage as for the name check."""
    found = [_ALIKE[t] for t in terms if t in _ALIKE]
    return terms.union(*found) if found else terms


def of_a_people(name: str) -> bool:
    """Whether ``name`` (a stem) says whose something is ("British", "French"), not a place."""
    return name in _peoples()


def alike(name: str, known: frozenset[str] | set[str]) -> bool:
    """Whether ``known`` names the place or people ``name`` names ("French" for "France")."""
    return bool(_ALIKE.get(name, frozenset()) & known)


def spelled_alike(a: str, b: str) -> bool:
    """Two spellings of one long name: the same letters without accents, one edit apart
    after the same first letter ("Celeron", "Céloron"; "Ögedei", "Ogödei"; but "Prussia" is
    not "Russia", nor "Gambia" "Zambia")."""
    if len(a) < 6 or abs(len(a) - len(b)) > 1:
        return False
    a, b = fold(a), fold(b)
    if a == b:
        return True
    if a[:1] != b[:1]:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


_SPELLED_OUT = range(2, 6)  # letters of initials read against the words they may stand for


def spelled_out(written: str, words: str) -> bool:
    """Whether ``written``, a name in capitals ("BP", "HR", "RAM"), stands for words a span
    writes in lower case one after the other (``words``: "… her blood pressure was …"): a
    letter's and a report's "blood pressure", "human resources", "random access memory"."""
    if not (written.isalpha() and written.isupper() and len(written) in _SPELLED_OUT):
        return False
    said = words.split()
    size = len(written)
    initials = written.lower()
    return any(
        "".join(w[0] for w in said[i : i + size]) == initials
        and all(w.isalpha() and w not in STOPWORDS for w in said[i : i + size])
        for i in range(len(said) - size + 1)
    )


def known_name(
    name: str, known: frozenset[str] | set[str], words: str, claim_runs: Runs, span_runs: Runs
) -> bool:
    """Whether a span whose stems are ``known`` (its runs of capitalised words
    ``span_runs``) names a claim's ``name`` another way: by its initials ("EU"), by the words
    its initials stand for (the claim's ``claim_runs``), as the people or country it is
    ("French", "France"), spelled another way ("Ögedei", "Ogödei"), or written as one word
    with the word beside it in the claim's ``words`` ("PL/pgSQL" for "plpgsql")."""
    if alike(name, known) or any(spelled_alike(name, k) for k in known):
        return True
    for a, b in itertools.pairwise(words.split()):
        if name in (stem(a), stem(b)) and stem(a + b) in known:
            return True
    bare = name[:-1] if name.endswith("s") and len(name) > 2 else name
    if any(initials in (name, bare) for initials, _ in span_runs):
        return True  # "MSPs" for "members of the Scottish Parliament"
    written = {initials for initials, stems in span_runs if len(stems) == 1}  # "US", "U.S."
    return any(  # ("US" is stemmed "u": no stem of the span's stands for it)
        name in stems and (initials in known or initials in written)
        for initials, stems in claim_runs
    )
