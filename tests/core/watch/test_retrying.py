"""The watcher's failed writes held for a retry on the backoff schedule, and the note it leaves
for ``footnotes status`` in another process. Driven by hand with real stores' errors; the
schedule is shortened so no test waits long (the waits are never asserted)."""

from __future__ import annotations

import errno
import json
import os
import threading
from pathlib import Path

import pytest

from app.core.errors import StoreError
from app.core.index.report import Cancelled
from app.core.watch.backoff import Backoff, OutageKind
from app.core.watch.change_queue import Batch
from app.core.watch.retrying import STATE_FILE, Retrier, read_state

DOWN = StoreError("The Chroma server at http://127.0.0.1:8000 does not answer.")


def retrier(tmp_path: Path | None = None, *, probe=lambda: None, server: bool = True):
    said: list[tuple[str, str]] = []
    r = Retrier(
        Backoff(first=0.01, cap=0.04),
        server=server,
        probe=probe,
        say=lambda state, message: said.append((state, message)),
        state_dir=tmp_path,
    )
    return r, said


def test_changes_held_during_an_outage_go_in_once_a_write_succeeds() -> None:
    """A change that fails is held; when the next write goes through (a folder added, say),
    the held changes are due at once, not stranded until the next failure."""
    said: list[tuple[str, str]] = []
    retrier = Retrier(
        Backoff(), server=False, probe=lambda: None, say=lambda s, m: said.append((s, m))
    )

    def down(batch: Batch) -> None:
        raise StoreError("The vector store in /x failed to open")

    applied: list[list[str]] = []
    assert not retrier.attempt(down, Batch([], ["/w/a.md"]))
    assert retrier.held == {"/w/a.md"} and retrier.backoff.active  # waits its 5 s
    assert retrier.attempt(lambda b: applied.append(b.paths), Batch([], ["/w/docs"]))
    # the schedule starts over and the held paths are set for the loop's next turn
    assert not retrier.backoff.active and retrier.retry_at is not None
    assert said[-1][1].endswith("the changes held meanwhile go in next.")
    retrier.retry(lambda b: applied.append(b.paths))
    assert applied == [["/w/docs"], ["/w/a.md"]] and not retrier.held
    assert retrier.retry_at is None and said[-1][1].endswith("all changes are in.")


def test_a_failure_is_held_scheduled_said_and_noted_for_status(tmp_path: Path) -> None:
    r, said = retrier(tmp_path)

    def down(batch: Batch) -> None:
        raise DOWN

    assert not r.attempt(down, Batch([("/w/a.md", "/w/b.md")], ["/w/c.md"]))
    assert r.waiting and r.kind is OutageKind.SERVER
    assert r.held == {"/w/a.md", "/w/b.md", "/w/c.md"}  # both names of a moved file
    assert said[-1][0] == "retrying" and said[-1][1].startswith("Chroma server unreachable")
    lock = tmp_path / "writer.lock"
    lock.write_text(json.dumps({"pid": os.getpid(), "what": "footnotes watch"}))
    state = read_state(tmp_path, lock)
    assert state is not None and state["kind"] == "server"
    assert state["message"].startswith("Chroma server unreachable — retrying in")
    assert json.loads((tmp_path / STATE_FILE).read_text())["held"] == 3


def test_the_delay_doubles_with_each_failure_up_to_the_cap() -> None:
    r, _ = retrier()
    delays = []
    for _ in range(5):
        r.failed(DOWN)
        delays.append(r.delay)
    assert delays == [0.01, 0.02, 0.04, 0.04, 0.04]


def test_an_unforeseen_failure_says_what_it_was(tmp_path: Path) -> None:
    r, said = retrier(tmp_path)
    r.failed(RuntimeError("the index\n  is odd"))
    assert r.kind is OutageKind.OTHER
    assert said[-1][1].endswith("(the index is odd)")  # on one line
    r.failed(OSError(errno.ENOSPC, "No space left on device"))
    assert r.kind is OutageKind.DISK_FULL and not said[-1][1].endswith(")")


def test_no_held_path_is_tried_before_the_store_answers_a_probe() -> None:
    answers = [DOWN, None]

    def probe() -> None:
        found = answers.pop(0)
        if found is not None:
            raise found

    r, _ = retrier(probe=probe)
    r.hold(["/w/a.md"])
    r.failed(DOWN)
    applied: list[list[str]] = []
    r.retry(lambda b: applied.append(b.paths))  # the probe fails: nothing read
    assert applied == [] and r.held == {"/w/a.md"} and r.backoff.failures == 2
    r.retry(lambda b: applied.append(b.paths))  # the store answers: the held paths go
    assert applied == [["/w/a.md"]] and not r.held and not r.waiting


def test_the_state_note_is_removed_once_writes_go_through(tmp_path: Path) -> None:
    r, _ = retrier(tmp_path)
    r.failed(DOWN)
    assert (tmp_path / STATE_FILE).exists()
    assert r.attempt(lambda b: None, Batch([], ["/w/a.md"]))
    assert not (tmp_path / STATE_FILE).exists()


def test_a_note_without_a_live_lock_holder_or_damaged_is_not_retrying(tmp_path: Path) -> None:
    lock = tmp_path / "writer.lock"
    note = {"pid": os.getpid(), "kind": "server", "retry_at": 0, "detail": "down"}
    (tmp_path / STATE_FILE).write_text(json.dumps(note))
    lock.write_text(json.dumps({"pid": os.getpid() + 1, "what": "footnotes index"}))
    assert read_state(tmp_path, lock) is None  # another process holds the lock now
    lock.write_text("")  # released
    assert read_state(tmp_path, lock) is None
    lock.write_text(json.dumps({"pid": os.getpid()}))
    (tmp_path / STATE_FILE).write_text(json.dumps({**note, "kind": "meteor"}))
    assert read_state(tmp_path, lock) is None
    (tmp_path / STATE_FILE).write_text(json.dumps({**note, "kind": "other", "detail": "odd"}))
    state = read_state(tmp_path, lock)
    assert state is not None and state["message"].endswith("(odd)") and state["retry_in_s"] == 0


def test_a_start_up_outage_is_retried_until_the_store_answers() -> None:
    tries: list[int] = []

    def startup() -> None:
        tries.append(1)
        if len(tries) < 3:
            raise DOWN

    r, said = retrier()
    r.start(startup, threading.Event(), threading.Condition())
    assert len(tries) == 3 and not r.waiting
    assert [s for s, _ in said] == ["retrying", "retrying"]


def test_a_start_up_bug_is_raised_and_a_stop_cancels_the_wait() -> None:
    r, _ = retrier()

    def buggy() -> None:
        raise ValueError("a bug")

    with pytest.raises(ValueError):
        r.start(buggy, threading.Event(), threading.Condition())
    stop = threading.Event()
    stop.set()

    def down() -> None:
        raise DOWN

    with pytest.raises(Cancelled):
        r.start(down, stop, threading.Condition())
