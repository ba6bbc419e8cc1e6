"""A front end's read-only view of an index: folders and counts, scope choices, a first question.

The window shows what the index holds while the engine process writes it: the watched folders
with their counts, the files that failed or were skipped, the choices of the scope control and a
first question to ask. It reads them here, each thread on a read-only connection of its own
(SQLite WAL: a reader never blocks the writer), so no front end opens the manifest itself.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from app.core.index import file_warnings
from app.core.index.availability import folder_problem

if TYPE_CHECKING:
    from app.core.index.manifest import Manifest
    from app.core.index.skipped import SkippedGroup
    from app.core.search.scope import ScopeChoices
    from app.core.search.suggest import Suggestion

PEEK_BUSY_TIMEOUT_S = 0.2  # a first frame does not wait for a migration; the engine's view follows


@dataclass(frozen=True)
class FolderCounts:
    """A watched folder and what the index holds of it."""

    path: str
    files: int
    indexed: int
    failed: int
    passages: int
    problem: str | None = None  # why the folder cannot be read now (unavailable is not gone)


@dataclass(frozen=True)
class IndexSummary:
    """The watched folders with their counts, the totals, and every file not indexed."""

    folders: list[FolderCounts]
    files: int = 0
    passages: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    waiting: int = 0  # passages searchable by their words whose vectors are not computed yet
    # files in the watched folders not read on purpose: [{reason, label, count, examples, types}]
    skipped: list[SkippedGroup] = field(default_factory=list)
    # files indexed with a warning (a guessed encoding, no text at all): (path, warning)
    warnings: list[tuple[str, str]] = field(default_factory=list)


class IndexView:
    """Read-only questions to the index in ``manifest_path``, from any thread."""

    def __init__(self, manifest_path: Path, *, busy_timeout_s: float = 30.0) -> None:
        self.manifest_path = Path(manifest_path)
        self._busy_timeout_s = busy_timeout_s
        self._local = threading.local()
        self._opened: list[Manifest] = []
        self._lock = threading.Lock()

    def exists(self) -> bool:
        """Whether there is an index to read yet."""
        return self.manifest_path.exists()

    def summary(self) -> IndexSummary:
        """The watched folders with their counts, the totals, the failures, the skipped files
        and the files indexed with a warning."""
        manifest = self._manifest()
        folders = []
        for folder in manifest.folders():
            records = manifest.files_under(folder).values()
            folders.append(
                FolderCounts(
                    path=folder,
                    files=len(records),
                    indexed=sum(r.status == "indexed" for r in records),
                    failed=sum(r.status == "failed" for r in records),
                    passages=sum(r.chunks for r in records),
                    problem=folder_problem(folder, bool(records)),
                )
            )
        counts = manifest.counts()
        return IndexSummary(
            folders,
            counts["files"],
            counts["chunks"],
            manifest.failures(),
            counts["chunks_waiting"],
            manifest.skipped_summary(manifest.folders()),
            file_warnings.listed(manifest.conn),
        )

    def scope_choices(self) -> ScopeChoices:
        """The watched folders and file types a question can be kept to."""
        from app.core.search.scope import choices

        return choices(self._manifest())

    def first_question(self) -> Suggestion | None:
        """A first question drawn from a heading of an indexed file, or None."""
        from app.core.search.suggest import first_question

        return first_question(self._manifest())

    def close(self) -> None:
        """Close every connection opened (from any thread)."""
        with self._lock:
            opened, self._opened = self._opened, []
        for manifest in opened:
            manifest.close()
        self._local = threading.local()

    def _manifest(self) -> Manifest:
        """This thread's connection, opened on first use."""
        manifest: Manifest | None = getattr(self._local, "manifest", None)
        if manifest is None:
            from app.core.index.manifest import Manifest

            manifest = Manifest(
                self.manifest_path, readonly=True, busy_timeout_s=self._busy_timeout_s
            )
            self._local.manifest = manifest
            with self._lock:
                self._opened.append(manifest)
        return manifest


def peek(manifest_path: Path) -> IndexSummary | None:
    """What the index on disk holds before an engine has opened it (a window's first frame);
    None without an index, or while it cannot be read (locked by a migration, damaged)."""
    view = IndexView(manifest_path, busy_timeout_s=PEEK_BUSY_TIMEOUT_S)
    if not view.exists():
        return None
    try:
        return view.summary()
    except sqlite3.Error:
        return None
    finally:
        view.close()
