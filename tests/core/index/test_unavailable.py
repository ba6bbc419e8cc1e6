"""Unavailable is not gone: a watched folder that cannot be read keeps its passages.

Missing (an unplugged drive), refused (permission denied, a path that loops) or failing (I/O
error): ``footnotes index``, ``status``, the watcher and the window all call it unavailable and
keep what it held; only ``folders remove`` drops it. So does a folder whose files are indexed
that is now entirely empty (the mount point of a drive that is not mounted). What is gone from
a place that can be read is still removed. Runs as root too: a folder renamed away is a missing
mount, and a folder behind a symbolic link that loops raises ELOOP (not ENOENT) even for root.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.engine import Engine
from app.core.index.availability import EMPTIED
from app.core.watch.watcher import Watcher, WatchStatus
from tests.helpers import footnotes, make_corpus

NOT_FOUND = "not found (an unplugged drive, or a folder moved or deleted?)"


def watched_corpus(engine: Engine, root: Path) -> Path:
    """``make_corpus`` in ``root / "docs"``, watched and indexed."""
    docs = make_corpus(root / "docs")
    engine.add_folder(str(docs))
    engine.index([str(docs)])
    return docs


def passages(engine: Engine) -> dict[str, int]:
    return {path: rec.chunks for path, rec in engine.manifest.files_under().items()}


def test_a_vanished_watched_folder_keeps_its_passages_and_is_reported(
    tmp_path: Path, make_engine
) -> None:
    engine = make_engine()
    docs = watched_corpus(engine, tmp_path / "drive")
    before = passages(engine)
    assert len(before) == 6 and sum(before.values()) > 0  # broken.md is a failed file

    (tmp_path / "drive").rename(tmp_path / "unplugged")  # the drive is unplugged
    report = engine.index([str(docs)])
    assert report.files_removed == 0 and report.files_seen == 0
    assert report.unavailable == [(str(docs), NOT_FOUND)]
    assert report.to_json()["unavailable"] == [{"path": str(docs), "reason": NOT_FOUND}]
    assert passages(engine) == before and report.chunks_total == sum(before.values())
    assert engine.search("tomatoes direct sun", 1).hits[0].path == str(docs / "notes/garden.md")

    # a path inside it, as a watcher event would give it: kept too, the folder named
    inside = engine.indexer().update_paths([str(docs / "notes" / "garden.md")])
    assert inside.files_removed == 0 and inside.unavailable == [(str(docs), NOT_FOUND)]
    assert passages(engine) == before

    (tmp_path / "unplugged").rename(tmp_path / "drive")  # back: nothing is redone
    back = engine.index([str(docs)])
    assert back.unavailable == [] and back.files_removed == 0 and back.chunks_embedded == 0
    assert back.files_unchanged == 6 and passages(engine) == before


def test_an_empty_mount_point_keeps_its_passages(tmp_path: Path, make_engine) -> None:
    """A drive watched at its mount point: unmounted, the folder is there but empty."""
    engine = make_engine()
    docs = watched_corpus(engine, tmp_path / "drive")
    before = passages(engine)
    elsewhere = tmp_path / "unmounted"
    elsewhere.mkdir()
    for entry in list(docs.iterdir()):
        entry.rename(elsewhere / entry.name)  # what is left at the mount point: nothing

    report = engine.index([str(docs)])
    assert report.files_removed == 0 and passages(engine) == before
    assert report.unavailable == [(str(docs), EMPTIED)]
    statuses: list[WatchStatus] = []
    watcher = Watcher(engine, on_status=statuses.append)
    watcher.start()
    try:
        assert watcher.wait_idle(60)
        assert watcher.unavailable == {str(docs): EMPTIED}
    finally:
        watcher.stop()
    assert passages(engine) == before
    assert engine.search("tomatoes direct sun", 1).hits[0].path == str(docs / "notes/garden.md")

    for entry in list(elsewhere.iterdir()):
        entry.rename(docs / entry.name)  # mounted again: nothing is redone
    back = engine.index([str(docs)])
    assert back.unavailable == [] and back.files_removed == 0 and back.files_unchanged == 6

    fresh = tmp_path / "new-empty"  # an empty folder nothing was indexed from is just empty
    fresh.mkdir()
    engine.add_folder(str(fresh))
    assert engine.index([str(fresh)]).unavailable == []


def test_a_folder_behind_a_looping_link_is_unavailable_even_for_root(
    tmp_path: Path, make_engine
) -> None:
    engine = make_engine()
    docs = watched_corpus(engine, tmp_path / "mnt")
    before = passages(engine)
    shutil.rmtree(tmp_path / "mnt")
    (tmp_path / "mnt").symlink_to("mnt")  # stat(docs) now fails with ELOOP, not ENOENT
    with pytest.raises(OSError) as err:
        os.stat(docs)
    assert err.value.errno == errno.ELOOP

    report = engine.index([str(docs)])
    assert report.files_removed == 0 and passages(engine) == before
    assert report.unavailable == [(str(docs), "too many levels of symbolic links")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 folder anyway")
def test_a_watched_folder_without_permission_keeps_its_passages(
    tmp_path: Path, make_engine
) -> None:
    engine = make_engine()
    docs = watched_corpus(engine, tmp_path)
    before = passages(engine)
    docs.chmod(0)
    try:
        report = engine.index([str(docs)])
    finally:
        docs.chmod(0o755)
    assert report.files_removed == 0 and report.files_failed == 0
    assert report.unavailable == [(str(docs), "permission denied")]
    assert passages(engine) == before


def test_what_is_gone_from_a_readable_place_is_still_removed(tmp_path: Path, make_engine) -> None:
    engine = make_engine()
    docs = watched_corpus(engine, tmp_path)
    loose = tmp_path / "loose.md"  # given explicitly, never watched
    loose.write_text("# Loose\n\nThe ferry to the island leaves at seven.\n")
    engine.index([str(loose)])

    loose.unlink()
    gone = engine.index([str(loose)])
    assert gone.files_removed == 1 and gone.unavailable == []

    shutil.rmtree(docs / "notes")  # a sub-folder of an available watched folder
    report = engine.index([str(docs / "notes")])
    assert report.files_removed == 4 and report.unavailable == []
    assert set(engine.manifest.files_under()) == {str(docs / "report.pdf"), str(docs / "broken.md")}


def test_the_watcher_the_index_command_and_status_agree(
    tmp_path: Path, cli_data_dir: Path, torch_embedder
) -> None:
    data = str(cli_data_dir)
    engine = Engine(cli_data_dir, embedder=torch_embedder)  # the CLI's model, so nothing redone
    try:
        docs = watched_corpus(engine, tmp_path / "drive")
        total = engine.manifest.counts()["chunks"]
    finally:
        engine.close()
    (tmp_path / "drive").rename(tmp_path / "unplugged")

    engine = Engine(cli_data_dir, embedder=torch_embedder)
    statuses: list[WatchStatus] = []
    watcher = Watcher(engine, on_status=statuses.append)
    watcher.start()
    try:
        assert watcher.wait_idle(60)
        said = [s for s in statuses if s.state == "unavailable"]
        assert [s.folder for s in said] == [str(docs)]
        assert said[0].message.startswith(f"{docs} is unavailable ({NOT_FOUND})")
        assert "passages stay in the index" in said[0].message
        in_watcher = watcher.unavailable
    finally:
        watcher.stop()
        engine.close()
    assert in_watcher == {str(docs): NOT_FOUND}

    run = footnotes("--data-dir", data, "index", str(docs), "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["files_removed"] == 0 and report["chunks_total"] == total
    expected = [{"path": p, "reason": r} for p, r in in_watcher.items()]
    assert report["unavailable"] == expected
    status = json.loads(footnotes("--data-dir", data, "status", "--json").stdout)
    assert status["unavailable"] == expected and status["chunks"] == total
    assert status["watch"] is None  # no watcher runs, none is retrying
    text = footnotes("--data-dir", data, "index", str(docs)).stdout
    assert f"unavailable: {docs}: {NOT_FOUND}; its passages stay in the index" in text
    text = footnotes("--data-dir", data, "status").stdout
    assert f"unavailable: {docs}: {NOT_FOUND}" in text

    removed = footnotes("--data-dir", data, "folders", "remove", str(docs))  # the only way out
    assert removed.returncode == 0 and "removed 6 files" in removed.stdout
    status = json.loads(footnotes("--data-dir", data, "status", "--json").stdout)
    assert status["chunks"] == 0 and status["unavailable"] == [] and status["folders"] == []


def test_a_sub_folder_that_cannot_be_read_keeps_its_files(
    tmp_path: Path, make_engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sub-folder refused by the OS (here os.scandir raises EACCES for it, as it does for
    a user without permission: tests may run as root, whom chmod does not stop) is not gone."""
    engine = make_engine()
    docs = make_corpus(tmp_path / "docs")
    sub = docs / "sub"
    sub.mkdir()
    (sub / "deep.md").write_text("# Deep\n\nThe kiln fires stoneware at 1240 degrees.\n")
    engine.add_folder(str(docs))
    engine.index([str(docs)])
    before = passages(engine)
    assert before[str(sub / "deep.md")] > 0
    real = os.scandir

    def refusing(path: str = ".") -> object:
        if os.fspath(path) == str(sub):
            raise PermissionError(errno.EACCES, "Permission denied", str(sub))
        return real(path)

    monkeypatch.setattr(os, "scandir", refusing)
    report = engine.index([str(docs)])
    monkeypatch.undo()
    assert report.files_removed == 0
    assert [p for p, _ in report.unavailable] == [str(sub)]
    assert {p: n for p, n in passages(engine).items() if p in before} == before
    assert engine.search("how hot does the kiln fire", k=1).hits[0].path == str(sub / "deep.md")


