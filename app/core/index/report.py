"""What a sync tells the outside: its progress events as they happen, and its final counts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from app.core.index.skipped import SkippedFile, SkippedGroup, tally

# planned: the scan is done and ``total`` files will be read; then one event per file.
# ocr: a page of a scanned file is being read by OCR (``detail`` says which of how many).
# page: a long document's text is being read (``detail``: "page 40 of 200").
# indexed: a file's passages are written and searchable by their words; ``chunks_embedded``
# counts its texts new to the index, whose vectors the embedding stage computes next.
# skipped: a file not read on purpose (``detail``: why, ``skips.SkipReason``); counted, not failed.
# embedded: the embedding stage computed vectors: ``done`` of ``total`` waiting texts, of
# which ``chunks_embedded`` were encoded in this step (the rest had a vector already).
ProgressEvent = Literal[
    "planned",
    "indexed",
    "unchanged",
    "failed",
    "skipped",
    "removed",
    "moved",
    "ocr",
    "page",
    "embedded",
]


class Cancelled(Exception):
    """The sync was asked to stop; everything written so far is consistent."""


@dataclass
class IndexReport:
    """Counts of one sync run, printed by ``index --json``."""

    files_seen: int = 0
    files_indexed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    files_failed: int = 0
    files_skipped: int = 0
    chunks_total: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    chunks_written: int = 0  # passages of the files read in this run (not in the JSON)
    pages_ocr: int = 0  # pages read by OCR in this run (cached results included)
    seconds: float = 0.0
    failures: list[tuple[str, str]] = field(default_factory=list)
    # roots and watched folders that could not be read (path, reason): their passages stay
    unavailable: list[tuple[str, str]] = field(default_factory=list)
    # given paths with nothing there and nothing indexed from them (a typo, most likely)
    not_found: list[str] = field(default_factory=list)
    failed_unchanged: int = 0  # of files_unchanged, those that failed before (not in the JSON)
    # files not read on purpose (binary data, a format with no reader), each counted once
    skipped: list[SkippedFile] = field(default_factory=list)

    def skip(self, file: SkippedFile) -> None:
        """Count one file skipped on purpose."""
        self.skipped.append(file)
        self.files_skipped += 1

    @property
    def unchanged_only(self) -> int:
        """The files unchanged that did not fail before: a summary counts each file once (a
        failed file left as it was is failed, not also unchanged)."""
        return self.files_unchanged - self.failed_unchanged

    def skipped_summary(self) -> list[SkippedGroup]:
        """The skipped files by reason: ``[{reason, label, count, examples, types}]``."""
        return tally((f.path, f.reason, f.type) for f in self.skipped)

    def to_json(self) -> dict[str, Any]:
        """The ``index --json`` object (a fixed contract: see DESIGN.md)."""
        return {
            "files_seen": self.files_seen,
            "files_indexed": self.files_indexed,
            "files_unchanged": self.files_unchanged,
            "files_removed": self.files_removed,
            "files_failed": self.files_failed,
            "files_skipped": self.files_skipped,
            "chunks_total": self.chunks_total,
            "chunks_embedded": self.chunks_embedded,
            "chunks_reused": self.chunks_reused,
            "pages_ocr": self.pages_ocr,
            "seconds": round(self.seconds, 3),
            "failures": [{"path": p, "reason": r} for p, r in self.failures],
            "unavailable": [{"path": p, "reason": r} for p, r in self.unavailable],
            "not_found": list(self.not_found),
            "skipped": self.skipped_summary(),
        }


@dataclass(frozen=True)
class Progress:
    """One step of a sync, for progress bars and logs: numbers, which each front end words."""

    event: ProgressEvent
    path: str = ""
    done: int = 0  # files (or, for "embedded", texts) done of ``total``
    total: int = 0
    chunks_embedded: int = 0
    detail: str = ""  # failed: the reason; skipped: its SkipReason; moved: the old path
    passages: int = 0  # indexed: the file's passages
    page: int = 0  # ocr, page: the page being read inside the file (1-based) ...
    pages: int = 0  # ... of this many


ProgressFn = Callable[[Progress], None]
