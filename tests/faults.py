"""Fault plans for the tests: given to the engine (``Engine(faults=...)``, ``main(argv,
faults=...)``), they count its index writes and kill, fill the disk or fail at one of them.

Run as a module it is ``footnotes`` with a plan, for tests that need a real process::

    python -m tests.faults --kill-after 3[:0.01] -- --data-dir D index DOCS
    python -m tests.faults --fill-disk-after 5 --filler D/filler -- --data-dir D index DOCS

``--steps FILE`` writes how many index writes the run made (to choose later kill points).
"""

from __future__ import annotations

import argparse
import errno
import os
import signal
import sys
import threading
from pathlib import Path

from app.core.faults import Faults


class CountWrites(Faults):
    """Counts the index writes (and what each wrote); subclasses act at one of them."""

    def __init__(self) -> None:
        self.steps = 0
        self.written: list[str] = []

    def wrote(self, what: str) -> None:
        self.steps += 1
        self.written.append(what)
        self.at(self.steps, what)

    def at(self, step: int, what: str) -> None:
        """Write ``step`` (1-based) just finished."""


class KillAfter(CountWrites):
    """SIGKILL this process right after write N, or ``delay`` seconds later (so that the kill
    lands inside a later write)."""

    def __init__(self, after: int, delay: float = 0.0) -> None:
        super().__init__()
        self.after, self.delay = after, delay

    @classmethod
    def parse(cls, spec: str) -> KillAfter:
        """``N`` or ``N:SECONDS``."""
        count, _, delay = spec.partition(":")
        return cls(int(count), float(delay) if delay.strip() else 0.0)

    def at(self, step: int, what: str) -> None:
        if step != self.after:
            return
        if self.delay > 0:
            timer = threading.Timer(self.delay, os.kill, (os.getpid(), signal.SIGKILL))
            timer.daemon = True
            timer.start()
        else:
            os.kill(os.getpid(), signal.SIGKILL)


def fill_disk(filler: Path) -> int:
    """Write zeros to ``filler`` until its file system has no byte left; bytes written."""
    written = 0
    block = b"\0" * (1 << 20)
    with open(filler, "ab", buffering=0) as fh:
        while block:
            try:
                written += fh.write(block) or 0
            except OSError as exc:
                if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                    raise
                block = block[: len(block) // 2]  # the last megabyte, then smaller pieces
    return written


class FillDiskAfter(CountWrites):
    """Fill the disk right after write N (0: before the first): every write after that meets
    a real full file system, wherever it is (SQLite, Chroma, the lock, the caches)."""

    def __init__(self, after: int, filler: Path) -> None:
        super().__init__()
        self.after, self.filler = after, Path(filler)
        if after == 0:
            fill_disk(self.filler)

    def at(self, step: int, what: str) -> None:
        if step == self.after:
            fill_disk(self.filler)


class NoSpaceAfter(CountWrites):
    """Where no small file system can be mounted: the run stops with ``ENOSPC`` as write N+1
    finishes, as a disk filling there would stop it (the writes before it stand)."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after = after

    def at(self, step: int, what: str) -> None:
        if step > self.after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def run(argv: list[str] | None = None) -> int:
    """``footnotes`` with the plan the options describe."""
    parser = argparse.ArgumentParser(prog="python -m tests.faults")
    parser.add_argument("--kill-after", metavar="N[:SECONDS]")
    parser.add_argument("--fill-disk-after", type=int, metavar="N")
    parser.add_argument("--filler", type=Path)
    parser.add_argument("--steps", type=Path, help="write the number of index writes here")
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    plan: CountWrites = CountWrites()
    if args.kill_after:
        plan = KillAfter.parse(args.kill_after)
    elif args.fill_disk_after is not None:
        plan = FillDiskAfter(args.fill_disk_after, args.filler)
    from app.cli import main

    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
    code = main(rest, faults=plan)
    if args.steps is not None:
        args.steps.write_text(str(plan.steps))
    return code


if __name__ == "__main__":
    sys.exit(run())
