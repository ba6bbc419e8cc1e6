"""Retrieval and verdict metrics: nDCG@k with graded gains, Recall@k, AUROC (ties half)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np


def ndcg_at_k(ranked: Sequence[str], gains: Mapping[str, float], k: int = 10) -> float:
    """nDCG@k with linear gains (the BEIR/trec_eval definition): DCG / ideal DCG."""
    dcg = sum(gains.get(d, 0.0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((g for g in gains.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int) -> float:
    rel = set(relevant)
    return len(rel & set(ranked[:k])) / len(rel) if rel else 0.0


def auroc(positive: Sequence[float] | np.ndarray, negative: Sequence[float] | np.ndarray) -> float:
    """P(score of a random positive > score of a random negative), ties counted half."""
    n_pos, n_neg = len(positive), len(negative)
    if not n_pos or not n_neg:
        return float("nan")
    ranks = average_ranks(
        np.concatenate([np.asarray(positive, float), np.asarray(negative, float)])
    )
    return float((ranks[:n_pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, tied values sharing the mean of their ranks."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    upper = np.cumsum(counts)
    return ((upper - counts + 1 + upper) / 2.0)[inverse]
