"""Per-index calibration of the support flag: where "supported" starts, for this index.

The shipped model's scores mean different things in different indexes: in a folder of
near-identical filings an off-topic or unanswerable question still finds passages that share
a company's name and vocabulary. So each index measures itself: questions drawn from its own
passages (answerable, and the same questions with their file left out, which are not), and a
shipped set of off-topic questions. The threshold on the model's probability is moved, within
bounds, by where those questions score on this index (``choose_threshold``); the result is
stored in the data directory and refreshed as the index grows (``probes.refresh``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.core.config import atomic_write_text
from app.core.index.schema import INDEX_FORMAT

FILE_NAME = "support_calibration.json"
MIN_PASSAGES = 300  # below this an index is too small to say what its typical scores are
GROWTH = 0.2  # recalibrate when the passage count has changed by this share
# The threshold is raised until this share of the drawn questions asked with their file left
# out is flagged, and at least this share of the off-topic questions ...
REMOVED_FLAGGED = 0.75
OFFTOPIC_FLAGGED = 0.9
# ... but never so far that more than this share of the drawn questions (answerable) is.
ANSWERABLE_FLAGGED = 0.15
# And it stays within these bounds of the shipped threshold (in probability), so a handful of
# odd probes cannot switch the flag off or on for everything.
MAX_DROP = 0.05
MAX_RAISE = 0.3


@dataclass(frozen=True)
class Calibration:
    """The threshold chosen for one index, and what it was chosen from."""

    threshold: float
    shipped_threshold: float
    model: str  # the shipped parameters it was computed for (their fitted_on and date)
    passages: int
    date: str
    probes: int = 0
    offtopic: int = 0
    probes_passed: float = 0.0
    removed_flagged: float = 0.0
    offtopic_flagged: float = 0.0
    # The index format it was measured on: passages embedded another way score otherwise.
    index_format: int = 0

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Calibration:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def describe(self) -> str:
        """How the flag was calibrated, in one line for ``doctor``."""
        return (
            f"calibrated for this index on {self.date} at {self.passages:,} passages from "
            f"{self.probes} questions drawn from its passages and {self.offtopic} off-topic "
            f"questions: threshold {self.threshold:.2f} (shipped {self.shipped_threshold:.2f}); "
            f"{self.probes_passed:.0%} of the drawn questions pass, "
            f"{self.removed_flagged:.0%} of them with their file left out are flagged, "
            f"{self.offtopic_flagged:.0%} of off-topic questions are flagged"
        )


def path_for(root: Path) -> Path:
    return Path(root) / FILE_NAME


_cache: dict[Path, tuple[int, Calibration | None]] = {}


def load(root: Path) -> Calibration | None:
    """The stored calibration of the index in ``root`` (re-read when the file changes)."""
    path = path_for(root)
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        _cache.pop(path, None)
        return None
    cached = _cache.get(path)
    if cached is not None and cached[0] == mtime:
        return cached[1]
    try:
        cal: Calibration | None = Calibration.from_json(json.loads(path.read_text("utf-8")))
    except (OSError, ValueError, TypeError):
        cal = None
    _cache[path] = (mtime, cal)
    return cal


def save(root: Path, cal: Calibration) -> None:
    atomic_write_text(path_for(root), json.dumps(cal.to_json(), indent=2) + "\n")


def stale(cal: Calibration | None, passages: int, model: str) -> bool:
    """Whether the index has grown or shrunk enough (or the model or what is embedded for a
    passage changed) to measure again."""
    if passages < MIN_PASSAGES:
        return False
    if cal is None or cal.model != model or cal.index_format != INDEX_FORMAT:
        return True
    return abs(passages - cal.passages) > GROWTH * max(cal.passages, 1)


def choose_threshold(
    answerable: Sequence[float],
    removed: Sequence[float],
    offtopic: Sequence[float],
    shipped: float,
) -> float:
    """The threshold for one index, from the scores of its probe questions (flag below it).

    Chosen on the development indexes (held-out halves, ``footnotes eval support``): in an
    index of near-identical documents a question whose passage is missing still finds close
    neighbours, and the threshold rises until most such questions are flagged.
    """
    if not answerable or not removed:
        return shipped
    t = _quantile(removed, REMOVED_FLAGGED)
    if offtopic:
        t = max(t, _quantile(offtopic, OFFTOPIC_FLAGGED))
    t = min(t, _quantile(answerable, ANSWERABLE_FLAGGED))
    return min(max(t, shipped - MAX_DROP), shipped + MAX_RAISE)


def _quantile(values: Sequence[float], q: float) -> float:
    return float(np.quantile(np.asarray(values, float), q))
