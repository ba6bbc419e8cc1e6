"""Does the retrieved evidence support answering? A calibrated probability with a reason.

Features come from retrieval alone (before any model runs) and are meant to mean the same in
any collection: how similar the best passage is and how far it stands above the fifth; how
much of the question's terms, each weighed by its rarity in this index (``termstats``), one
of the best passages covers (``key_coverage``), with the rarest terms leading
(``specific_coverage``) and within one sentence; the share of the question's weight in words
no passage holds at all; whether the two retrievers agree on the best passage; how many of
the best five come from its document; a negation in the question missing from the best
sentence; and the fused score of the best passage (how high both retrievers put it) and its
margin over the fifth (one clear winner, or many passages alike). A logistic model maps them
to a probability; its parameters are fitted on several domains (``footnotes eval support
--refit``, ``app.evaluation.support``) and shipped in ``app/data/support.json``; the
threshold is the index's own when it has been calibrated (``calibration``, ``probes``), and
its region's (``regions``: a top-level folder) when the best passage lies in one.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_MODEL",
    "FEATURES",
    "HITS",
    "MODEL_FEATURES",
    "SupportModel",
    "assess",
    "features",
    "fit_logistic",
    "fit_model",
    "reload_shipped",
    "shipped_path",
]

import re
from collections.abc import Sequence
from pathlib import Path

from app.core.search import fusion
from app.core.search.calibration import Calibration
from app.core.search.support_model import (
    DEFAULT_MODEL,
    FEATURES,
    MODEL_FEATURES,
    SupportModel,
    fit_logistic,
    fit_model,
    reload_shipped,
    shipped_path,
)
from app.core.search.termstats import TermStats, idf
from app.core.text import alnum_parts, query_terms, sentence_spans, stem, words
from app.core.types import Hit, Support

# The support model reads the best eight passages, as it was fitted and calibrated on, however
# many a search shows: the verdict on a question must not change with ``-k``.
HITS = 8
KEY_WEIGHT = 3.0  # without index counts, names and numbers weigh this much more
SPECIFIC_POWER = 4  # ``specific_coverage`` weighs terms by rarity to this power: the rarest lead
_NEGATION = re.compile(r"\b(?:not|never|no|none|nor|neither|without|cannot)\b|n't\b", re.IGNORECASE)
_NEGATION_WORD = re.compile(  # the whole word, to quote it: "can't", not "n't"
    r"\b(?:not|never|no|none|nor|neither|without|cannot|\w+n't)\b", re.IGNORECASE
)


# -- features --------------------------------------------------------------------------------
def key_words(question: str) -> set[str]:
    """The question's names and numbers, as typed: capitalised after its first word, or
    holding a digit."""
    return {
        w.text
        for i, w in enumerate(words(question))
        if (i > 0 and w.text[0].isupper()) or any(c.isdigit() for c in w.text)
    }


def key_terms(question: str) -> dict[str, float]:
    """Stemmed content words of the question with weights: names and numbers count more."""
    content = set(query_terms(question))
    keys = key_words(question)
    out: dict[str, float] = {}
    for found in words(question):
        word = found.text
        if word.lower() not in content:
            continue
        term = stem(word)
        out[term] = max(out.get(term, 0.0), KEY_WEIGHT if word in keys else 1.0)
    return out


def rarity_terms(question: str, stats: TermStats | None) -> tuple[dict[str, float], float]:
    """Stemmed content words weighted by their rarity in the index (``idf`` in [0, 1]), and
    the share of that weight carried by words no passage of the index holds.

    Without counts (an index that cannot say), names and numbers weigh 1 and other words 1/3.
    """
    if stats is None:
        return {t: w / KEY_WEIGHT for t, w in key_terms(question).items()}, 0.0
    words = query_terms(question)
    size = stats.size()
    found = stats.doc_freqs(words)
    parts = {w: alnum_parts(w) for w in words if found.get(w, 0) == 0}
    parts = {w: kept for w, ps in parts.items() if len(ps) > 1 and (kept := _long(ps))}
    if parts:  # "FY2018" no passage holds: its parts "fy" and "2018" count instead
        found.update(stats.doc_freqs({p for ps in parts.values() for p in ps}))
        words = [p for w in words for p in parts.get(w, [w])]
    counts: dict[str, int] = {}
    for w in words:  # a stem counts as its most frequent form
        counts[stem(w)] = max(counts.get(stem(w), 0), found.get(w, 0))
    weights = {t: idf(df, size) for t, df in counts.items()}
    unknown = sum(w for t, w in weights.items() if counts[t] == 0)
    total = sum(weights.values())
    # Words no passage holds stay out of the coverage terms (nothing can cover them) and are
    # measured apart: a question's own name or code missing from every file says much.
    terms = {t: w for t, w in weights.items() if counts[t] > 0}
    return terms, (unknown / total if total else 0.0)


def _long(parts: list[str]) -> list[str]:
    """The parts of a word worth counting on their own ("q3": none, so "q3" stays whole)."""
    return [p for p in parts if len(p) > 1]


def _stems(text: str) -> set[str]:
    return {stem(w.text) for w in words(text)}


def coverage(terms: dict[str, float], text: str) -> float:
    """Weighted share of ``terms`` that occur in ``text``."""
    total = sum(terms.values())
    if not total:
        return 0.0
    words = _stems(text)
    return sum(w for t, w in terms.items() if t in words) / total


def _label(hit: Hit) -> str:
    """What a passage says about itself besides its text: its heading and its file's name."""
    name = re.sub(r"[_\W]+", " ", Path(hit.path).stem)
    return f"{hit.heading or ''} {name}"


