"""Live watching on the real filesystem: real inotify events, real Chroma and SQLite.

Every check polls with a deadline (changes arrive asynchronously); none asserts on time.
"""

from __future__ import annotations

import errno
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app.core.index.indexer import Progress
from app.core.watch.watcher import Watcher, WatchStatus
from tests.helpers import eventually, paragraph

REPO = Path(__file__).resolve().parents[3]
DEADLINE_S = 20.0


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def note(seed: int, phrase: str = "") -> str:
    import random

    return f"# Note {seed}\n\n{paragraph(random.Random(seed), 50)}\n\n{phrase}\n"


@dataclass
class Rig:
    """A started watcher, the engine it writes with, and a second engine to search with."""

    watcher: Watcher
    reader: Any
    events: list[Progress] = field(default_factory=list)
    statuses: list[WatchStatus] = field(default_factory=list)

    def paths_with(self, phrase: str) -> set[str]:
        hits = self.reader.search(phrase, k=5).hits
        return {h.path for h in hits if phrase in h.text}

    def finds(self, phrase: str, path: Path) -> None:
        wanted = {str(path)}
        eventually(lambda: self.paths_with(phrase) == wanted, f"search finds {phrase!r} in {path}")

    def loses(self, phrase: str) -> None:
        eventually(lambda: not self.paths_with(phrase), f"search no longer finds {phrase!r}")

    def known(self) -> set[str]:
        return set(self.reader.manifest.files_under())

    def embedded_since(self, mark: int) -> int:
        return sum(p.chunks_embedded for p in self.events[mark:] if p.event == "indexed")

    def settle(self) -> None:
        assert self.watcher.wait_idle(60), "the watcher did not become idle"


@pytest.fixture
def watch(make_engine) -> Iterator[Callable[..., Rig]]:
    """Start a watcher over folders (saved in the manifest first) once their files exist."""
    started: list[Watcher] = []

    def start(*folders: Path, **kwargs: Any) -> Rig:
        writer = make_engine()
        for folder in folders:
            writer.add_folder(str(folder))
        rig = Rig(watcher=None, reader=make_engine())  # type: ignore[arg-type]
        rig.watcher = Watcher(
            writer, on_progress=rig.events.append, on_status=rig.statuses.append, **kwargs
        )
        started.append(rig.watcher)
        rig.watcher.start()
        rig.settle()
        return rig

    yield start
    for watcher in started:
        watcher.stop()


def assert_consistent(engine) -> None:
    assert engine.manifest.check() == []
    assert engine.store().all_ids() == engine.manifest.all_hashes()


# -- live watching -----------------------------------------------------------------------------
def test_edit_save_storm_and_delete_are_followed(tmp_path: Path, watch) -> None:
    docs = tmp_path / "docs"
    a = write(docs / "a.md", note(1))
    b = write(docs / "b.md", note(2, "The kettle whistles at noon."))
    c = write(docs / "sub" / "c.md", note(3, "Quokkas smile at the ferry."))
    rig = watch(docs, quiet=0.6)
    rig.finds("Quokkas smile at the ferry.", c)

    with a.open("a", encoding="utf-8") as fh:
        fh.write("\nThe otter juggles seven pebbles.\n")
    rig.finds("The otter juggles seven pebbles.", a)

    mark = len(rig.events)
    tmp = write(docs / "b.md.tmp", note(2, "The kettle sings at dusk instead."))
    os.replace(tmp, b)  # an editor's save: write a temporary file, rename it over, touch
    os.utime(b)
    b.open("a").close()
    rig.finds("The kettle sings at dusk instead.", b)
    rig.settle()
    assert [p.path for p in rig.events[mark:] if p.event == "indexed"] == [str(b)]
    assert rig.paths_with("The kettle whistles at noon.") == set()

    c.unlink()
    rig.loses("Quokkas smile at the ferry.")
    eventually(lambda: str(c) not in rig.known(), "the deleted file leaves the manifest")
    rig.settle()
    assert_consistent(rig.reader)


