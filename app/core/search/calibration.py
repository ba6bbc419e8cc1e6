"""Per-index calibration of the support flag: where "supported" starts, for this index.

The shipped model's scores mean different things in different indexes: in a folder of
near-identical filings an off-topic or unanswerable question still finds passages that share
a company's name and vocabulary. So each index measures itself: questions drawn from its own
passages (answerable, and the same questions with their file left out, which are not), and a
shipped set of off-topic questions. The threshold on the model's probability is moved, within
bounds, by where those questions score on this index (``choose_threshold``); the result is
stored in the data directory and refreshed as the index grows (``stale``, ``probes.refresh``).
An index whose top-level folders differ (``regions``) gets a threshold for each of them,
chosen the same way from questions drawn from that folder; a question is judged by the
threshold of the folder its best passage is in (``Calibration.threshold_at``).

Where even that threshold flags few of the drawn questions with their file left out (a folder
of look-alike documents: annual filings, one manual per version), the match cannot say whether
the page that answers was found. Such a region is marked ``lookalike``, and a question that
passes there is told so (``Calibration.lookalike_at``) rather than reassured; the verdict,
which reads the answer, is what keeps a miss from turning green. Its threshold stays: flagging
only where off-topic questions land there, held-out off-topic questions on the corpus index
were flagged 0.85 instead of 0.92, FinanceBench's answerable ones 0.17 instead of 0.26.
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
from app.core.search.regions import folder_of

FILE_NAME = "support_calibration.json"
MIN_PASSAGES = 300  # below this an index is too small to say what its typical scores are
GROWTH = 0.2  # recalibrate when the passage count has changed by this share
# The threshold is raised until this share of the drawn questions asked with their file left
# out is flagged, and at least this share of the off-topic questions ...
REMOVED_FLAGGED = 0.75
OFFTOPIC_FLAGGED = 0.9
# ... but never so far that more than this share of the drawn questions (answerable) is.
ANSWERABLE_FLAGGED = 0.15
# A region's threshold (``regions``) may flag this share of its own drawn questions. On the
# corpus index (held-out halves, ``footnotes eval support``) 0.15 left off-topic questions,
# most of which land among the filings, flagged 0.885; 0.2 gives 0.90 with FinanceBench's
# retrieved questions flagged no more (0.125); 0.25 doubles that. An index without regions
# keeps 0.15: at 0.2 SQuAD 2.0's answerable questions would be flagged 0.105.
REGION_ANSWERABLE_FLAGGED = 0.2
# A region where the threshold so chosen flags fewer than this share of the drawn questions
# with their file left out cannot tell a found page from a missed one (``lookalike``). On the
# corpus index (``footnotes eval support``, held-out halves) the filings region flagged 0.38 of
# them and FinanceBench's answerable questions whose page was found 0.26, those whose page was
# missed 0.24 (AUROC 0.64); the manuals flagged 0.15-0.23; the notes 0.65-0.69.
LOOKALIKE_REMOVED_FLAGGED = 0.5
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
    # Thresholds of the index's regions (``regions``), each chosen the same way from questions
    # drawn from its own passages: [{"folder", "threshold", "passages", "probes", ...}].
    regions: tuple[dict[str, Any], ...] = ()

    @classmethod
    def from_json(cls, raw: Any) -> Calibration:
        """The calibration a JSON object holds; TypeError for JSON that is no object."""
        if not isinstance(raw, dict):
            raise TypeError(f"a calibration is a JSON object, not {type(raw).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        fields = {k: v for k, v in raw.items() if k in known}
        fields["regions"] = tuple(dict(r) for r in fields.get("regions", ()))
        return cls(**fields)

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["regions"] = [dict(r) for r in self.regions]
        return out

    def threshold_at(self, path: str | None) -> float:
        """The threshold for a question whose best passage is in ``path``: its region's, or
        the index-wide one."""
        region = self._region_at(path)
        return self.threshold if region is None else float(region["threshold"])

    def lookalike_at(self, path: str | None) -> bool:
        """Whether ``path`` lies in a region of look-alike documents, where the match alone
        cannot say whether the page that answers was found."""
        region = self._region_at(path)
        return region is not None and bool(region.get("lookalike"))

    def _region_at(self, path: str | None) -> dict[str, Any] | None:
        own = {str(r["folder"]): r for r in self.regions}
        folder = None if path is None else folder_of(path, list(own))
        return None if folder is None else own[folder]

    def describe(self) -> str:
        """How the flag was calibrated, in one line for ``doctor``."""
        return (
            f"calibrated for this index on {self.date} at {self.passages:,} passages from "
            f"{self.probes} questions drawn from its passages and {self.offtopic} off-topic "
            f"questions: threshold {self.threshold:.2f} (shipped {self.shipped_threshold:.2f}); "
            f"{self.probes_passed:.0%} of the drawn questions pass, "
            f"{self.removed_flagged:.0%} of them with their file left out are flagged, "
            f"{self.offtopic_flagged:.0%} of off-topic questions are flagged"
            + "".join(
                f"; in {r['folder']} ({r['passages']:,} passages, {r['probes']} questions) "
                f"{r['threshold']:.2f}"
                + (
                    " (look-alike documents: a match cannot tell a found page from a missed one)"
                    if r.get("lookalike")
                    else ""
                )
                for r in self.regions
            )
        )


def path_for(root: Path) -> Path:
    return Path(root) / FILE_NAME


def load(root: Path) -> Calibration | None:
    """The stored calibration of the index in ``root`` (None when there is none, or it is
    unreadable); read each time: a search keeps a :class:`CalibrationFile` instead."""
    try:
        return Calibration.from_json(json.loads(path_for(root).read_text("utf-8")))
    except (OSError, ValueError, TypeError):
        return None


class CalibrationFile:
    """One index's stored calibration, read again only when the file changes (its owner, the
    search cache of an open index, lives as long as that index is open)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._seen: tuple[tuple[int, int, int], Calibration | None] | None = None

    def current(self) -> Calibration | None:
        """The calibration as the file holds it now."""
        try:
            st = path_for(self.root).stat()
        except OSError:
            self._seen = None
            return None
        version = (st.st_mtime_ns, st.st_ino, st.st_size)  # a save replaces the file whole
        if self._seen is None or self._seen[0] != version:
            self._seen = (version, load(self.root))
        return self._seen[1]


