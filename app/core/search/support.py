"""Does the retrieved evidence support answering? A calibrated probability with a reason.

Features come from retrieval alone (before any model runs): how similar the best passage is,
how much of the question's key terms the best passages and their best sentence cover, how
strong the lexical match is, whether the dense and lexical retrievers agree, and whether a
negation in the question is missing from the best sentence. A logistic model maps them to a
probability; its parameters are fitted on development questions (``footnotes eval support
--refit``, see ``app.evaluation.runners``) and shipped in ``app/data/support.json``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from app.core.config import atomic_write_text
from app.core.text import WORD, query_terms, sentence_spans, stem
from app.core.types import Hit, Support

FEATURES = (
    "dense_top",
    "key_coverage",
    "sentence_coverage",
    "lexical_strength",
    "agreement",
    "negation_unmatched",
)
KEY_WEIGHT = 3.0  # names and numbers weigh this much more than other content words
_NEGATION = re.compile(r"\b(?:not|never|no|none|nor|neither|without|cannot)\b|n't\b", re.IGNORECASE)


@dataclass(frozen=True)
class SupportModel:
    """Logistic regression over standardised features, plus the decision threshold."""

    weights: dict[str, float]
    bias: float
    means: dict[str, float]
    scales: dict[str, float]
    threshold: float = 0.5
    fitted_on: str = "hand-set defaults"
    provenance: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> SupportModel:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})

    @classmethod
    def load(cls) -> SupportModel:
        """The shipped parameters, or the hand-set defaults if the file is missing or broken."""
        return _load_shipped()

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def save(self, path: Path) -> None:
        atomic_write_text(path, json.dumps(self.to_json(), indent=2) + "\n")

    def probability(self, features: dict[str, float]) -> float:
        z = self.bias
        for name, w in self.weights.items():
            x = (features.get(name, 0.0) - self.means.get(name, 0.0)) / (
                self.scales.get(name) or 1.0
            )
            z += w * x
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


DEFAULT_MODEL = SupportModel(
    weights={
        "dense_top": 2.0,
        "key_coverage": 1.5,
        "lexical_strength": 0.3,
        "agreement": 0.3,
        "negation_unmatched": -0.3,
    },
    bias=0.0,
    means={"dense_top": 0.45, "key_coverage": 0.5, "lexical_strength": 2.5, "agreement": 0.3},
    scales={"dense_top": 0.12, "key_coverage": 0.25, "lexical_strength": 1.5, "agreement": 0.5},
)


def shipped_path() -> Path:
    return Path(str(resources.files("app").joinpath("data/support.json")))


@functools.lru_cache(maxsize=1)
def _load_shipped() -> SupportModel:
    try:
        return SupportModel.from_json(json.loads(shipped_path().read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return DEFAULT_MODEL


def reload_shipped() -> SupportModel:
    """Forget the cached parameters (after a refit wrote new ones)."""
    _load_shipped.cache_clear()
    return _load_shipped()


# -- features --------------------------------------------------------------------------------
def key_terms(question: str) -> dict[str, float]:
    """Stemmed content words of the question with weights: names and numbers count more."""
    content = set(query_terms(question))
    out: dict[str, float] = {}
    for i, m in enumerate(WORD.finditer(question)):
        word = m.group()
        if word.lower() not in content:
            continue
        key = (i > 0 and word[0].isupper()) or any(c.isdigit() for c in word)
        term = stem(word)
        out[term] = max(out.get(term, 0.0), KEY_WEIGHT if key else 1.0)
    return out


def _stems(text: str) -> set[str]:
    return {stem(w) for w in WORD.findall(text)}


def coverage(terms: dict[str, float], text: str) -> float:
    """Weighted share of ``terms`` that occur in ``text``."""
    total = sum(terms.values())
    if not total:
        return 0.0
    words = _stems(text)
    return sum(w for t, w in terms.items() if t in words) / total


def best_sentence(terms: dict[str, float], hits: Sequence[Hit]) -> tuple[float, str]:
    """The sentence of the top three passages that covers most of the question's key terms."""
    best = (0.0, "")
    for h in hits[:3]:
        for start, end in sentence_spans(h.text):
            c = coverage(terms, h.text[start:end])
            if c > best[0]:
                best = (c, h.text[start:end])
    return best