def test_renames_and_moves_embed_nothing(tmp_path: Path, watch) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    a = write(one / "a.md", note(1, "Walruses debate the tides."))
    x = write(one / "left" / "x.md", note(2, "Lanterns hang in the orchard."))
    y = write(one / "y.md", note(3, "The glacier hums in winter."))
    write(two / "keep.md", note(4))
    (one / "right").mkdir()
    rig = watch(one, two)
    chunks_before = rig.reader.store().count()
    mark = len(rig.events)

    a.rename(one / "renamed.md")  # rename in place
    rig.finds("Walruses debate the tides.", one / "renamed.md")
    x.rename(one / "right" / "x.md")  # move between folders of one watched folder
    rig.finds("Lanterns hang in the orchard.", one / "right" / "x.md")
    y.rename(two / "y.md")  # move between two watched folders
    rig.finds("The glacier hums in winter.", two / "y.md")
    rig.settle()
    assert rig.embedded_since(mark) == 0
    assert rig.reader.store().count() == chunks_before
    moved = {str(p) for p in (one / "renamed.md", one / "right" / "x.md", two / "y.md")}
    assert rig.known() == moved | {str(two / "keep.md")}

    z = write(two / "z.md", note(5, "Zebras nap at noon."))
    rig.finds("Zebras nap at noon.", z)
    rig.settle()
    chunks_before = rig.reader.store().count()
    z.replace(two / "keep.md")  # renamed over an indexed file: that file's texts go
    rig.finds("Zebras nap at noon.", two / "keep.md")
    eventually(lambda: str(z) not in rig.known(), "the old name leaves the manifest")
    rig.settle()
    assert rig.reader.store().count() < chunks_before
    assert rig.known() == moved | {str(two / "keep.md")}
    assert_consistent(rig.reader)


def test_folder_delete_and_files_in_a_new_subfolder(tmp_path: Path, watch) -> None:
    docs = tmp_path / "docs"
    write(docs / "old" / "one.md", note(1, "Herons fish in the shallows."))
    write(docs / "old" / "deeper" / "two.md", note(2, "Beavers build at night."))
    write(docs / "stay.md", note(3))
    rig = watch(docs)

    shutil.rmtree(docs / "old")
    rig.loses("Herons fish in the shallows.")
    rig.loses("Beavers build at night.")
    eventually(lambda: rig.known() == {str(docs / "stay.md")}, "the folder's files are gone")

    fresh = docs / "new" / "deeper" / "still"
    fresh.mkdir(parents=True)
    made = write(fresh / "three.md", note(4, "Moths circle the porch light."))
    write(docs / "new" / "four.md", note(5, "Snails race across the patio."))
    rig.finds("Moths circle the porch light.", made)
    rig.finds("Snails race across the patio.", docs / "new" / "four.md")
    rig.settle()
    assert_consistent(rig.reader)


def test_renaming_a_folder_of_100_files_embeds_nothing(tmp_path: Path, watch) -> None:
    docs = tmp_path / "docs"
    for i in range(100):
        write(docs / "batch" / f"f{i:03}.md", note(100 + i, f"Marker phrase number {i} here."))
    rig = watch(docs)
    assert rig.watcher.stats.chunks_embedded > 0
    embedded, chunks = rig.watcher.stats.chunks_embedded, rig.reader.store().count()
    mark = len(rig.events)

    (docs / "batch").rename(docs / "renamed")
    wanted = {str(docs / "renamed" / f"f{i:03}.md") for i in range(100)}
    eventually(lambda: rig.known() == wanted, "all 100 files re-pointed")
    rig.finds("Marker phrase number 42 here.", docs / "renamed" / "f042.md")
    rig.settle()

    assert rig.watcher.stats.chunks_embedded == embedded
    assert rig.embedded_since(mark) == 0
    assert rig.reader.store().count() == chunks
    assert [p.event for p in rig.events[mark:] if p.event != "planned"] == ["moved"]
    assert_consistent(rig.reader)


