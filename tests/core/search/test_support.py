"""The support verdict: features, the logistic model, fitting, and plain-words reasons."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

from app.core.search import fusion, support
from app.core.search.support import (
    FEATURES,
    SupportModel,
    assess,
    features,
    fit_logistic,
    fit_model,
)
from app.core.types import Hit

PASSAGE = (
    "The Normans were the people who in the 10th and 11th centuries gave their name to "
    "Normandy, a region in France. They were descended from Norse raiders and pirates. "
    "Their leader Rollo agreed to swear fealty to King Charles III of West Francia."
)
OTHER = "Prime numbers are integers greater than one with no positive divisors other than one."


def hit(
    rank: int,
    text: str,
    dense: float,
    lexical: float | None = 5.0,
    dense_rank: int | None = None,
    lexical_rank: int | None = None,
) -> Hit:
    return Hit(
        rank,
        f"/docs/{rank}.txt",
        None,
        0,
        len(text),
        text,
        1.0 / (60 + rank),
        f"c{rank}",
        dense_score=dense,
        lexical_score=lexical,
        dense_rank=dense_rank or rank,
        lexical_rank=lexical_rank or rank,
    )


def test_features_reward_covered_key_terms_and_similarity() -> None:
    q = "In what country is Normandy located?"
    good = features(q, [hit(1, PASSAGE, 0.62, 12.0), hit(2, OTHER, 0.1, None)])
    bad = features(q, [hit(1, OTHER, 0.15, 1.0)])
    assert set(good) == set(FEATURES)
    assert good["dense_top"] == pytest.approx(0.62)
    assert good["key_coverage"] > bad["key_coverage"]
    assert good["sentence_coverage"] > bad["sentence_coverage"]
    assert good["specific_coverage"] > bad["specific_coverage"]
    assert good["agreement"] == 1.0


def test_the_fused_margin_tells_one_clear_winner_from_many_alike() -> None:
    q = "In what country is Normandy located?"

    def scored(scores: list[float]) -> list[Hit]:
        return [dataclasses.replace(hit(i, PASSAGE, 0.6), score=s) for i, s in enumerate(scores, 1)]

    clear = features(q, scored([1.0, 0.4, 0.3, 0.25, 0.2]))
    alike = features(q, scored([0.8, 0.78, 0.77, 0.76, 0.75]))
    assert clear["fused_top"] == pytest.approx(1.0)
    assert clear["fused_gap"] == pytest.approx(0.8)
    assert alike["fused_gap"] == pytest.approx(0.05)
    # a question that names its file lifts that file's passages by a bonus; the flag sees the
    # retrievers' own scores, so naming the file does not make weak evidence look strong
    named = features(
        q, scored([1.0 + fusion.NAMED_BONUS, 0.4 + fusion.NAMED_BONUS, 0.3, 0.25, 0.2])
    )
    assert named["fused_top"] == pytest.approx(1.0)
    assert named["fused_gap"] == pytest.approx(clear["fused_gap"])


def test_names_and_numbers_weigh_more_than_common_words() -> None:
    terms = support.key_terms("When did Rollo swear fealty in 911?")
    assert terms["rollo"] == terms["911"] == support.KEY_WEIGHT
    assert terms[support.stem("swear")] == 1.0
    # missing a name costs more coverage than missing a common word
    assert support.coverage(terms, "Rollo swore in 911") > support.coverage(
        terms, "he swore fealty"
    )


def test_negation_missing_from_the_best_sentence_is_a_feature() -> None:
    q = "Who did not swear fealty to King Charles III?"
    assert features(q, [hit(1, PASSAGE, 0.6)])["negation_unmatched"] == 1.0
    negated = PASSAGE.replace("Rollo agreed to swear", "Rollo did not swear")
    assert features(q, [hit(1, negated, 0.6)])["negation_unmatched"] == 0.0


def test_probability_is_monotonic_in_each_positive_feature() -> None:
    model = SupportModel.load()
    base = dict.fromkeys(FEATURES, 0.5)
    base["negation_unmatched"] = 0.0
    for name, weight in model.weights.items():
        lo, hi = dict(base), dict(base)
        hi[name] = base[name] + 0.3
        p_lo, p_hi = model.probability(lo), model.probability(hi)
        assert (p_hi >= p_lo) if weight >= 0 else (p_hi <= p_lo), name
    assert 0.0 < model.probability(base) < 1.0


def test_shipped_parameters_separate_a_good_match_from_an_unrelated_one() -> None:
    q = "In what country is Normandy located?"
    good = assess(q, [hit(1, PASSAGE, 0.62, 12.0)])
    bad = assess(q, [hit(1, OTHER, 0.12, 0.5, lexical_rank=9)])
    assert good.supported and not bad.supported
    assert good.score > bad.score
    assert not assess(q, []).supported


def test_reasons_are_plain_sentences() -> None:
    samples = [
        assess("In what country is Normandy located?", [hit(1, PASSAGE, 0.62, 12.0)]),
        assess("In what country is Normandy located?", [hit(1, OTHER, 0.12, 0.5)]),
        assess("What is the boiling point of mercury?", [hit(1, PASSAGE, 0.35, 1.0)]),
        assess("Who did not swear fealty?", [hit(1, PASSAGE, 0.45, 3.0)]),
        assess("Anything", []),
    ]
    for s in samples:
        assert s.reason.endswith(".") and s.reason[0].isupper()
        assert not re.search(r"\d\.\d|_|cosine|bm25|feature|logit|threshold", s.reason, re.I)
        for r in (
            support.reason_for(dict.fromkeys(FEATURES, v), ok)
            for v in (0.0, 0.5, 1.0)
            for ok in (True, False)
        ):
            assert "_" not in r


def test_fit_logistic_recovers_a_known_direction() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2000, 2))
    y = (rng.random(2000) < 1 / (1 + np.exp(-(2.0 * x[:, 0] - 1.0 * x[:, 1] + 0.5)))).astype(float)
    w, b = fit_logistic(x, y, l2=0.01)
    assert w[0] == pytest.approx(2.0, abs=0.3) and w[1] == pytest.approx(-1.0, abs=0.3)
    assert b == pytest.approx(0.5, abs=0.2)
    strong, _ = fit_logistic(x, y, l2=1e5)  # heavy regularisation shrinks towards zero
    assert np.all(np.abs(strong) < np.abs(w))


def test_fitted_model_round_trips_through_json(tmp_path: Path) -> None:
    rng = random.Random(5)
    rows, labels = [], []
    for _ in range(400):
        ok = rng.random() < 0.4
        rows.append({n: rng.gauss(0.6 if ok else 0.3, 0.1) for n in FEATURES})
        labels.append(ok)
    model = fit_model(rows, labels, flag_rate=0.05)
    probs = [model.probability(r) for r, ok in zip(rows, labels, strict=True) if ok]
    assert np.mean([p < model.threshold for p in probs]) == pytest.approx(0.05, abs=0.02)
    model = dataclasses.replace(model, provenance={"date": "2026-01-01", "n": 400})
    path = tmp_path / "support.json"
    model.save(path)
    again = SupportModel.from_json({**json.loads(path.read_text()), "unknown_key": 1})
    assert again == model
    assert again.probability(rows[0]) == model.probability(rows[0])


def test_missing_or_broken_parameter_file_falls_back_to_defaults(
    tmp_path: Path, monkeypatch
) -> None:
    broken = tmp_path / "support.json"
    broken.write_text("{not json")
    from app.core.search import support_model

    monkeypatch.setattr(support_model, "shipped_path", lambda: broken)
    try:
        assert support.reload_shipped() == support.DEFAULT_MODEL
    finally:
        monkeypatch.undo()
        support.reload_shipped()


def test_a_negation_reason_quotes_the_questions_own_word() -> None:
    """ "and what if the commit can't be tested?" was told it "asks about something that did
    not happen": the reason now names the word and what is missing from the passage."""
    f = {**dict.fromkeys(FEATURES, 0.0), "negation_unmatched": 1.0}
    f.update(dense_top=0.55, key_coverage=0.9)
    reason = support.reason_for(f, False, negation="can't")
    assert "“can't”" in reason and "did not happen" not in reason
    assert support._NEGATION_WORD.search("what if the commit can't be tested?").group() == "can't"