def best_sentence(terms: dict[str, float], hits: Sequence[Hit]) -> tuple[float, str]:
    """The sentence of the top three passages that covers most of the question's key terms."""
    best = (0.0, "")
    for h in hits[:3]:
        for start, end in sentence_spans(h.text):
            c = coverage(terms, h.text[start:end])
            if c > best[0]:
                best = (c, h.text[start:end])
    return best


def features(
    question: str, hits: Sequence[Hit], stats: TermStats | None = None
) -> dict[str, float]:
    """Retrieval evidence for one question, each feature larger when support is likelier
    (``unknown_terms`` and ``negation_unmatched`` smaller)."""
    if not hits:
        return dict.fromkeys(FEATURES, 0.0)
    terms, unknown = rarity_terms(question, stats)
    sharp = {t: w**SPECIFIC_POWER for t, w in terms.items()}
    sent_cov, sentence = best_sentence(terms, hits)
    negated = bool(_NEGATION.search(question)) and not _NEGATION.search(sentence)
    top = hits[0]
    texts = [f"{h.text}\n{_label(h)}" for h in hits[:3]]
    dense = sorted((h.dense_score or 0.0 for h in hits), reverse=True)
    paths = [h.path for h in hits[:5]]
    fused = [fusion.without_bonus(h.score) for h in hits[:5]]
    # A fifth passage that is not there (a scope of one file, a tiny index) competes with
    # nothing: the margin is to zero, not to the best passage itself.
    return {
        "dense_top": dense[0],
        "dense_gap": dense[0] - (dense[4] if len(dense) > 4 else 0.0),
        "key_coverage": max(coverage(terms, t) for t in texts),
        "specific_coverage": max(coverage(sharp, t) for t in texts),
        "sentence_coverage": sent_cov,
        "unknown_terms": unknown,
        "agreement": float(top.dense_rank == 1 and top.lexical_rank == 1),
        "doc_focus": paths.count(top.path) / len(paths),
        "negation_unmatched": float(negated),
        "fused_top": fused[0],
        "fused_gap": fused[0] - (fused[4] if len(fused) > 4 else 0.0),
    }


