"""Failed index writes are retried by kind, on a capped exponential schedule, and the wait is
visible: in the watcher's status, in ``footnotes watch``'s log and in ``footnotes status``.

The outages are real: a Chroma URL on a localhost port nobody listens on, and (slow) a real
``chroma run`` server stopped while the watcher follows a folder and started again.
"""

from __future__ import annotations

import errno
import json
import sqlite3
import threading
from pathlib import Path

import pytest

from app.cli.watch import run_watch
from app.core.api import Footnotes
from app.core.errors import StoreError
from app.core.index.report import Progress
from app.core.index.store import VectorStore
from app.core.watch.backoff import (
    Backoff,
    OutageKind,
    format_delay,
    outage_kind,
    probed,
    retry_message,
)
from app.core.watch.watcher import Watcher, WatchStatus
from tests.core.index.test_chroma_server import ChromaServer, free_port
from tests.helpers import eventually, footnotes

UNREACHABLE = "Chroma server unreachable — retrying in"


def test_the_schedule_doubles_from_5_s_to_5_min_and_starts_over_after_a_success() -> None:
    backoff = Backoff()
    assert backoff.schedule(9) == [5, 10, 20, 40, 80, 160, 300, 300, 300]
    assert not backoff.active
    assert [backoff.next_delay() for _ in range(4)] == [5, 10, 20, 40] and backoff.active
    assert [backoff.next_delay() for _ in range(100)][-1] == 300  # capped, never overflows
    backoff.reset()
    assert not backoff.active and backoff.next_delay() == 5
    assert Backoff(first=1, cap=2).schedule(4) == [1, 2, 2, 2]


def test_the_wait_is_said_in_words() -> None:
    assert [format_delay(s) for s in (0.4, 5, 40, 160, 300)] == [
        "0 s",
        "5 s",
        "40 s",
        "2 min 40 s",
        "5 min",
    ]
    assert retry_message(OutageKind.SERVER, 40) == "Chroma server unreachable — retrying in 40 s"
    assert retry_message(OutageKind.DISK_FULL, 300) == "The disk is full — retrying in 5 min"


def test_failures_are_sorted_by_kind(tmp_path: Path) -> None:
    down = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(StoreError) as refused:
        VectorStore("m", 4, url=down)
    assert outage_kind(refused.value, server=True) is OutageKind.SERVER
    assert outage_kind(StoreError("The vector store in /x failed to open"), server=False) is (
        OutageKind.STORE
    )
    full = StoreError("The disk holding the vector store /x is full, so Footnotes could not …")
    assert outage_kind(full, server=False) is OutageKind.DISK_FULL
    assert outage_kind(OSError(errno.ENOSPC, "No space left"), server=False) is (
        OutageKind.DISK_FULL
    )
    assert outage_kind(ValueError("a bug"), server=True) is OutageKind.OTHER
    assert outage_kind(sqlite_full(tmp_path), server=False) is OutageKind.DISK_FULL
    assert probed(OutageKind.SERVER) and probed(OutageKind.STORE)
    assert not probed(OutageKind.DISK_FULL) and not probed(OutageKind.OTHER)


def sqlite_full(tmp_path: Path) -> sqlite3.OperationalError:
    """The error SQLite raises when the manifest cannot grow (a real one: a page limit)."""
    conn = sqlite3.connect(tmp_path / "tiny.sqlite3")
    conn.execute("PRAGMA max_page_count = 8")
    conn.execute("CREATE TABLE t (x TEXT)")
    try:
        for _ in range(1000):
            conn.execute("INSERT INTO t VALUES (?)", ("x" * 4000,))
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        conn.close()
    raise AssertionError("the database never filled up")


def retrying(statuses: list[WatchStatus]) -> list[str]:
    return [s.message for s in list(statuses) if s.state == "retrying"]