def test_a_file_the_os_cannot_stat_now_keeps_its_passages(
    tmp_path: Path, make_engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An I/O error on one file's stat (a flaky disk, a network share) is not a delete: its
    passages stay, the sync names it, and the next sync that can read it finds it unchanged."""
    engine = make_engine()
    docs = make_corpus(tmp_path / "docs")
    flaky = docs / "flaky.md"
    flaky.write_text("# Flaky\n\nThe kiln fires stoneware at 1240 degrees.\n")
    engine.add_folder(str(docs))
    engine.index([str(docs)])
    before = passages(engine)
    real = os.scandir

    class Entry:
        def __init__(self, entry: os.DirEntry[str]) -> None:
            self._entry, self.name, self.path = entry, entry.name, entry.path

        def is_symlink(self) -> bool:
            return self._entry.is_symlink()

        def is_dir(self, follow_symlinks: bool = True) -> bool:
            return self._entry.is_dir(follow_symlinks=follow_symlinks)

        def stat(self, follow_symlinks: bool = True) -> os.stat_result:
            if self.path == str(flaky):
                raise OSError(errno.EIO, "Input/output error", self.path)
            return self._entry.stat(follow_symlinks=follow_symlinks)

    class Listing:
        def __init__(self, path: str) -> None:
            self._it = real(path)

        def __enter__(self) -> Iterator[Entry]:
            return iter([Entry(e) for e in self._it])

        def __exit__(self, *exc: object) -> None:
            self._it.close()

    monkeypatch.setattr(os, "scandir", lambda path=".": Listing(path))
    report = engine.index([str(docs)])
    monkeypatch.undo()
    assert report.files_removed == 0
    assert [p for p, _ in report.unavailable] == [str(flaky)]
    assert passages(engine) == before
    assert engine.search("how hot does the kiln fire", k=1).hits[0].path == str(flaky)
    again = engine.index([str(docs)])
    assert again.files_indexed == 0 and again.unavailable == []