def save(root: Path, cal: Calibration) -> None:
    atomic_write_text(path_for(root), json.dumps(cal.to_json(), indent=2) + "\n")


def stale(
    cal: Calibration | None,
    passages: int,
    model: str,
    regions: Sequence[str] | None = None,
) -> bool:
    """Whether the index has grown or shrunk enough (or the model or what is embedded for a
    passage changed) to measure again; or, given the folders that now qualify as regions,
    whether they are not the ones measured (a new top-level folder large enough to be one
    gets its own threshold even when it adds less than ``GROWTH``)."""
    if passages < MIN_PASSAGES:
        return False
    if cal is None or cal.model != model or cal.index_format != INDEX_FORMAT:
        return True
    if abs(passages - cal.passages) > GROWTH * max(cal.passages, 1):
        return True
    if any("lookalike" not in r for r in cal.regions):  # measured before regions were judged so
        return True
    return regions is not None and set(regions) != {str(r["folder"]) for r in cal.regions}


def choose_threshold(
    answerable: Sequence[float],
    removed: Sequence[float],
    offtopic: Sequence[float],
    shipped: float,
    answerable_flagged: float = ANSWERABLE_FLAGGED,
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
    t = min(t, _quantile(answerable, answerable_flagged))
    return min(max(t, shipped - MAX_DROP), shipped + MAX_RAISE)


def _quantile(values: Sequence[float], q: float) -> float:
    return float(np.quantile(np.asarray(values, float), q))
