"""The engine process: indexing and search in a child, reported back over a pipe."""

from __future__ import annotations

import dataclasses
import os
import pickle
import queue
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.core.errors import HostError
from app.core.host.client import EngineHost
from app.core.host.messages import AddFolder, Event, Exited, Failed, IndexProgress, Opened, Search


class Inbox:
    """Collects the host's events; ``wait`` returns the first one of a type that matches."""

    def __init__(self) -> None:
        self.messages: queue.Queue[Event] = queue.Queue()
        self.seen: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.messages.put(event)

    def forget(self) -> None:
        """Drop every event so far: a later ``wait`` sees only what comes after."""
        self.seen.clear()
        while not self.messages.empty():
            self.messages.get_nowait()

    def wait(self, kind: type, test: Any = lambda e: True, timeout: float = 120.0) -> Any:
        for event in self.seen:
            if isinstance(event, kind) and test(event):
                return event
        while True:
            event = self.messages.get(timeout=timeout)
            self.seen.append(event)
            if isinstance(event, kind) and test(event):
                return event


def indexed(path_end: str = "") -> Any:
    """A test for ``Inbox.wait``: an IndexProgress saying a file (ending so) was indexed."""
    return lambda e: e.progress.event == "indexed" and e.progress.path.endswith(path_end)


def vectors_ready(e: Any) -> bool:
    """A test for ``Inbox.wait``: the embedding stage computed every waiting vector."""
    return e.progress.event == "embedded" and e.progress.done >= e.progress.total


def data_dir(tmp_path: Path, models_dir: Path, name: str = "data") -> Path:
    data = tmp_path / name
    data.mkdir()
    (data / "models").symlink_to(models_dir, target_is_directory=True)  # the session's export
    return data


@pytest.fixture
def hosts() -> Iterator[list[EngineHost]]:
    started: list[EngineHost] = []
    yield started
    for host in started:
        host.stop(60)


def start(hosts: list[EngineHost], data: Path, inbox: Inbox, **kw: Any) -> EngineHost:
    host = EngineHost(data, Settings(), on_message=inbox, writer_name="test host", **kw)
    host.start()
    hosts.append(host)
    return host


@pytest.mark.slow
def test_child_indexes_a_folder_and_answers_searches(
    tmp_path: Path, models_dir: Path, embedder: Any, hosts: list[EngineHost]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kiln.md").write_text("# Kiln\n\nThe pottery kiln fires stoneware at 1240 degrees.\n")
    inbox = Inbox()
    host = start(hosts, data_dir(tmp_path, models_dir), inbox)
    assert inbox.wait(Opened) == Opened(True, True, "")

    host.send(AddFolder(str(docs)))
    done = inbox.wait(IndexProgress, indexed()).progress
    assert done.path == str(docs / "kiln.md") and done.chunks_embedded >= 1
    result = host.call(Search("how hot does the kiln fire", 3))
    assert result.hits and result.hits[0].path == str(docs / "kiln.md")
    assert "1240 degrees" in result.hits[0].text

    (docs / "ferry.txt").write_text("The harbour ferry leaves at seven every morning.\n")
    inbox.wait(IndexProgress, indexed("ferry.txt"))
    # the live collection sees vectors written after it was opened (a second process would not)
    assert host.call(Search("when does the ferry leave", 1)).hits[0].path.endswith("ferry.txt")
    assert host.stop(60)
    assert inbox.wait(Exited) == Exited(0)


@pytest.mark.slow
def test_second_host_is_read_only_but_searches(
    tmp_path: Path, models_dir: Path, embedder: Any, hosts: list[EngineHost]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Sourdough starter wants feeding with rye flour every day.\n")
    data = data_dir(tmp_path, models_dir)
    first_inbox, second_inbox = Inbox(), Inbox()
    first = start(hosts, data, first_inbox)
    first_inbox.wait(Opened)
    first.send(AddFolder(str(docs)))
    first_inbox.wait(IndexProgress, indexed())

    second = start(hosts, data, second_inbox)
    ok, writable, message = dataclasses.astuple(second_inbox.wait(Opened))
    assert ok and not writable
    assert "test host" in message and str(first._proc.pid) in message  # names the holder
    assert "can ask questions but not index" in message and "--" not in message
    second.send(AddFolder(str(tmp_path)))
    assert "Indexing is off" in second_inbox.wait(Failed).message
    assert second.call(Search("what does the starter eat", 1)).hits[0].path.endswith("a.md")

    first_inbox.wait(IndexProgress, vectors_ready)  # a.md's stage, so it is not taken for b.md's
    first_inbox.forget()
    (docs / "b.md").write_text("The lighthouse lamp is trimmed at dusk by the keeper.\n")
    first_inbox.wait(IndexProgress, indexed("b.md"))  # searchable by its words from here
    first_inbox.wait(IndexProgress, vectors_ready)
    # dense search alone: the reader must see vectors the writer added after it opened
    found = second.call(Search("who looks after the lighthouse light", 1, "dense"))
    assert found.hits and found.hits[0].path.endswith("b.md")


def test_a_killed_child_is_reported_and_calls_fail_cleanly(
    tmp_path: Path, models_dir: Path, embedder: Any, hosts: list[EngineHost]
) -> None:
    inbox = Inbox()
    host = start(hosts, data_dir(tmp_path, models_dir), inbox)
    inbox.wait(Opened)
    os.kill(host._proc.pid, signal.SIGKILL)
    assert inbox.wait(Exited) == Exited(-signal.SIGKILL)
    with pytest.raises(HostError, match="stopped"):
        host.call(Search("anything", 1), timeout=30)
    with pytest.raises(HostError, match="stopped"):
        host.send(AddFolder(str(tmp_path)))


def test_ctrl_c_in_the_terminal_leaves_the_child_to_stop_when_told(
    tmp_path: Path, models_dir: Path, embedder: Any, hosts: list[EngineHost]
) -> None:
    """Ctrl+C reaches the whole process group; the window quits on it and stops the child
    itself, so the child neither dies mid-write nor prints a KeyboardInterrupt traceback."""
    inbox = Inbox()
    host = start(hosts, data_dir(tmp_path, models_dir), inbox)
    inbox.wait(Opened)
    os.kill(host._proc.pid, signal.SIGINT)
    assert host.call(Search("anything", 1), timeout=30).hits == []  # still serving
    assert host.stop(60)
    assert inbox.wait(Exited) == Exited(0)


def test_messages_survive_the_pipe() -> None:
    """Every request and event is a frozen dataclass that pickles to an equal copy."""
    from app.core.host import messages as m
    from app.core.index.indexer import IndexReport, Progress
    from app.core.watch.watcher import WatchStatus

    samples = [
        m.Warm(),
        m.Search("kiln", 3, "dense"),
        m.AddFolder("/a"),
        m.RemoveFolder("/a"),
        m.IndexFiles(("/a/b.md",)),
        m.Pause(),
        m.Resume(),
        m.ApplySettings(Settings()),
        m.CancelDrop(),
        m.Stop(),
        m.Call(1, m.Search("kiln", 3)),
        m.Reply(1, None, "It failed."),
        m.Opened(True, False, "read-only"),
        m.IndexProgress(Progress("indexed", "/a/b.md", 1, 2)),
        m.WatchChanged(WatchStatus("polling", "Polling."), True, ("/a",)),
        m.DropDone(IndexReport(files_indexed=1)),
        m.Failed("It failed."),
        m.Exited(0),
    ]
    for message in samples:
        assert type(message).__dataclass_params__.frozen  # type: ignore[attr-defined]
        assert pickle.loads(pickle.dumps(message)) == message
