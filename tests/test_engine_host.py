"""The engine process: indexing and search in a child, reported back over a pipe."""

from __future__ import annotations

import os
import queue
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.core.host.client import EngineHost, HostError


class Inbox:
    """Collects the host's messages; ``wait`` returns the first one of a kind that matches."""

    def __init__(self) -> None:
        self.messages: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.seen: list[tuple[str, Any]] = []

    def __call__(self, kind: str, payload: Any) -> None:
        self.messages.put((kind, payload))

    def wait(self, kind: str, test: Any = lambda p: True, timeout: float = 120.0) -> Any:
        for seen_kind, payload in self.seen:
            if seen_kind == kind and test(payload):
                return payload
        while True:
            seen_kind, payload = self.messages.get(timeout=timeout)
            self.seen.append((seen_kind, payload))
            if seen_kind == kind and test(payload):
                return payload


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


def test_child_indexes_a_folder_and_answers_searches(
    tmp_path: Path, models_dir: Path, embedder: Any, hosts: list[EngineHost]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kiln.md").write_text("# Kiln\n\nThe pottery kiln fires stoneware at 1240 degrees.\n")
    inbox = Inbox()
    host = start(hosts, data_dir(tmp_path, models_dir), inbox)
    assert inbox.wait("opened") == (True, True, "")

    host.send("add_folder", str(docs))
    done = inbox.wait("progress", lambda p: p.event == "indexed")
    assert done.path == str(docs / "kiln.md") and done.chunks_embedded >= 1
    result = host.call("search", "how hot does the kiln fire", 3)
    assert result.hits and result.hits[0].path == str(docs / "kiln.md")
    assert "1240 degrees" in result.hits[0].text

    (docs / "ferry.txt").write_text("The harbour ferry leaves at seven every morning.\n")
    inbox.wait("progress", lambda p: p.event == "indexed" and p.path.endswith("ferry.txt"))
    # the live collection sees vectors written after it was opened (a second process would not)
    assert host.call("search", "when does the ferry leave", 1).hits[0].path.endswith("ferry.txt")
    assert host.stop(60)
    assert inbox.wait("exited") == 0


def test_second_host_is_read_only_but_searches(
    tmp_path: Path, models_dir: Path, embedder: Any, hosts: list[EngineHost]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Sourdough starter wants feeding with rye flour every day.\n")
    data = data_dir(tmp_path, models_dir)
    first_inbox, second_inbox = Inbox(), Inbox()
    first = start(hosts, data, first_inbox)
    first_inbox.wait("opened")
    first.send("add_folder", str(docs))
    first_inbox.wait("progress", lambda p: p.event == "indexed")

    second = start(hosts, data, second_inbox)
    ok, writable, message = second_inbox.wait("opened")
    assert ok and not writable
    assert "test host" in message and str(first._proc.pid) in message  # names the holder
    assert "indexing is off" in message
    second.send("add_folder", str(tmp_path))
    assert "Indexing is off" in second_inbox.wait("error")
    assert second.call("search", "what does the starter eat", 1).hits[0].path.endswith("a.md")

    (docs / "b.md").write_text("The lighthouse lamp is trimmed at dusk by the keeper.\n")
    first_inbox.wait("progress", lambda p: p.event == "indexed" and p.path.endswith("b.md"))
    # dense search alone: the reader must see vectors the writer added after it opened
    found = second.call("search", "who looks after the lighthouse light", 1, "dense")
    assert found.hits and found.hits[0].path.endswith("b.md")


def test_a_killed_child_is_reported_and_calls_fail_cleanly(
    tmp_path: Path, models_dir: Path, embedder: Any, hosts: list[EngineHost]
) -> None:
    inbox = Inbox()
    host = start(hosts, data_dir(tmp_path, models_dir), inbox)
    inbox.wait("opened")
    os.kill(host._proc.pid, signal.SIGKILL)
    assert inbox.wait("exited") == -signal.SIGKILL
    with pytest.raises(HostError, match="stopped"):
        host.call("search", "anything", 1, timeout=30)
    with pytest.raises(HostError, match="stopped"):
        host.send("add_folder", str(tmp_path))
