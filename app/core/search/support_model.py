"""The support flag's model: logistic regression over standardised features, its shipped
parameters (``app/data/support.json``) and the fit that makes them (``eval support --refit``)."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from app.core.config import atomic_write_text

FEATURES = (
    "dense_top",
    "dense_gap",
    "key_coverage",
    "specific_coverage",
    "sentence_coverage",
    "unknown_terms",
    "agreement",
    "doc_focus",
    "negation_unmatched",
    "fused_top",
    "fused_gap",
)
# The fitted model weighs these. The others are computed and reported (``search --json``) but
# measured no help on held-out halves once these are in (``footnotes eval support``): the
# coverage variants are collinear with the sentence coverage and took negative weights, and
# the dense margin over the fifth passage and the share from one document separated nothing.
# The fused score's margin did: a best passage that both retrievers put well above the fifth
# (FinanceBench dev, held out: AUROC of evidence found against not 0.50 -> 0.68).
MODEL_FEATURES = (
    "dense_top",
    "sentence_coverage",
    "unknown_terms",
    "agreement",
    "negation_unmatched",
    "fused_top",
    "fused_gap",
)


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

    @property
    def key(self) -> str:
        """What a per-index calibration was computed for: these parameters' origin and date."""
        return f"{self.fitted_on} @ {self.provenance.get('date', '')}"

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
        "unknown_terms": -0.5,
        "agreement": 0.3,
        "negation_unmatched": -0.3,
    },
    bias=0.0,
    means={"dense_top": 0.45, "key_coverage": 0.5, "unknown_terms": 0.1, "agreement": 0.3},
    scales={"dense_top": 0.12, "key_coverage": 0.25, "unknown_terms": 0.2, "agreement": 0.5},
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
    domains: Sequence[str] | None = None,
) -> SupportModel:
    """Standardise, fit with balanced class weights, and set the threshold so that about
    ``flag_rate`` of the positive (answerable) rows fall below it.

    With ``domains`` (one name per row) each domain weighs the same, its two classes
    balanced within it, and the threshold is the lowest of the domains' quantiles, so no
    domain's answerable questions are flagged more than ``flag_rate`` in-sample.
    """
    x = np.array([[r.get(n, 0.0) for n in names] for r in rows], float)
    y = np.asarray(labels, float)
    means, scales = x.mean(axis=0), x.std(axis=0)
    scales[scales == 0] = 1.0
    cells = list(zip(domains or [""] * len(y), y, strict=True))
    sizes = Counter(cells)
    weights = np.array([1.0 / sizes[c] for c in cells])
    weights *= len(y) / weights.sum()
    w, b = fit_logistic((x - means) / scales, y, l2=l2, sample_weight=weights)
    model = SupportModel(
        weights={n: round(float(v), 6) for n, v in zip(names, w, strict=True)},
        bias=round(b, 6),
        means={n: round(float(v), 6) for n, v in zip(names, means, strict=True)},
        scales={n: round(float(v), 6) for n, v in zip(names, scales, strict=True)},
    )
    cuts = []
    for domain in dict.fromkeys(d for d, _ in cells):
        probs = [
            model.probability(r)
            for r, ok, (d, _) in zip(rows, labels, cells, strict=True)
            if ok and d == domain
        ]
        if probs:
            cuts.append(float(np.quantile(probs, flag_rate)))
    # Rounded down, never to nearest: the answerable question that sets the quantile must stay
    # at or above the threshold (``p < threshold`` flags), whatever the CPU's last bits.
    cut = min(cuts)
    threshold = math.floor(cut * 1e6) / 1e6
    if threshold > cut:  # cut sat a hair below a multiple of 1e-6
        threshold -= 1e-6
    return dataclasses.replace(model, threshold=round(threshold, 6))
