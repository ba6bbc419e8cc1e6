"""Does the retrieved evidence support answering? A calibrated probability with a reason.

Features come from retrieval alone (before any model runs): how similar the best passages are,
how strong the lexical match is, how much of the question's key terms the best passage covers,
and whether the dense and lexical retrievers agree. A logistic model maps them to a
probability; its parameters are fitted on development questions (``bench/fit_support.py``)
and shipped in ``app/data/support.json``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from app.core.lexical import content_terms
from app.core.types import Hit, Support

FEATURES = ("dense_top", "dense_margin", "lexical_top", "coverage", "agreement")


@dataclass(frozen=True)
class SupportModel:
    """Logistic regression over standardised features, plus the decision threshold."""

    weights: dict[str, float]
    bias: float
    means: dict[str, float]
    scales: dict[str, float]
    threshold: float = 0.5
    fitted_on: str = "hand-set defaults"

    @classmethod
    def load(cls) -> SupportModel:
        try:
            raw = json.loads(resources.files("app").joinpath("data/support.json").read_text())
            return cls(**raw)
        except (FileNotFoundError, ValueError, TypeError):
            return DEFAULT_MODEL

    def probability(self, features: dict[str, float]) -> float:
        z = self.bias
        for name, w in self.weights.items():
            x = (features.get(name, 0.0) - self.means.get(name, 0.0)) / (self.scales.get(name) or 1.0)
            z += w * x
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


DEFAULT_MODEL = SupportModel(
    weights={"dense_top": 2.0, "coverage": 1.5, "lexical_top": 0.3, "agreement": 0.4},
    bias=0.0,
    means={"dense_top": 0.45, "coverage": 0.5, "lexical_top": 8.0, "agreement": 0.3},
    scales={"dense_top": 0.12, "coverage": 0.25, "lexical_top": 5.0, "agreement": 0.3},
)

_SUFFIX = re.compile(r"(ies|es|s|ing|ed|ly)$")


def _stem(word: str) -> str:
    return _SUFFIX.sub("", word) if len(word) > 4 else word


def coverage(question: str, passage: str) -> float:
    """Share of the question's content words (crudely stemmed) that occur in the passage."""
    terms = {_stem(t) for t in content_terms(question)}
    if not terms:
        return 0.0
    words = {_stem(w) for w in re.findall(r"\w+", passage.lower())}
    return len(terms & words) / len(terms)


def features(question: str, hits: Sequence[Hit]) -> dict[str, float]:
    if not hits:
        return dict.fromkeys(FEATURES, 0.0)
    dense = sorted((h.dense_score or 0.0 for h in hits), reverse=True)
    top = max(hits[:3], key=lambda h: h.dense_score or 0.0)
    best_cov = max(coverage(question, h.text) for h in hits[:3])
    dense_top5 = {h.chunk_id for h in sorted(hits, key=lambda h: h.dense_rank or 10**6)[:5] if h.dense_rank}
    lex_top5 = {h.chunk_id for h in sorted(hits, key=lambda h: h.lexical_rank or 10**6)[:5] if h.lexical_rank}
    agreement = len(dense_top5 & lex_top5) / 5.0
    del top
    return {
        "dense_top": dense[0],
        "dense_margin": dense[0] - (dense[1] if len(dense) > 1 else 0.0),
        "lexical_top": max(h.lexical_score or 0.0 for h in hits),
        "coverage": best_cov,
        "agreement": agreement,
    }


def reason_for(f: dict[str, float], supported: bool) -> str:
    if not supported:
        if f["dense_top"] < 0.3 and f["coverage"] < 0.5:
            return "Nothing in your files is close to this question: the best passage is about something else."
        if f["coverage"] < 0.5:
            return "The closest passage in your files shares few of the question's key terms."
        if f["dense_top"] < 0.4:
            return "Passages mention the question's words, but none is about what it asks."
        return "The passages found only loosely match the question; the answer may not be in your files."
    if f["coverage"] >= 0.8:
        return "A passage in your files closely matches the question and contains its key terms."
    return "Passages in your files match the question closely."


def assess(question: str, hits: Sequence[Hit], model: SupportModel | None = None) -> Support:
    """The support verdict for a question given its retrieved hits."""
    model = model or SupportModel.load()
    if not hits:
        return Support(False, 0.0, "Your index has no passages for this question yet.", {})
    f = features(question, hits)
    p = model.probability(f)
    ok = p >= model.threshold
    return Support(ok, p, reason_for(f, ok), f)
