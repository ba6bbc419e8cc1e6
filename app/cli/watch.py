"""``footnotes watch``: sync the watched folders, then follow changes until Ctrl-C or SIGTERM."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from app.cli.common import visible
from app.core.api import Footnotes, Progress, WatchState, WatchStatus
from app.core.wording import counted

QUIET_STATES: frozenset[WatchState] = frozenset({"updating", "starting"})  # too chatty for a log


def _print(line: str) -> None:
    """Print a log line at once (the log may be a pipe), with no control character raw."""
    print(visible(line), flush=True)


def progress_line(p: Progress) -> str | None:
    """One log line per file indexed, removed, moved or failed, and one when the vectors are
    complete; None for other events."""
    if p.event == "indexed":
        return f"indexed {p.path} ({counted(p.passages, 'passage')}, searchable)"
    if p.event == "embedded" and p.done >= p.total:
        return f"vectors ready for {counted(p.total, 'new passage')}"
    if p.event == "removed":
        return f"removed {p.path}"
    if p.event == "moved":
        return f"moved {p.detail} -> {p.path}"
    if p.event == "ocr":
        return f"reading {p.path}: {p.detail}"
    if p.event == "failed":
        return f"failed {p.path}: {p.detail}"
    return None


@contextmanager
def stop_on_sigterm(stop: threading.Event) -> Iterator[None]:
    """SIGTERM sets ``stop`` (main thread only; elsewhere signals cannot be handled)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_watch(
    fn: Footnotes, *, stop: threading.Event | None = None, log: Callable[[str], None] = _print
) -> int:
    """Watch every folder in the manifest until ``stop`` is set, Ctrl-C or SIGTERM."""
    folders = fn.folders()
    if not folders:
        print(
            "footnotes: no watched folders; add one with `footnotes folders add PATH`.",
            file=sys.stderr,
        )
        return 1
    stop = stop or threading.Event()
    last_logged = ""

    def on_progress(p: Progress) -> None:
        """Log one line per file event."""
        line = progress_line(p)
        if line is not None:
            log(line)

    def on_status(s: WatchStatus) -> None:
        """Log status changes, once each, leaving out the chatty ones."""
        nonlocal last_logged
        if s.state in QUIET_STATES or s.state == last_logged == "watching":
            return
        log(s.message)
        last_logged = s.state

    watcher = fn.watch(on_progress=on_progress, on_status=on_status)
    with stop_on_sigterm(stop):
        watcher.start()
        try:
            while watcher.running and not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            watcher.stop()
    if watcher.error is not None:
        print(f"footnotes: {visible(watcher.error)}", file=sys.stderr)
        return 1
    log("Everything indexed so far is saved.")
    return 0


def run(args: argparse.Namespace, fn: Footnotes) -> int:
    """The ``watch`` command."""
    return run_watch(fn)
