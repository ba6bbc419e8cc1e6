"""The support flag's model: logistic regression over standardised features, the parameters
shipped in ``app/data/support.json``, and the fit that makes them (``eval support --refit``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from app.core.search.support_model import (
    DEFAULT_MODEL,
    MODEL_FEATURES,
    SupportModel,
    fit_logistic,
    fit_model,
    reload_shipped,
    shipped_path,
)


def test_the_shipped_parameters_load_and_weigh_the_model_features() -> None:
    model = SupportModel.load()
    assert model != DEFAULT_MODEL  # the file is there and parses, not the fallback
    assert set(model.weights) == set(MODEL_FEATURES)
    assert 0.0 < model.threshold < 1.0
    assert model.key == f"{model.fitted_on} @ {model.provenance.get('date', '')}"
    assert reload_shipped() == model
    assert json.loads(shipped_path().read_text())["threshold"] == model.threshold


def test_a_better_match_is_more_probably_supported_and_extremes_do_not_overflow() -> None:
    model = SupportModel(
        weights={"dense_top": 2.0, "unknown_terms": -1.0},
        bias=0.0,
        means={"dense_top": 0.5, "unknown_terms": 0.0},
        scales={"dense_top": 0.1, "unknown_terms": 0.0},  # a zero scale reads as 1
    )
    low, mid, high = (model.probability({"dense_top": x}) for x in (0.3, 0.5, 0.7))
    assert low < mid == 0.5 < high
    assert model.probability({"dense_top": 0.5, "unknown_terms": 1.0}) < 0.5
    assert model.probability({"dense_top": 1e9}) == 1.0 / (1.0 + np.exp(-40.0))
    assert model.probability({"dense_top": -1e9}) > 0.0


def test_parameters_are_saved_and_read_back_ignoring_keys_they_do_not_know(
    tmp_path: Path,
) -> None:
    path = tmp_path / "support.json"
    DEFAULT_MODEL.save(path)
    raw = json.loads(path.read_text())
    assert SupportModel.from_json(raw) == DEFAULT_MODEL
    assert SupportModel.from_json({**raw, "added_later": [1, 2]}) == DEFAULT_MODEL


def test_logistic_regression_finds_the_direction_that_separates() -> None:
    rng = np.random.default_rng(0)
    x = np.vstack([rng.normal(1.0, 0.5, (50, 2)), rng.normal(-1.0, 0.5, (50, 2))])
    x[:, 1] = rng.normal(0, 1, 100)  # the second feature is noise
    y = np.array([1.0] * 50 + [0.0] * 50)
    w, _ = fit_logistic(x, y)
    assert w[0] > 1.0 and abs(w[1]) < w[0] / 4


def rows(rng: np.random.Generator, centre: float, n: int) -> list[dict[str, float]]:
    return [{"dense_top": float(v)} for v in rng.normal(centre, 0.1, n)]


def test_the_fitted_threshold_flags_about_the_rate_asked_of_answerable_questions() -> None:
    rng = np.random.default_rng(1)
    answerable, missing = rows(rng, 0.6, 200), rows(rng, 0.3, 200)
    model = fit_model(
        answerable + missing, [True] * 200 + [False] * 200, names=("dense_top",), flag_rate=0.05
    )
    assert model.weights["dense_top"] > 0
    flagged = [model.probability(r) < model.threshold for r in answerable]
    assert 0 < sum(flagged) <= 0.05 * len(answerable)  # rounded down: never more
    assert sum(model.probability(r) < model.threshold for r in missing) > 150


def test_with_domains_no_domains_answerable_questions_are_flagged_more_than_the_rate() -> None:
    rng = np.random.default_rng(2)
    easy = rows(rng, 0.7, 100) + rows(rng, 0.3, 100)
    hard = rows(rng, 0.45, 100) + rows(rng, 0.3, 100)  # a folder of look-alike documents
    labels = ([True] * 100 + [False] * 100) * 2
    domains = ["notes"] * 200 + ["filings"] * 200
    model = fit_model(easy + hard, labels, names=("dense_top",), flag_rate=0.05, domains=domains)
    for part in (easy[:100], hard[:100]):
        assert sum(model.probability(r) < model.threshold for r in part) <= 5
