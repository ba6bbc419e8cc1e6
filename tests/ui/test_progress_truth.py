"""Progress that tells the truth: bars never run past their end or sit on a stale figure, the
Folders panel lists the watched folders and the skipped files from the first frame, and the
status line forgets a piece of work once it is over."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.api import IndexView
from app.core.config import DataDir, Settings
from app.core.host.messages import IndexProgress
from app.core.index.manifest import Manifest
from app.core.index.records import FileRecord
from app.core.index.report import Progress
from app.core.index.skipped import SkippedFile
from app.core.ingest.parsing import NO_TEXT
from app.ui.background import Lanes, StateBox
from app.ui.folders_panel import FoldersPanel
from app.ui.indexing import Indexing, IndexingReports
from app.ui.payloads import FolderInfo, IndexSnapshot, ServiceState, SyncProgress


@pytest.fixture
def known_data(tmp_path: Path) -> tuple[Path, Path]:
    """A data directory whose manifest watches one folder, skipped two files in it and indexed
    one with a warning."""
    folder = tmp_path / "notes"
    folder.mkdir()
    data = DataDir(tmp_path / "data").ensure()
    manifest = Manifest(data.manifest_path)
    manifest.add_folder(str(folder))
    manifest.skip_files(
        [
            SkippedFile(str(folder / "core"), 10, 1, "binary", "no extension"),
            SkippedFile(str(folder / "song.mp3"), 10, 1, "format", ".mp3"),
        ]
    )
    empty = FileRecord(str(folder / "empty.txt"), 0, 1, "e3b0", "indexed", NO_TEXT, "text")
    manifest.replace_file(empty, [])  # as the indexer stores a file with no text
    manifest.close()
    return data.root, folder


@pytest.fixture
def window(qapp: Any, known_data: tuple[Path, Path]) -> Iterator[Any]:
    """The real window over that data directory, its engine never started."""
    from app.ui.main import build

    gui = build(known_data[0], settings=Settings(ollama_host="http://127.0.0.1:9"), app=qapp)
    gui.quit_app_when_stopped = False
    yield gui
    gui.quit()
    assert gui.service.wait_stopped(60)
    gui.window.close()
    gui.window.deleteLater()


def test_the_watched_folders_skipped_and_warned_files_show_from_the_first_frame(
    window: Any, known_data: tuple[Path, Path]
) -> None:
    panel = window.window.folders
    assert panel.folder_paths() == [str(known_data[1])]  # not "No folders yet"
    assert "No folders yet" not in panel.summary.text()
    assert panel.skipped_label.text() == (
        "2 skipped: 1 unknown binary (no extension 1), "
        "1 file in a format Footnotes does not read (.mp3 1)"
    )
    assert "song.mp3" in panel.skipped_label.toolTip()
    # a file indexed with a warning is named too (status lists it; the window did not)
    assert panel.warned_label.text() == "⚠  1 file indexed with a warning: empty.txt"
    assert panel.summary.text() == "1 file  ·  0 passages in the index"  # "1 files" was
    assert "it holds no text" in panel.warned_label.toolTip()


def test_bars_stop_at_their_end_and_follow_every_stage(qapp: Any) -> None:
    panel = FoldersPanel()
    panel.set_snapshot(IndexSnapshot([FolderInfo("/d", 296, 296, 0, 4232, "watching")]))
    panel.set_state(ServiceState(engine_ready=True, syncing=True))
    panel.set_progress(SyncProgress(296, 296, "/d/last.md", "indexed"))
    panel.set_progress(SyncProgress(4391, 4232, "", "embedded"))  # vectors, not files
    assert panel.bar.value() == panel.bar.maximum() == 4232
    assert panel.bar_label.text().startswith("Computing vectors: 4,232 of 4,232 new passages")
    assert "Indexing 296 of 296" not in panel.bar_label.text()
    assert panel.status_of("/d").startswith("● computing vectors 4,232 of 4,232")
    # a long file being read says which page, from the event's numbers
    panel.set_progress(SyncProgress(3, 10, "/d/book.pdf", "page", None, "", 40, 200))
    assert panel.bar_label.text() == "Indexing 3 of 10 files  ·  book.pdf: page 40 of 200"
    panel.set_progress(SyncProgress(4, 10, "/d/blob", "skipped"))  # skipped files count too
    assert panel.bar.value() == 4
    panel.deleteLater()


class Recorder:
    """Collects what the indexing side reports, as the service's signals would carry it."""

    def __init__(self) -> None:
        self.states: list[ServiceState] = []
        self.progress: list[SyncProgress] = []

    def reports(self) -> IndexingReports:
        return IndexingReports(self.progress.append, lambda done: None, lambda s: None, print)


def test_a_status_line_clears_when_its_work_ends(tmp_path: Path) -> None:
    record = Recorder()
    state = StateBox(record.states.append)
    lanes = Lanes(["reader"], print)
    view = IndexView(tmp_path / "none.sqlite3")  # no index: snapshots read nothing
    indexing = Indexing(None, state, lanes, view, record.reports())  # type: ignore[arg-type]
    state.update(engine_ready=True, syncing=True, message="Updating 1 path…")
    indexing.on_event(IndexProgress(Progress("planned", total=1)))
    indexing.on_event(IndexProgress(Progress("indexed", "/d/a.md", 1, 1, 0, passages=3)))
    assert not state.value.syncing and state.value.message == ""
    # typed page numbers reach the window as numbers (no text to parse)
    indexing.on_event(IndexProgress(Progress("page", "/d/book.pdf", 0, 2, page=40, pages=200)))
    assert (record.progress[-1].page, record.progress[-1].pages) == (40, 200)
    lanes.close()
