"""What the watcher tells the outside: its state as a sentence, and running totals."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

WatchState = Literal[
    "starting",  # loading the model, checking the index
    "syncing",  # the start-up sync, or a folder just added
    "updating",  # applying a batch of changes
    "watching",  # idle, following changes
    "polling",  # a folder is checked by polling (native watching refused)
    "missing",  # a watched folder is gone (an unplugged drive?)
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


@dataclass
class WatchStats:
    """Running totals since start (the start-up sync included)."""

    files_indexed: int = 0
    files_removed: int = 0
    files_moved: int = 0
    files_failed: int = 0
    chunks_embedded: int = 0
    batches: int = 0


def missing_message(folder: str) -> str:
    """The status sentence for a watched folder that disappeared."""
    return (
        f"{folder} is missing (an unplugged drive?); its passages stay in the index and "
        "watching resumes when it is back."
    )


def plural(count: int, noun: str) -> str:
    """``1 folder``, ``2 folders``."""
    return f"{count} {noun}" + ("" if count == 1 else "s")
