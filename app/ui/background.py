"""The service's threads and what they share: lanes and the state.

A lane is one thread running its jobs in order, so a slow job in one lane never delays
another lane. The state is replaced whole under a lock, and each change is reported.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from app.core.api import BACKGROUND_NICE
from app.ui.payloads import ServiceState

log = logging.getLogger(__name__)


class Lanes:
    """Named single-thread executors; a job that raises is reported and the lane goes on."""

    def __init__(self, names: Iterable[str], on_error: Callable[[BaseException], None]) -> None:
        self._on_error = on_error
        self._pools = {
            name: ThreadPoolExecutor(
                1, thread_name_prefix=f"footnotes-{name}", initializer=background_priority
            )
            for name in names
        }
        self.closed = False

    def submit(self, lane: str, fn: Callable[..., None], *args: Any) -> Future[None] | None:
        """Queue ``fn(*args)`` on ``lane``; nothing once the lanes are closed for stopping."""
        if self.closed:
            return None
        return self._pools[lane].submit(self._guard, fn, *args)

    def _guard(self, fn: Callable[..., None], *args: Any) -> None:
        try:
            fn(*args)
        except Exception as exc:  # a bug or an unexpected fault: show it, keep the lane alive
            log.exception("background job failed")
            self._on_error(exc)

    def close(self) -> None:
        """Take no more jobs (the service is stopping); queued ones still run."""
        self.closed = True

    def shutdown(self, lane: str | None = None) -> None:
        """Wait for ``lane`` (or every lane) to finish its job in hand; drop queued jobs."""
        for name, pool in self._pools.items():
            if lane is None or name == lane:
                pool.shutdown(wait=True, cancel_futures=True)


class StateBox:
    """The service's state: replaced whole under a lock, each new state passed to ``on_change``."""

    def __init__(self, on_change: Callable[[ServiceState], None]) -> None:
        self._state = ServiceState()
        self._lock = threading.Lock()
        self._on_change = on_change

    @property
    def value(self) -> ServiceState:
        """The current state."""
        return self._state

    def update(self, **changes: Any) -> None:
        """Replace the state with these fields changed, and report the new one."""
        with self._lock:
            self._state = dataclasses.replace(self._state, **changes)
            state = self._state
        self._on_change(state)


def background_priority() -> None:
    """Run this thread, and the threads and processes it starts, at a lower CPU priority.

    Linux keeps a nice value per thread and new threads inherit it, so page rendering and
    answer rendering yield the CPU to the GUI thread. The engine process lowers its own
    priority the same way (``app.core.host.server.BACKGROUND_NICE``).
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)
