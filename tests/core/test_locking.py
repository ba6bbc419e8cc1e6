"""One writer per data directory: the OS lock on ``writer.lock``, its note, and the sentences
that say who holds it. In one process: ``flock`` belongs to each open file, so a second
``WriterLock`` on the same path is refused here as it is in another process (which
``tests/core/index/test_portable.py`` shows)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from app.core.errors import LockedError
from app.core.locking import WriterLock, describe_holder, held, holder_name, read_only_message


def test_a_second_writer_is_refused_with_the_first_ones_name(tmp_path: Path) -> None:
    path = tmp_path / "data" / "writer.lock"
    with WriterLock(path, "footnotes watch"):
        note = json.loads(path.read_text())
        assert (note["pid"], note["what"]) == (os.getpid(), "footnotes watch")
        with pytest.raises(LockedError) as refused:
            WriterLock(path, "footnotes index").acquire()
    message = str(refused.value)
    assert message.startswith(f"The index in {path.parent} is being updated by footnotes watch")
    assert f"(process {os.getpid()}, since " in message
    assert message.endswith("stop it first, or use a different --data-dir.")
    assert refused.value.holder.startswith("footnotes watch (process ")


def test_a_released_lock_is_free_and_its_note_emptied(tmp_path: Path) -> None:
    path = tmp_path / "writer.lock"
    lock = WriterLock(path, "footnotes index").acquire()
    lock.release()
    assert path.read_text() == ""  # no stale holder named after it is gone
    lock.release()  # twice is harmless
    with WriterLock(path, "the window"):
        assert json.loads(path.read_text())["what"] == "the window"


def test_the_holder_is_named_with_the_time_it_took_the_lock() -> None:
    since = time.mktime((2024, 5, 1, 9, 14, 3, 0, 0, -1))
    raw = json.dumps({"pid": 812, "what": "footnotes watch", "since": since})
    assert holder_name(raw) == "footnotes watch (process 812, since 09:14:03)"


@pytest.mark.parametrize("raw", ["", "not json", "{}", '{"pid": 1}', "[1, 2]"])
def test_a_note_that_cannot_be_read_names_another_footnotes_process(raw: str) -> None:
    assert holder_name(raw) == "another Footnotes process"
    assert "another Footnotes process" in describe_holder(raw, Path("/data"))


def test_the_windows_note_names_no_command_line_option() -> None:
    text = read_only_message("footnotes watch (process 812, since 09:14:03)")
    assert "footnotes watch (process 812" in text and "can ask questions but not index" in text
    assert "--" not in text


def test_a_short_section_waits_for_the_holder_then_gives_up_with_a_sentence(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.lock"
    with (
        held(path, timeout_s=1),
        pytest.raises(OSError, match="stayed locked by another process"),
        held(path, timeout_s=0.1),
    ):
        pass
    with held(path, timeout_s=0.1):  # released: taken at once
        pass
