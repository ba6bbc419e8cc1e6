"""The watcher's failed writes, held for a retry on a backoff schedule, and what it tells
other processes about that (``footnotes status`` reads ``watch-state.json``).

While a retry is pending, every change that comes due is held too: nothing is read, parsed or
embedded while the store is away. At the retry time a cheap probe of the store must answer
first (for store outages); only then is the held work tried again, once.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.core.config import atomic_write_text
from app.core.index.report import Cancelled
from app.core.watch.backoff import Backoff, OutageKind, outage_kind, probed, retry_message
from app.core.watch.change_queue import Batch
from app.core.watch.status import WatchState

log = logging.getLogger(__name__)

STATE_FILE = "watch-state.json"


class Retrier:
    """Paths whose update failed, and when (and after which kind of failure) to try again.

    ``probe`` raises unless the store answers; ``say`` shows a state and its sentence.
    """

    def __init__(
        self,
        backoff: Backoff,
        *,
        server: bool,
        probe: Callable[[], object],
        say: Callable[[WatchState, str], None],
        state_dir: Path | None = None,
    ) -> None:
        self.backoff = backoff
        self.server = server
        self.probe = probe
        self.say = say
        self.state_dir = state_dir
        self.held: set[str] = set()
        self.kind: OutageKind | None = None
        self.detail = ""  # the last failure's own message
        self.retry_at: float | None = None  # time.monotonic() of the next try
        self.delay = 0.0

    @property
    def waiting(self) -> bool:
        """True while a retry is scheduled (changes that come due are held meanwhile)."""
        return self.retry_at is not None

    def hold(self, paths: list[str]) -> None:
        """Keep these paths for the next try."""
        self.held.update(paths)

    def failed(self, exc: BaseException) -> None:
        """Count a failure, schedule the next try, and say when it will be."""
        self.kind = outage_kind(exc, server=self.server)
        self.detail = " ".join(str(exc).split()) or type(exc).__name__
        self.delay = self.backoff.next_delay()
        self.retry_at = time.monotonic() + self.delay
        self._save(time.time() + self.delay)
        message = self.message(self.delay)
        log.warning("%s: %s", message, self.detail)
        self.say("retrying", message)

    def message(self, seconds: float) -> str:
        """``Chroma server unreachable — retrying in 40 s`` (an unforeseen failure says what)."""
        assert self.kind is not None
        text = retry_message(self.kind, seconds)
        return f"{text} ({self.detail})" if self.kind is OutageKind.OTHER else text

    def start(
        self, startup: Callable[[], None], stop: threading.Event, cond: threading.Condition
    ) -> None:
        """Run ``startup``; while the store is out of reach, again on the schedule once a probe
        answers. Other failures are raised; Cancelled once ``stop`` is set (``cond`` notified)."""
        while True:
            try:
                startup()
            except Cancelled:
                raise
            except Exception as exc:
                if outage_kind(exc, server=self.server) is OutageKind.OTHER:
                    raise
                self.failed(exc)
                self._wait_for_probe(stop, cond)
                continue
            self.succeeded()
            return

    def _wait_for_probe(self, stop: threading.Event, cond: threading.Condition) -> None:
        """Sleep until each scheduled try and probe, rescheduling, until the store answers."""
        while True:
            with cond:
                cond.wait_for(stop.is_set, max(0.0, (self.retry_at or 0) - time.monotonic()))
            if stop.is_set():
                raise Cancelled()
            try:
                self.probe()
                return
            except Cancelled:
                raise
            except Exception as exc:
                self.failed(exc)

    def attempt(
        self, apply: Callable[[Batch], None], batch: Batch, *, replay: bool = False
    ) -> bool:
        """Apply a batch; if it fails, hold its paths for a try on the schedule. ``replay``:
        the batch is the held paths (their success is said even after the outage ended)."""
        try:
            apply(batch)
        except Cancelled:
            raise
        except Exception as exc:
            self.hold(batch.touched())
            self.failed(exc)
            return False
        if self.succeeded() or replay:
            held = (
                "; the changes held meanwhile go in next" if self.held else "; all changes are in"
            )
            self.say("watching", f"The index is being written again{held}.")
        return True

    def retry(self, apply: Callable[[Batch], None]) -> None:
        """The scheduled try: the store must answer a probe first, then the held paths go."""
        if self.kind is not None and probed(self.kind):
            try:
                self.probe()
            except Cancelled:
                raise
            except Exception as exc:
                self.failed(exc)  # nothing was read: the held paths wait for the next try
                return
        paths = sorted(self.held)
        self.held.clear()
        self.retry_at = None
        self.attempt(apply, Batch([], paths), replay=True)

    def due(self, now: float) -> bool:
        """True once the scheduled try is due."""
        return self.retry_at is not None and now >= self.retry_at

    def succeeded(self) -> bool:
        """A write went through: the schedule starts over; True if this ends an outage.

        Paths still held (changes that came while the store was away) are due at once: the
        write that just went through shows the store is back.
        """
        was = self.backoff.active
        self.backoff.reset()
        self.kind = None
        self.retry_at = time.monotonic() if self.held else None
        if was:
            self.clear()
        return was

    # -- the state file ----------------------------------------------------------------------
    def _save(self, retry_wall: float) -> None:
        """Tell ``footnotes status`` (another process) that writes wait for a retry."""
        if self.state_dir is None or self.kind is None:
            return
        state = {
            "pid": os.getpid(),
            "state": "retrying",
            "kind": str(self.kind),
            "detail": self.detail,
            "retry_at": retry_wall,
            "failures": self.backoff.failures,
            "held": len(self.held),
        }
        with contextlib.suppress(OSError):  # a read-only data dir: the status line still says
            atomic_write_text(self.state_dir / STATE_FILE, json.dumps(state) + "\n")

    def clear(self) -> None:
        """Nothing waits for a retry any more."""
        if self.state_dir is not None:
            with contextlib.suppress(OSError):
                (self.state_dir / STATE_FILE).unlink(missing_ok=True)


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists (POSIX; elsewhere assumed, as signal 0 would kill)."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def read_state(data_dir: Path, lock_path: Path) -> dict[str, Any] | None:
    """The running watcher's retry state for ``status``: None unless a watcher that still holds
    the writer lock wrote it. Adds ``retry_in_s`` and the ``message`` shown."""
    try:
        state = json.loads((data_dir / STATE_FILE).read_text(encoding="utf-8"))
        holder = json.loads(lock_path.read_text(encoding="utf-8") or "{}")
        alive = isinstance(state, dict) and holder.get("pid") == state.get("pid")
        alive = alive and _running(int(state["pid"]))  # killed: its notes stay behind
        kind = OutageKind(state["kind"]) if alive else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if kind is None:
        return None
    left = max(0.0, float(state.get("retry_at", 0)) - time.time())
    text = retry_message(kind, left)
    if kind is OutageKind.OTHER:
        text += f" ({state.get('detail', '')})"
    return {
        "state": "retrying",
        "kind": str(kind),
        "message": text,
        "retry_in_s": round(left, 1),
        "detail": state.get("detail", ""),
    }
