"""Changed paths waiting to be indexed: coalesced per path, debounced by a quiet period.

A path is due once no event touched it for ``quiet`` seconds (an editor's save storm is one
re-index), or ``max_wait`` after its first event if it keeps changing. Renames are kept in
arrival order and move the pending changes below them along.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from app.core.ingest.scanning import is_within

QUIET_S = 0.35  # no event for this long: the change is complete
MAX_WAIT_S = 3.0  # a file that never stops changing is still indexed this often


class Batch(NamedTuple):
    """Changes ready to apply: renames in arrival order, then paths to re-check."""

    moves: list[tuple[str, str]]
    paths: list[str]

    def touched(self) -> list[str]:
        """Every path the batch touches (a moved file: both its names)."""
        return [p for move in self.moves for p in move] + self.paths


class ChangeQueue:
    """Changed paths coalesced per path with quiet-period debouncing; not thread-safe."""

    def __init__(self, quiet: float = QUIET_S, max_wait: float = MAX_WAIT_S) -> None:
        self.quiet = quiet
        self.max_wait = max_wait
        self._paths: dict[str, tuple[float, float]] = {}  # path -> (first, last) event time
        self._moves: list[tuple[str, str]] = []

    def __len__(self) -> int:
        return len(self._paths) + len(self._moves)

    def touch(self, path: str, now: float) -> None:
        """Something happened at ``path`` (created, written, deleted)."""
        first, _ = self._paths.get(path, (now, now))
        self._paths[path] = (first, now)

    def move(self, src: str, dest: str, now: float) -> None:
        """``src`` was renamed to ``dest``; pending changes below ``src`` follow it."""
        for path in [p for p in self._paths if is_within(p, src)]:
            first, last = self._paths.pop(path)
            target = dest + path[len(src) :]
            other_first, other_last = self._paths.get(target, (first, last))
            self._paths[target] = (min(first, other_first), max(last, other_last))
        self._moves.append((src, dest))

    def next_due(self) -> float | None:
        """When ``take`` will next return something (None: nothing pending)."""
        if self._moves:
            return float("-inf")
        return min((self._due(t) for t in self._paths.values()), default=None)

    def take(self, now: float) -> Batch:
        """All renames, and the paths that have been quiet long enough (covered ones dropped)."""
        ready = {p for p, t in self._paths.items() if self._due(t) <= now}
        for path in ready:
            del self._paths[path]
        batch = Batch(self._moves, sorted(p for p in ready if not _has_ancestor_in(p, ready)))
        self._moves = []
        return batch

    def _due(self, times: tuple[float, float]) -> float:
        """When a path with these (first, last) event times is due."""
        first, last = times
        return min(last + self.quiet, first + self.max_wait)


def _has_ancestor_in(path: str, paths: set[str]) -> bool:
    """True when a folder above ``path`` is also in ``paths`` (its re-check covers it)."""
    parent = os.path.dirname(path)
    while parent and parent != path:
        if parent in paths:
            return True
        path, parent = parent, os.path.dirname(parent)
    return False
