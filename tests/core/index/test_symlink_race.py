"""A symbolic link swapped in and out while a folder is indexed never lets an outside file in."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

SECRET = "zanzibar outside secret hunter2"
RUNS = 20
LINKS = 8


def swap_links(root: Path, inside: Path, secret: Path, stop: threading.Event) -> None:
    """Point each race link at the inside file, then at the outside one, until told to stop."""
    spare = root.parent / "spare-links"
    spare.mkdir(exist_ok=True)
    n = 0
    while not stop.is_set():
        target = secret if n % 2 else inside
        for i in range(LINKS):
            tmp = spare / f"tmp{i}"
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(target)
            os.replace(tmp, root / f"race{i}.txt")
        n += 1


@pytest.mark.slow
def test_no_outside_text_is_indexed_while_links_are_swapped(tmp_path: Path, make_engine) -> None:
    root = tmp_path / "watched"
    root.mkdir()
    inside = root / "inside.txt"
    inside.write_text("a short note about the orchard and the river\n")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    secret = private / "secret.txt"
    secret.write_text(f"{SECRET}, a little longer than the note so the size differs\n")
    engine = make_engine()
    engine.add_folder(str(root))
    stop = threading.Event()
    swapper = threading.Thread(target=swap_links, args=(root, inside, secret, stop))
    leaked = 0
    swapper.start()
    try:
        for _ in range(RUNS):
            engine.indexer().sync([str(root)], drain=False)
            rows = engine.manifest.conn.execute("SELECT text FROM chunks").fetchall()
            leaked += any("hunter2" in text for (text,) in rows)
    finally:
        stop.set()
        swapper.join()
    assert leaked == 0, f"outside text indexed in {leaked} of {RUNS} runs"
