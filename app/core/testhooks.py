"""Hooks that exist only for tests, in one place: the product path calls them and nothing more.

- ``index_write()``: the indexer calls it after each index write (a SQLite transaction or a
  vector-store call). It counts them in ``WRITES.steps``, and when the environment variable
  ``$FOOTNOTES_TEST_KILL_AFTER`` is set, SIGKILLs the process there
  (tests/core/index/test_crash.py): ``N`` kills right after write N; ``N:SECONDS`` kills
  that many seconds after it, so the kill lands inside a later write. Unset, it only counts.
- ``MODEL_EXPORTS``: how many int8 model exports this process made, so tests can tell that
  a second load reused the first export instead of making another.
"""

from __future__ import annotations

import os
import signal
import threading

KILL_AFTER_ENV = "FOOTNOTES_TEST_KILL_AFTER"


class CrashPoints:
    """Counts index writes; SIGKILLs the process after the N-th one when a crash test asks."""

    def __init__(self, spec: str | None = None) -> None:
        raw = os.environ.get(KILL_AFTER_ENV, "") if spec is None else spec
        count, _, delay = raw.partition(":")
        self.kill_after = int(count) if count.strip() else 0
        self.delay = float(delay) if delay.strip() else 0.0
        self.steps = 0

    def step(self) -> None:
        """One more write finished: count it, and die here if this is the one asked for."""
        self.steps += 1
        if self.kill_after and self.steps == self.kill_after:
            if self.delay > 0:
                timer = threading.Timer(self.delay, os.kill, (os.getpid(), signal.SIGKILL))
                timer.daemon = True
                timer.start()
            else:
                os.kill(os.getpid(), signal.SIGKILL)


class Counter:
    """A count tests read (the product only adds to it)."""

    def __init__(self) -> None:
        self.count = 0

    def add(self) -> None:
        """Count one more."""
        self.count += 1


WRITES = CrashPoints()  # read once, at import: a crash test sets the variable before
MODEL_EXPORTS = Counter()


def index_write() -> None:
    """The indexer finished one write (the crash tests' kill points)."""
    WRITES.step()