@pytest.mark.slow
def test_a_server_down_at_start_is_retried_on_the_schedule_and_shown(
    tmp_path: Path, make_engine
) -> None:
    down = f"http://127.0.0.1:{free_port()}"  # nobody listens: connection refused
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kiln.md").write_text("# Kiln\n\nThe pottery kiln fires at 1240 degrees.\n")
    engine = make_engine(chroma_url=down)
    engine.add_folder(str(docs))
    data = str(engine.data.root)

    statuses: list[WatchStatus] = []
    events: list[Progress] = []
    watcher = Watcher(
        engine,
        on_status=statuses.append,
        on_progress=events.append,
        backoff=Backoff(first=1, cap=2),
    )
    watcher.start()
    try:
        eventually(lambda: retrying(statuses), "the first failure", timeout=30)
        read = sum(e.event == "planned" for e in events)  # at most the first try's scan
        eventually(lambda: len(retrying(statuses)) >= 3, "three tries", timeout=30)
        assert retrying(statuses)[:3] == [f"{UNREACHABLE} {s} s" for s in (1, 2, 2)]
        assert watcher.running  # waiting, not stopped on the error
        assert read <= 1 and sum(e.event == "planned" for e in events) == read  # probes only

        status = json.loads(footnotes("--data-dir", data, "status", "--json").stdout)
        watch = status["watch"]
        assert watch["state"] == "retrying" and watch["kind"] == "server"
        assert watch["message"].startswith(UNREACHABLE) and 0 <= watch["retry_in_s"] <= 2
        assert down in watch["detail"]
        text = footnotes("--data-dir", data, "status").stdout
        assert f"Watcher: {UNREACHABLE}" in text
    finally:
        watcher.stop()
    assert not watcher.running and watcher.error is None
    status = json.loads(footnotes("--data-dir", data, "status", "--json").stdout)
    assert status["watch"] is None  # a stopped watcher retries nothing
    engine.close()

    # ``footnotes watch`` logs the same sentence (the default schedule starts at 5 s)
    lines: list[str] = []
    stop = threading.Event()
    again = make_engine(chroma_url=down)
    thread = threading.Thread(
        target=run_watch,
        args=(Footnotes(again.data.root, engine=again),),
        kwargs={"stop": stop, "log": lines.append},
    )
    thread.start()
    try:
        eventually(lambda: f"{UNREACHABLE} 5 s" in lines, "the watch log says so", timeout=30)
    finally:
        stop.set()
        thread.join(30)
    assert not thread.is_alive() and lines[-1] == "Everything indexed so far is saved."


@pytest.mark.slow
def test_a_server_that_goes_away_while_watching_is_waited_for_not_hammered(
    tmp_path: Path, make_engine
) -> None:
    (tmp_path / "server").mkdir()
    srv = ChromaServer(tmp_path / "server")
    srv.start()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kiln.md").write_text("# Kiln\n\nThe pottery kiln fires at 1240 degrees.\n")
    engine = make_engine(chroma_url=srv.url)
    engine.add_folder(str(docs))
    statuses: list[WatchStatus] = []
    events: list[Progress] = []
    watcher = Watcher(
        engine,
        on_status=statuses.append,
        on_progress=events.append,
        backoff=Backoff(first=1, cap=2),
    )
    watcher.start()
    try:
        assert watcher.wait_idle(120)
        srv.stop()
        glaze = docs / "glaze.md"
        glaze.write_text("# Glaze\n\nCeladon glaze turns green in a reduction firing.\n")
        eventually(lambda: retrying(statuses), "the failed write is scheduled", timeout=30)
        read = sum(e.event == "planned" for e in events)  # the try that failed read the file
        eventually(lambda: len(retrying(statuses)) >= 3, "two probes fail", timeout=30)
        assert retrying(statuses)[:3] == [f"{UNREACHABLE} {s} s" for s in (1, 2, 2)]
        assert sum(e.event == "planned" for e in events) == read  # probes only: nothing re-read
        (docs / "later.md").write_text("# Later\n\nWritten while the server was away.\n")
        eventually(lambda: len(retrying(statuses)) >= 4, "another probe fails", timeout=30)
        assert sum(e.event == "planned" for e in events) == read  # new changes wait too

        srv.start()
        eventually(
            lambda: any(s.message.startswith("The index is being written again") for s in statuses),
            "the held changes go in once the server answers",
            timeout=60,
        )
        assert watcher.wait_idle(60)
        for path in (glaze, docs / "later.md"):
            record = engine.manifest.file(str(path))
            assert record is not None and record.status == "indexed"
        assert engine.search("celadon glaze reduction", 1).hits[0].path == str(glaze)
        assert engine.manifest.check() == []
        assert engine.store().all_ids() == engine.manifest.all_hashes()
    finally:
        watcher.stop()
        srv.stop()


def test_a_watcher_killed_while_retrying_is_not_reported_as_retrying(tmp_path: Path) -> None:
    """SIGKILL leaves the retry note and the lock's holder note behind; status trusts
    neither once that process is gone."""
    import os
    import subprocess
    import sys

    from app.core.watch.retrying import STATE_FILE, read_state

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    lock = tmp_path / "writer.lock"
    for pid, expected in ((os.getpid(), "retrying"), (gone.pid, None)):
        note = {"pid": pid, "kind": "server", "retry_at": 0, "detail": "down"}
        (tmp_path / STATE_FILE).write_text(json.dumps(note), encoding="utf-8")
        lock.write_text(json.dumps({"pid": pid, "what": "footnotes watch"}), encoding="utf-8")
        state = read_state(tmp_path, lock)
        assert (state and state["state"]) == expected, pid
