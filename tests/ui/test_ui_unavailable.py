"""The window: a watched folder that cannot be read is shown "unavailable" and keeps its
passages; removing a folder asks first, naming how many passages leave the index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.core.engine import Engine
from app.core.index.manifest import Manifest
from app.ui.folders_panel import removal_question
from tests.core.index.test_chroma_server import free_port
from tests.helpers import long_markdown
from tests.ui_fixtures import *  # noqa: F403 - the fixtures
from tests.ui_fixtures import answer_next_dialog, wait_ready

NOT_FOUND = "not found (an unplugged drive, or a folder moved or deleted?)"


def chunks_in(gui: Any) -> int:
    """Passages in the index, read from the manifest as a second reader would."""
    manifest = Manifest(gui.service.data.manifest_path, readonly=True)
    try:
        return int(manifest.counts()["chunks"])
    finally:
        manifest.close()


def test_removal_question_names_the_folder_and_its_passages() -> None:
    assert removal_question("/home/ann/Documents", 2293) == (
        "Remove 'Documents' and its 2,293 passages from the index? The files stay where they are."
    )
    assert removal_question("/mnt/usb/", 1).startswith("Remove 'usb' and its 1 passage from")


@pytest.mark.slow
def test_an_unavailable_folder_is_shown_and_removing_it_asks_first(
    make_gui: Any, qtbot: Any, tmp_path: Path, embedder: Any
) -> None:
    docs = tmp_path / "drive" / "Documents"
    docs.mkdir(parents=True)
    (docs / "kiln.md").write_text("# Kiln\n\nThe pottery kiln fires at 1240 degrees.\n")
    (docs / "long.md").write_text(long_markdown(seed=4, paragraphs=8))
    engine = Engine(tmp_path / "mine", embedder=embedder)
    try:
        engine.add_folder(str(docs))
        engine.index([str(docs)])
        passages = engine.manifest.counts()["chunks"]
    finally:
        engine.close()
    assert passages > 2

    gui = make_gui("mine")
    wait_ready(qtbot, gui)
    panel = gui.window.folders
    qtbot.waitUntil(lambda: panel.status_of(str(docs)).endswith("watching"), timeout=20_000)

    (tmp_path / "drive").rename(tmp_path / "unplugged")  # the drive is unplugged
    qtbot.waitUntil(lambda: panel.status_of(str(docs)) == "● unavailable", timeout=30_000)
    info = panel.snapshot.folders[0]
    assert info.problem == NOT_FOUND and info.passages == passages
    assert NOT_FOUND in panel.tree.topLevelItem(0).toolTip(2)
    assert chunks_in(gui) == passages  # still searchable

    panel.tree.topLevelItem(0).setSelected(True)
    seen: list[str] = []
    answer_next_dialog("Cancel", seen)
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    assert seen == [
        f"Remove 'Documents' and its {passages:,} passages from the index? "
        "The files stay where they are."
    ]
    qtbot.wait(1000)
    assert panel.folder_paths() == [str(docs)] and chunks_in(gui) == passages  # cancelled

    answer_next_dialog("Remove", seen)
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    assert len(seen) == 2
    qtbot.waitUntil(lambda: panel.folder_paths() == [], timeout=30_000)
    qtbot.waitUntil(lambda: chunks_in(gui) == 0, timeout=30_000)
    assert (tmp_path / "unplugged" / "Documents" / "kiln.md").exists()  # the files stay


@pytest.mark.slow
def test_the_window_says_when_the_chroma_server_is_retried(make_gui: Any, qtbot: Any) -> None:
    down = f"http://127.0.0.1:{free_port()}"  # nobody listens: connection refused
    gui = make_gui("down", chroma_url=down)
    panel, line = gui.window.folders, gui.window.status.label
    said = "Chroma server unreachable — retrying in 5 s"
    qtbot.waitUntil(lambda: panel.retry_label.text() == f"⚠ {said}", timeout=240_000)
    assert panel.retry_label.isVisible()
    qtbot.waitUntil(lambda: line.text() == said, timeout=20_000)
    qtbot.waitUntil(  # the next try, probe only, and the next wait is longer
        lambda: panel.retry_label.text() == "⚠ Chroma server unreachable — retrying in 10 s",
        timeout=30_000,
    )