def features(question: str, hits: Sequence[Hit]) -> dict[str, float]:
    """Retrieval evidence for one question, each feature larger when support is likelier."""
    if not hits:
        return dict.fromkeys(FEATURES, 0.0)
    terms = key_terms(question)
    sent_cov, sentence = best_sentence(terms, hits)
    negated = bool(_NEGATION.search(question)) and not _NEGATION.search(sentence)
    top = hits[0]
    return {
        "dense_top": max(h.dense_score or 0.0 for h in hits),
        "key_coverage": max(coverage(terms, h.text) for h in hits[:3]),
        "sentence_coverage": sent_cov,
        "lexical_strength": max(h.lexical_score or 0.0 for h in hits) / max(1, len(terms)),
        "agreement": float(top.dense_rank == 1 and top.lexical_rank == 1),
        "negation_unmatched": float(negated),
    }


def reason_for(f: dict[str, float], supported: bool) -> str:
    """The verdict in plain words, from the feature that stands out most."""
    dense, cov = f.get("dense_top", 0.0), f.get("key_coverage", 0.0)
    if not supported:
        if dense < 0.3 and cov < 0.5:
            return (
                "Nothing in your files is close to this question: "
                "the best passage is about something else."
            )
        if cov < 0.5:
            return "The closest passage in your files shares few of the question's key terms."
        if f.get("negation_unmatched"):
            return (
                "The question asks about something that did not happen or is not so, "
                "but the closest passage does not say that."
            )
        if dense < 0.4:
            return "Passages mention the question's words, but none is about what it asks."
        return (
            "The passages found only loosely match the question; "
            "the answer may not be in your files."
        )
    if cov >= 0.8:
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


# -- fitting ---------------------------------------------------------------------------------
def fit_logistic(
    x: np.ndarray,
    y: np.ndarray,
    *,
    l2: float = 1.0,
    sample_weight: np.ndarray | None = None,
    iterations: int = 50,
) -> tuple[np.ndarray, float]:
    """L2-penalised logistic regression by Newton's method (IRLS); the bias is not penalised."""
    n, d = x.shape
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
    a = np.hstack([x, np.ones((n, 1))])
    beta = np.zeros(d + 1)
    penalty = np.full(d + 1, l2)
    penalty[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(a @ beta, -40, 40)))
        grad = a.T @ (sw * (p - y)) + penalty * beta
        hess = (a * (sw * p * (1 - p))[:, None]).T @ a + np.diag(penalty) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return beta[:-1], float(beta[-1])


def fit_model(
    rows: Sequence[dict[str, float]],
    labels: Sequence[bool],
    *,
    l2: float = 1.0,
    flag_rate: float = 0.04,
    names: Sequence[str] = FEATURES,
) -> SupportModel:
    """Standardise, fit with balanced class weights, and set the threshold so that about
    ``flag_rate`` of the positive (answerable) rows fall below it."""
    x = np.array([[r.get(n, 0.0) for n in names] for r in rows], float)
    y = np.asarray(labels, float)
    means, scales = x.mean(axis=0), x.std(axis=0)
    scales[scales == 0] = 1.0
    pos = y.sum()
    weights = np.where(y == 1, len(y) / (2 * pos), len(y) / (2 * (len(y) - pos)))
    w, b = fit_logistic((x - means) / scales, y, l2=l2, sample_weight=weights)
    model = SupportModel(
        weights={n: round(float(v), 6) for n, v in zip(names, w, strict=True)},
        bias=round(b, 6),
        means={n: round(float(v), 6) for n, v in zip(names, means, strict=True)},
        scales={n: round(float(v), 6) for n, v in zip(names, scales, strict=True)},
    )
    probs = np.array([model.probability(r) for r, ok in zip(rows, labels, strict=True) if ok])
    # Rounded down, never to nearest: the answerable question that sets the quantile must stay
    # at or above the threshold (``p < threshold`` flags), whatever the CPU's last bits.
    cut = float(np.quantile(probs, flag_rate))
    threshold = math.floor(cut * 1e6) / 1e6
    if threshold > cut:  # cut sat a hair below a multiple of 1e-6
        threshold -= 1e-6
    return dataclasses.replace(model, threshold=round(threshold, 6))