def reason_for(
    f: dict[str, float], supported: bool, missing: Sequence[str] = (), negation: str = ""
) -> str:
    """The verdict in plain words, from the feature that stands out most; ``missing`` are
    question words no passage of the index holds (for a supported question, only its names
    and numbers: the passages found may be about another place, product or year);
    ``negation`` is the question's own negating word, quoted when it is the reason."""
    dense, cov = f.get("dense_top", 0.0), f.get("key_coverage", 0.0)
    if not supported:
        if missing and f.get("unknown_terms", 0.0) >= 0.25:
            shown = ", ".join(f"“{w}”" for w in missing[:3])
            return f"No passage in your files mentions {shown}."
        if dense < 0.3 and cov < 0.5:
            return (
                "Nothing in your files is close to this question: "
                "the best passage is about something else."
            )
        if cov < 0.5:
            return "The closest passage in your files shares few of the question's key terms."
        if f.get("negation_unmatched"):
            said = f"“{negation}”" if negation else "a negation"
            return (
                f"The question says {said}, but the closest passage has no such negation: "
                "it may be about the opposite case."
            )
        if dense < 0.4:
            return "Passages mention the question's words, but none is about what it asks."
        return (
            "The passages found only loosely match the question; "
            "the answer may not be in your files."
        )
    if missing:  # a name or number of the question that no passage holds: say so
        shown = ", ".join(f"“{w}”" for w in missing[:3])
        return f"Passages in your files match the question, but none mentions {shown}."
    if cov >= 0.8:
        return "A passage in your files closely matches the question and contains its key terms."
    return "Passages in your files match the question closely."


def assess(
    question: str,
    hits: Sequence[Hit],
    model: SupportModel | None = None,
    *,
    stats: TermStats | None = None,
    calibration: Calibration | None = None,
) -> Support:
    """The support verdict for a question given its retrieved hits.

    With ``stats`` (term counts of the index the hits came from) terms are weighed by their
    rarity in it; with ``calibration`` (that index's own) its threshold applies, when it was
    measured for these parameters.
    """
    model = model or SupportModel.load()
    if not hits:
        return Support(False, 0.0, "Your index has no passages for this question yet.", {})
    f = features(question, hits, stats)
    p = model.probability(f)
    ok = p >= threshold_for(model, calibration, hits[0].path)
    missing = [] if stats is None else unknown_words(question, stats)
    if ok:
        missing = [w for w in missing if w in key_words(question)]
    negation = _NEGATION_WORD.search(question)
    words = reason_for(f, ok, missing, negation.group().strip() if negation else "")
    own = _measured(model, calibration)
    if ok and not missing and own is not None and own.lookalike_at(hits[0].path):
        words = LOOKALIKE
    return Support(ok, p, words, f)


# The reason of a question that passes among look-alike documents (``calibration``).
LOOKALIKE = (
    "Passages in your files match the question, but the documents they come from are much "
    "alike: the match alone cannot tell whether the page that answers is among them."
)


def _measured(model: SupportModel, calibration: Calibration | None) -> Calibration | None:
    """The index's calibration, when it was measured for these parameters."""
    return calibration if calibration is not None and calibration.model == model.key else None


def unknown_words(question: str, stats: TermStats) -> list[str]:
    """The question's content words (as typed) that no passage of the index holds."""
    content = set(query_terms(question))
    typed = [w.text for w in words(question) if w.text.lower() in content]
    counts = stats.doc_freqs([w.lower() for w in typed])
    out: list[str] = []
    for w in typed:
        if counts.get(w.lower(), 0) == 0 and w not in out:
            parts = _long(alnum_parts(w.lower()))
            if len(parts) < 2 or not any(stats.doc_freqs(parts).values()):
                out.append(w)
    return out


def threshold_for(
    model: SupportModel, calibration: Calibration | None, path: str | None = None
) -> float:
    """The index's calibrated threshold for these parameters (that of the region holding
    ``path``, the best passage's file, when the index has regions), else the shipped one."""
    own = _measured(model, calibration)
    return model.threshold if own is None else own.threshold_at(path)