def test_symlinks_loops_and_ignored_paths_are_not_followed(tmp_path: Path, watch) -> None:
    docs, outside = tmp_path / "docs", tmp_path / "outside"
    write(outside / "secret.md", note(1, "Outside words never indexed."))
    write(outside / "later.md", note(2, "Later outside words never indexed."))
    real = write(docs / "real.md", note(3, "Inside words are fine."))
    (docs / "loop").symlink_to(docs, target_is_directory=True)
    (docs / "sub").mkdir()
    (docs / "sub" / "up").symlink_to(docs, target_is_directory=True)
    (docs / "out").symlink_to(outside, target_is_directory=True)
    (docs / "secret.md").symlink_to(outside / "secret.md")
    (docs / "alias.md").symlink_to(real)  # a link inside the folder is kept
    rig = watch(docs)  # the start-up scan ends despite the loops
    assert rig.known() == {str(real), str(docs / "alias.md")}

    (docs / "later.md").symlink_to(outside / "later.md")
    (docs / "dir-later").symlink_to(outside, target_is_directory=True)
    write(docs / ".hidden.md", note(4, "Hidden words never indexed."))
    write(docs / "node_modules" / "pkg" / "readme.md", note(5, "Dependency words never indexed."))
    write(docs / "draft.md.part", note(6, "Partial words never indexed."))
    barrier = write(docs / "barrier.md", note(7, "The barrier note arrives last."))
    rig.finds("The barrier note arrives last.", barrier)
    rig.settle()
    assert rig.known() == {str(real), str(docs / "alias.md"), str(barrier)}
    texts = rig.reader.manifest.conn.execute("SELECT group_concat(text, ' ') FROM chunks")
    assert "never indexed" not in texts.fetchone()[0]


def test_watch_limit_falls_back_to_polling_and_says_so_once(
    tmp_path: Path, watch, monkeypatch: pytest.MonkeyPatch
) -> None:
    from watchdog.observers import Observer

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monkeypatch.setattr(Observer, "schedule", refuse)  # the OS boundary, as when limits are hit
    docs = tmp_path / "docs"
    target = write(docs / "a.md", note(1))
    (docs / "loop").symlink_to(docs, target_is_directory=True)
    (docs / "sub").mkdir()
    (docs / "sub" / "up").symlink_to(docs, target_is_directory=True)  # polling must not walk these
    rig = watch(docs, poll_interval=0.2)
    assert rig.watcher.polling_folders == [str(docs)]
    for i in range(3):
        with target.open("a", encoding="utf-8") as fh:
            fh.write(f"\nPolled edit number {i} lands.\n")
        rig.finds(f"Polled edit number {i} lands.", target)
    made = write(docs / "sub" / "b.md", note(2, "A polled new file."))
    rig.finds("A polled new file.", made)
    notices = [s for s in rig.statuses if s.state == "polling"]
    assert len(notices) == 1 and str(docs) in notices[0].message
    assert "limit" in notices[0].message


def test_folders_added_and_removed_at_runtime(tmp_path: Path, watch) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write(one / "a.md", note(1, "Pelicans glide over the pier."))
    b = write(two / "b.md", note(2, "Crickets tune up at dusk."))
    rig = watch(one)
    assert rig.paths_with("Crickets tune up at dusk.") == set()

    assert rig.watcher.add_folder(str(two)) == str(two)
    rig.finds("Crickets tune up at dusk.", b)
    with b.open("a", encoding="utf-8") as fh:
        fh.write("\nToads answer the crickets.\n")
    rig.finds("Toads answer the crickets.", b)
    assert rig.reader.manifest.folders() == sorted([str(one), str(two)])

    rig.watcher.remove_folder(str(two))
    rig.loses("Crickets tune up at dusk.")
    rig.settle()
    assert rig.reader.manifest.folders() == [str(one)]
    assert rig.known() == {str(one / "a.md")}
    write(two / "c.md", note(3, "Nobody watches this folder now."))
    barrier = write(one / "z.md", note(4, "Barrier in the watched folder."))
    rig.finds("Barrier in the watched folder.", barrier)
    assert rig.paths_with("Nobody watches this folder now.") == set()
    assert_consistent(rig.reader)


