"""Retrying a failed index write by kind, with capped exponential backoff.

A write that failed because the vector store is out of reach (the Chroma server is down, the
local store cannot be opened) or the disk is full is retried after 5 s, then 10, 20, 40 s and so
on up to 5 minutes between tries, instead of every few seconds forever; a success starts the
schedule again. The kind decides the sentence shown and whether a cheap probe of the store must
answer before the work is tried again (nothing is read or embedded while the store is away).
"""

from __future__ import annotations

import errno
import sqlite3
from dataclasses import dataclass
from enum import StrEnum

from app.core.errors import DiskFullError, StoreError

FIRST_S = 5.0
CAP_S = 300.0


class OutageKind(StrEnum):
    """Why index writes fail for now; the value is what ``status --json`` shows."""

    SERVER = "server"  # the Chroma server (--chroma-url) does not answer
    STORE = "store"  # the local vector store cannot be opened or written
    DISK_FULL = "disk_full"  # no space left for the index
    OTHER = "other"  # anything else: a bug, or a fault we did not foresee


def outage_kind(exc: BaseException, *, server: bool) -> OutageKind:
    """The kind of a failed write; ``server`` when the store is a Chroma server."""
    if isinstance(exc, DiskFullError):
        return OutageKind.DISK_FULL
    if isinstance(exc, StoreError):
        if "is full" in str(exc).lower():
            return OutageKind.DISK_FULL
        return OutageKind.SERVER if server else OutageKind.STORE
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return OutageKind.DISK_FULL
    if isinstance(exc, sqlite3.OperationalError):  # the manifest: written first nowadays
        code = getattr(exc, "sqlite_errorcode", None)
        if code == sqlite3.SQLITE_FULL or "disk is full" in str(exc):
            return OutageKind.DISK_FULL
        if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in str(exc):
            return OutageKind.STORE  # another program holds it for longer than we waited
    return OutageKind.OTHER


HEADLINES = {
    OutageKind.SERVER: "Chroma server unreachable",
    OutageKind.STORE: "The vector store cannot be written",
    OutageKind.DISK_FULL: "The disk is full",
    OutageKind.OTHER: "Could not update the index",
}


def probed(kind: OutageKind) -> bool:
    """True for kinds where the store must answer a probe before the work is tried again."""
    return kind in (OutageKind.SERVER, OutageKind.STORE)


def format_delay(seconds: float) -> str:
    """``5 s``, ``40 s``, ``2 min 40 s``, ``5 min``."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min" + (f" {rest} s" if rest else "")


def retry_message(kind: OutageKind, seconds: float) -> str:
    """``Chroma server unreachable — retrying in 40 s``."""
    return f"{HEADLINES[kind]} — retrying in {format_delay(seconds)}"


@dataclass
class Backoff:
    """Delays of a retry schedule: ``first``, doubling each failure, never above ``cap``."""

    first: float = FIRST_S
    cap: float = CAP_S
    factor: float = 2.0
    failures: int = 0

    def next_delay(self) -> float:
        """The wait before the next try, counting one more failure."""
        delay = min(self.cap, self.first * self.factor ** min(self.failures, 64))
        self.failures += 1
        return delay

    def reset(self) -> None:
        """A try succeeded: the next failure waits ``first`` again."""
        self.failures = 0

    @property
    def active(self) -> bool:
        """True after a failure that no success has followed yet."""
        return self.failures > 0

    def schedule(self, n: int) -> list[float]:
        """The first ``n`` delays of this schedule (for display and tests)."""
        probe = Backoff(self.first, self.cap, self.factor)
        return [probe.next_delay() for _ in range(n)]
