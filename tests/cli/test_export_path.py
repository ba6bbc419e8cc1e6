"""``threads export -o`` writes only where asked: onto a data-directory file, a FIFO, a device
or a missing folder it exits 1 with a sentence and changes nothing; an existing file needs
``--force``."""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.core.threads.store import ThreadStore, Turn
from tests.helpers import footnotes


def test_threads_export_refuses_with_a_sentence_and_changes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = ThreadStore(data / "threads.sqlite3")
    try:
        tid = store.create("Kilns")
        store.add_turn(tid, Turn("How hot?", "How hot?", "Hot enough.", [], model="m"))
    finally:
        store.close()
    history = (data / "threads.sqlite3").read_bytes()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target, words in (
        (data / "threads.sqlite3", "inside the data directory"),
        (fifo, "named pipe"),
        (Path(os.devnull), "a device"),
        (tmp_path / "missing" / "t.md", "does not exist"),
    ):
        proc = footnotes("--data-dir", str(data), "threads", "export", tid, "-o", str(target))
        assert proc.returncode == 1 and words in proc.stderr, (target, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1 and "Wrote" not in proc.stderr
    assert (data / "threads.sqlite3").read_bytes() == history and fifo.is_fifo()
    assert not (tmp_path / "missing").exists()
    out = tmp_path / "kilns.md"
    assert (
        footnotes("--data-dir", str(data), "threads", "export", tid, "-o", str(out)).returncode == 0
    )
    again = footnotes("--data-dir", str(data), "threads", "export", tid, "-o", str(out))
    assert again.returncode == 1 and "--force" in again.stderr
    forced = footnotes("--data-dir", str(data), "threads", "export", tid, "-o", str(out), "--force")
    assert forced.returncode == 0 and "Hot enough." in out.read_text()
    listed = footnotes("--data-dir", str(data), "threads", "list", "--json")
    assert [t["id"] for t in json.loads(listed.stdout)] == [tid]  # the history is whole
