"""What the watcher tells the outside: its state as a sentence, and running totals."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from app.core.index.availability import folder_problem, unavailable_message
from app.core.index.manifest import Manifest

WatchState = Literal[
    "starting",  # loading the model, checking the index
    "syncing",  # the start-up sync, or a folder just added
    "updating",  # applying a batch of changes
    "watching",  # idle, following changes
    "polling",  # a folder is checked by polling (native watching refused)
    "unavailable",  # a watched folder cannot be read (unplugged, permission denied, I/O error)
    "retrying",  # a write failed (store unreachable, disk full): retried after a backoff
    "error",  # a step failed, or the watcher stopped on an error
    "stopped",
]


@dataclass(frozen=True)
class WatchStatus:
    """What the watcher is doing, as a sentence for a status line."""

    state: WatchState
    message: str
    folder: str = ""


StatusFn = Callable[[WatchState, str, str], None]  # (state, message, folder)


class FolderProblems:
    """Watched folders that cannot be read now, with the reason; says when that changes."""

    def __init__(self, say: StatusFn) -> None:
        self.say = say
        self.reasons: dict[str, str] = {}

    def check(self, folder: str, manifest: Manifest) -> bool:
        """Look at ``folder`` now (an empty one whose files are indexed is not there)."""
        return self.mark(folder, folder_problem(folder, manifest.holds_files(folder)))

    def mark(self, folder: str, problem: str | None) -> bool:
        """Record whether ``folder`` can be read (``problem`` None); True when it is back."""
        if problem is None:
            back = self.reasons.pop(folder, None) is not None
            if back:
                self.say("watching", f"{folder} is back; looking for changes.", folder)
            return back
        if self.reasons.get(folder) != problem:
            self.reasons[folder] = problem
            self.say("unavailable", unavailable_message(folder, problem), folder)
        return False


@dataclass
class WatchStats:
    """Running totals since start (the start-up sync included)."""

    files_indexed: int = 0
    files_removed: int = 0
    files_moved: int = 0
    files_failed: int = 0
    chunks_embedded: int = 0
    batches: int = 0
