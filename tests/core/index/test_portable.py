"""Portable by construction: spawned children, the writer lock without flock, no setrlimit.

Linux is where the suite runs; these tests take the paths macOS and Windows would take:
the ``spawn`` start method (Windows has no fork server), a writer lock through
``msvcrt.locking`` (Windows has no ``fcntl``) and a parser worker without ``resource``.
Absent modules are simulated only in a separate interpreter, never by patching our code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.core.errors import LockedError
from app.core.host.client import EngineHost
from app.core.host.messages import AddFolder, Exited, IndexProgress, Opened, Search
from app.core.ingest.parsing import START_METHOD_ENV, ParseLimits, start_method
from app.core.ingest.reader_pool import ParserPool
from app.core.locking import WriterLock
from tests.core.host.test_engine_host import Inbox, data_dir, indexed

ROOT = Path(__file__).resolve().parents[3]


def run_python(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter of this environment, from the repository root."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_start_method_prefers_the_platforms_and_can_be_forced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(START_METHOD_ENV, raising=False)
    assert start_method("forkserver") == "forkserver"  # Linux has one
    assert start_method("no-such-method") == "spawn"  # what every platform has
    monkeypatch.setenv(START_METHOD_ENV, "spawn")
    assert start_method("forkserver") == "spawn"
    monkeypatch.setenv(START_METHOD_ENV, "teleport")  # not a method: the preferred one
    assert start_method("forkserver") == "forkserver"


def test_parser_worker_runs_spawned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(START_METHOD_ENV, "spawn")
    a, b = tmp_path / "a.md", tmp_path / "b.txt"
    a.write_text("# A\n\nThe lighthouse keeper retires in April.\n")
    b.write_text("The harbour ferry leaves at seven.\n")
    with ParserPool(ParseLimits(timeout_s=60)) as pool:
        results = list(pool.parse_many([(str(a), None), (str(b), None)]))
        assert pool._ctx.get_start_method() == "spawn"
    assert [r.path for r in results] == [str(a), str(b)]
    assert all(r.error is None and r.chunks for r in results)


@pytest.mark.slow
def test_engine_host_runs_spawned(
    tmp_path: Path, models_dir: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(START_METHOD_ENV, "spawn")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kiln.md").write_text("# Kiln\n\nThe pottery kiln fires stoneware at 1240 degrees.\n")
    inbox = Inbox()
    host = EngineHost(
        data_dir(tmp_path, models_dir), Settings(), on_message=inbox, writer_name="spawned"
    )
    host.start()
    try:
        assert host.start_method == "spawn"
        assert inbox.wait(Opened, timeout=240) == Opened(True, True, "")
        host.send(AddFolder(str(docs)))
        inbox.wait(IndexProgress, indexed("kiln.md"), timeout=240)
        result = host.call(Search("how hot does the kiln fire", 3))
        assert result.hits and "1240 degrees" in result.hits[0].text
    finally:
        assert host.stop(60)
    assert inbox.wait(Exited) == Exited(0)


def test_parser_worker_without_resource_module(tmp_path: Path) -> None:
    """Where ``resource`` is missing (Windows) the worker parses with the time limit alone."""
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nThe kiln fires at 1240 degrees.\n")
    done = run_python(
        """
        import json, sys
        sys.modules["resource"] = None  # as on Windows: importing it fails
        from multiprocessing import Pipe
        from app.core.ingest.parsing import STARTED, ParseLimits, run_worker, set_memory_cap

        assert set_memory_cap(512) is False
        parent, child = Pipe()
        parent.send((sys.argv[1], None))
        parent.send(None)
        run_worker(child, ParseLimits(memory_mb=512))
        assert parent.recv() == STARTED
        result = parent.recv()
        print(json.dumps({"error": result.error, "chunks": len(result.chunks)}))
        """,
        str(note),
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {"error": None, "chunks": 1}


def test_writer_lock_refuses_a_second_writer_and_names_the_first(tmp_path: Path) -> None:
    path = tmp_path / "data" / "writer.lock"
    with WriterLock(path, "footnotes watch"):
        with pytest.raises(LockedError, match=r"footnotes watch \(process \d+"):
            WriterLock(path, "footnotes index").acquire()
        other = run_python(
            """
            import sys
            from pathlib import Path
            from app.core.locking import LockedError, WriterLock
            try:
                WriterLock(Path(sys.argv[1]), "footnotes index").acquire()
            except LockedError as exc:
                print(exc)
            """,
            str(path),
        )
        assert f"footnotes watch (process {os.getpid()}," in other.stdout, other.stderr
    with WriterLock(path, "footnotes index"):  # released: the next writer gets it
        assert json.loads(path.read_text())["what"] == "footnotes index"


# A stand-in for Windows' msvcrt.locking, over POSIX byte-range locks (which also belong to
# the process and die with it), in an interpreter where ``import fcntl`` fails as on Windows.
WITHOUT_FCNTL = """
import fcntl as posix, os, sys, types
sys.modules["fcntl"] = None
msvcrt = types.ModuleType("msvcrt")
msvcrt.LK_UNLCK, msvcrt.LK_NBLCK = 0, 2
def locking(fd, mode, nbytes):
    op = posix.LOCK_EX | posix.LOCK_NB if mode == msvcrt.LK_NBLCK else posix.LOCK_UN
    try:
        posix.lockf(fd, op, nbytes, 0, os.SEEK_CUR)
    except BlockingIOError:
        raise OSError(36, "Resource deadlock avoided") from None
msvcrt.locking = locking
sys.modules["msvcrt"] = msvcrt
from pathlib import Path
from app.core import locking as lk
assert lk.fcntl is None and lk.msvcrt is msvcrt
path = Path(sys.argv[1])
"""


def test_writer_lock_without_fcntl_uses_msvcrt_and_dies_with_its_holder(tmp_path: Path) -> None:
    path = tmp_path / "data" / "writer.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            WITHOUT_FCNTL + "held = lk.WriterLock(path, 'footnotes watch').acquire()\n"
            "print('held', flush=True)\nsys.stdin.read()\n",
            str(path),
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        attempt = WITHOUT_FCNTL + textwrap.dedent(
            """
            try:
                with lk.WriterLock(path, "footnotes index"):
                    print("acquired")
            except lk.LockedError as exc:
                print(exc)
            """
        )
        refused = run_python(attempt, str(path))
        assert f"footnotes watch (process {holder.pid}," in refused.stdout, refused.stderr
    finally:
        holder.kill()
        holder.wait(30)
    deadline = time.monotonic() + 10
    while True:  # the lock died with its holder
        after = run_python(attempt, str(path))
        if "acquired" in after.stdout or time.monotonic() > deadline:
            break
    assert after.stdout.strip() == "acquired", after.stdout + after.stderr