def test_a_folder_added_by_another_process_is_indexed_by_the_running_watcher(
    tmp_path: Path, watch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``footnotes folders add`` while ``footnotes watch`` (or the app) runs: the watcher
    notices the new folder in the manifest and indexes it without a restart."""
    from app.core.watch import watcher as watcher_module

    monkeypatch.setattr(watcher_module, "RECHECK_S", 0.5)
    one, two = tmp_path / "one", tmp_path / "two"
    write(one / "a.md", note(1, "Pelicans glide over the pier."))
    b = write(two / "b.md", note(2, "Herons wait in the reeds."))
    rig = watch(one)
    rig.reader.add_folder(str(two))  # another engine, as the folders command has
    rig.finds("Herons wait in the reeds.", b)
    assert str(two) in rig.watcher.folders


def test_startup_reads_only_files_changed_while_not_watching(tmp_path: Path, watch) -> None:
    docs = tmp_path / "docs"
    for i in range(8):
        write(docs / f"n{i}.md", note(i))
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7 cut short")  # fails, then stays as it was
    first = watch(docs)
    first.watcher.stop()
    first.watcher.engine.close()  # releases the writer lock, as quitting the app would
    edited = docs / "n1.md"
    with edited.open("a", encoding="utf-8") as fh:
        fh.write("\nEdited while nobody watched.\n")
    (docs / "n2.md").unlink()
    added = write(docs / "added.md", note(9, "Added while nobody watched."))

    rig = watch(docs)
    report = rig.watcher.last_sync
    assert report is not None
    assert (report.files_indexed, report.files_removed, report.files_unchanged) == (2, 1, 7)
    assert report.files_failed == 1
    # the summary counts each file once: the broken file is failed, not also unchanged
    said = [s.message for s in rig.statuses if "start-up check" in s.message]
    assert said and said[-1].endswith("2 indexed, 6 unchanged, 1 removed, 1 failed."), said
    assert {p.path for p in rig.events if p.event == "indexed"} == {str(edited), str(added)}
    assert [p for p in rig.events if p.event == "unchanged"] == []  # untouched files: stat only
    rig.finds("Edited while nobody watched.", edited)


def test_search_answers_during_a_sync_from_what_is_indexed(tmp_path: Path, make_engine) -> None:
    docs = tmp_path / "docs"
    for i in range(12):
        write(docs / f"n{i:02}.md", note(i, f"Sync order phrase {i:02} appears."))
    writer, reader = make_engine(), make_engine()
    reached, release = threading.Event(), threading.Event()

    def hold(p: Progress) -> None:
        if p.event == "indexed" and not reached.is_set():
            reached.set()
            release.wait(120)  # the sync stops here, holding the indexer's lock

    sync = threading.Thread(target=writer.index, args=([str(docs)],), kwargs={"progress": hold})
    sync.start()
    try:
        assert reached.wait(120)
        answers: dict[str, set[str]] = {}

        def ask(engine: Any, name: str) -> None:
            hits = engine.search("Sync order phrase appears", k=20).hits
            answers[name] = {h.path for h in hits}

        for engine, name in ((reader, "reader"), (writer, "writer")):
            asker = threading.Thread(target=ask, args=(engine, name))
            asker.start()
            asker.join(60)
            assert not asker.is_alive(), f"a search on the {name} engine waited for the sync"
            assert sync.is_alive()
            assert 0 < len(answers[name]) < 12  # what is indexed so far, not the whole folder
    finally:
        release.set()
        sync.join(120)
    assert len({h.path for h in reader.search("Sync order phrase appears", k=20).hits}) == 12


def test_partial_native_watch_also_falls_back_to_polling(
    tmp_path: Path, watch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """watchdog ignores a sub-folder it cannot watch; the watcher notices and polls instead."""
    from watchdog.observers.inotify_c import InotifyFD

    docs = tmp_path / "docs"
    write(docs / "a.md", note(1))
    write(docs / "deep" / "er" / "b.md", note(2))
    add_callback = InotifyFD.add_callback

    def limited(self: Any, path: bytes, *args: Any) -> Any:
        if path != os.fsencode(docs):
            raise OSError(errno.ENOSPC, "inotify watch limit reached")
        return add_callback(self, path, *args)

    monkeypatch.setattr(InotifyFD, "add_callback", limited)
    rig = watch(docs, poll_interval=0.2)
    assert rig.watcher.polling_folders == [str(docs)]
    assert [s.state for s in rig.statuses].count("polling") == 1
    deep = docs / "deep" / "er" / "b.md"
    with deep.open("a", encoding="utf-8") as fh:
        fh.write("\nA change deep down is still seen.\n")
    rig.finds("A change deep down is still seen.", deep)


@pytest.mark.slow
def test_watch_command_logs_changes_and_stops_on_sigterm(tmp_path: Path, embedder) -> None:
    from app.core.engine import Engine

    data, docs = tmp_path / "data", tmp_path / "docs"
    write(docs / "a.md", note(1))
    (data / "models").mkdir(parents=True)
    (data / "models" / embedder.path.name).symlink_to(embedder.path)  # reuse the int8 export
    engine = Engine(data)
    engine.add_folder(str(docs))
    engine.close()

    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "--data-dir", str(data), "watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(
        target=lambda: [lines.put(x.rstrip("\n")) for x in proc.stdout or []], daemon=True
    ).start()
    seen: list[str] = []

    def wait_line(prefix: str) -> None:
        deadline = time.monotonic() + 120
        while not any(line.startswith(prefix) for line in seen):
            try:
                seen.append(lines.get(timeout=max(0.1, deadline - time.monotonic())))
            except queue.Empty:
                proc.kill()
                raise AssertionError(f"no line {prefix!r} in {seen}") from None

    try:
        wait_line("Watching 1 folder")
        assert any(line.startswith(f"indexed {docs / 'a.md'} (") for line in seen)
        write(docs / "b.md", note(2))
        wait_line(f"indexed {docs / 'b.md'}")
        (docs / "b.md").unlink()
        wait_line(f"removed {docs / 'b.md'}")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
    wait_line("Everything indexed so far is saved.")


@pytest.mark.slow
def test_a_folder_missing_at_start_keeps_its_passages_until_it_is_back(
    tmp_path: Path, watch
) -> None:
    drive = tmp_path / "drive"
    docs = drive / "docs"
    write(docs / "otters.md", note(7, "Otters juggle pebbles in the river."))
    rig = watch(docs)
    engine = rig.watcher.engine
    rig.watcher.stop()
    eventually(lambda: not rig.watcher.running, "the first watcher stops")
    drive.rename(tmp_path / "unplugged")  # the drive is unplugged while the app is closed

    events: list[Progress] = []
    statuses: list[WatchStatus] = []
    again = Watcher(engine, on_progress=events.append, on_status=statuses.append)
    again.start()
    try:
        assert again.wait_idle(60)
        assert any(s.state == "unavailable" and s.folder == str(docs) for s in statuses)
        assert rig.known() == {str(docs / "otters.md")}  # still searchable
        assert rig.paths_with("Otters juggle pebbles") == {str(docs / "otters.md")}

        (tmp_path / "unplugged").rename(drive)  # plugged in again
        eventually(lambda: any(p.event == "planned" for p in events), "the folder is re-checked")
        assert again.wait_idle(60)
        assert not [p for p in events if p.event in ("indexed", "removed")]  # nothing redone
        assert rig.known() == {str(docs / "otters.md")}
        assert_consistent(rig.reader)
    finally:
        again.stop()
