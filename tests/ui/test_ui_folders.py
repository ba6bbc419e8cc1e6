"""Folders panel, drag and drop, progress, quitting mid-sync, and the PDF page view."""

from __future__ import annotations

import os
import random
import signal
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from app.core.engine import Engine
from app.core.index import pending
from app.ui.page_loader import merge_boxes
from app.ui.widgets import shown_path
from tests.helpers import long_markdown, paragraph
from tests.ui_fixtures import *  # noqa: F403 - the fixtures
from tests.ui_fixtures import answer_next_dialog, ask, indexed_file, wait_ready, wait_signal


def drop(window: Any, paths: list[Path]) -> bool:
    """Drag ``paths`` over the window and drop them, as a file manager would."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    copy = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(
        QPoint(300, 300), copy, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(window, enter)
    if not enter.isAccepted():
        return False
    event = QDropEvent(
        QPointF(300, 300), copy, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(window, event)
    return event.isAccepted()


def test_folders_panel_lists_counts_status_and_failures(
    make_gui: Any, qtbot: Any, indexed: Any
) -> None:
    gui = make_gui()
    wait_ready(qtbot, gui)
    panel = gui.window.folders
    corpus = str(indexed[0])
    qtbot.waitUntil(lambda: panel.status_of(corpus).endswith("watching"), timeout=20_000)
    info = panel.snapshot.folders[0]
    assert info.path == corpus and info.indexed == 4 and info.failed == 1
    assert panel.tree.topLevelItem(0).text(1) == "4 (+1 failed)"
    reasons = [panel.failures.item(i).text() for i in range(panel.failures.count())]
    assert reasons == ["broken.md\nit holds binary data, not text"]
    assert panel.failures_title.text() == "1 file could not be indexed"


def test_add_folder_opens_in_the_home_folder(
    make_gui: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """It opened wherever the app was started from (a clone of the repository)."""
    from PySide6.QtWidgets import QFileDialog

    asked: list[str] = []

    def choose(_parent: object, _title: str, start: str = "") -> str:
        asked.append(start)
        return ""  # cancelled

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(choose))
    monkeypatch.chdir(tmp_path)
    gui = make_gui()
    wait_ready(qtbot, gui)
    gui.window.actions_.add_folder.trigger()
    assert asked == [str(Path.home())]


def test_drop_folder_is_watched_and_indexed_and_files_are_indexed(
    make_gui: Any, qtbot: Any, tmp_path: Path
) -> None:
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    folder = tmp_path / "dropped"
    folder.mkdir()
    (folder / "kiln.md").write_text("# Kiln\n\nThe pottery kiln fires at 1240 degrees.\n")
    loose = tmp_path / "loose.txt"
    loose.write_text("The harbour ferry leaves at seven every morning.\n")
    assert drop(w, [folder, loose])
    qtbot.waitUntil(lambda: str(folder) in w.folders.folder_paths(), timeout=30_000)
    qtbot.waitUntil(
        lambda: any(f.path == str(folder) and f.indexed == 1 for f in w.folders.snapshot.folders),
        timeout=60_000,
    )
    qtbot.waitUntil(lambda: indexed_file(gui, loose), timeout=60_000)  # a separate request
    outcome = ask(qtbot, w, "When does the harbour ferry leave?")
    assert any(h.path == str(loose) for h in outcome.result.hits)
    outcome = ask(qtbot, w, "How hot does the pottery kiln fire?")
    assert outcome.result.hits[0].path == str(folder / "kiln.md")

    # the watcher follows the dropped folder: a new file is picked up without asking
    (folder / "glaze.md").write_text("# Glaze\n\nCeladon glaze turns green in reduction.\n")
    qtbot.waitUntil(
        lambda: any(f.path == str(folder) and f.indexed == 2 for f in w.folders.snapshot.folders),
        timeout=60_000,
    )
    # and removing it (once confirmed) takes its passages out
    w.folders.tree.topLevelItem(w.folders.folder_paths().index(str(folder))).setSelected(True)
    seen: list[str] = []
    answer_next_dialog("Remove", seen)
    qtbot.mouseClick(w.folders.remove_button, Qt.MouseButton.LeftButton)
    assert seen and seen[0].startswith("Remove 'dropped' and its ")
    qtbot.waitUntil(lambda: str(folder) not in w.folders.folder_paths(), timeout=30_000)


def test_progress_shows_while_syncing_and_asking_still_works(
    make_gui: Any, qtbot: Any, tmp_path: Path
) -> None:
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    big = tmp_path / "big"
    big.mkdir()
    rng = random.Random(5)
    for i in range(30):  # small files: stopping waits for the batch being embedded
        (big / f"note{i:02d}.md").write_text(paragraph(rng, 40))
    seen: list[Any] = []
    gui.service.sync_progressed.connect(seen.append)
    gui.service.add_folder(str(big))
    qtbot.waitUntil(
        lambda: any(p.event == "planned" and p.total == 30 for p in seen), timeout=60_000
    )
    assert w.status.progress_label.isVisible() or not gui.service.state.syncing
    assert w.status.progress_label.text().startswith("Indexing")
    outcome = ask(qtbot, w, "How much sun do tomatoes need?")  # answered during the sync
    assert outcome.answer is not None and outcome.answer.text
    assert "syncing" in w.folders.status_of(str(big)) or not gui.service.state.syncing


def test_quitting_during_indexing_leaves_the_index_consistent(
    make_gui: Any, qtbot: Any, tmp_path: Path, embedder: Any
) -> None:
    gui = make_gui("quit-data")
    wait_ready(qtbot, gui)
    big = tmp_path / "many"
    big.mkdir()
    for i in range(25):
        (big / f"n{i:02d}.md").write_text(long_markdown(seed=100 + i, paragraphs=3))
    seen: list[Any] = []
    gui.service.sync_progressed.connect(seen.append)
    gui.service.add_folder(str(big))
    qtbot.waitUntil(
        lambda: any(p.event == "planned" and p.total == 25 for p in seen), timeout=60_000
    )
    with wait_signal(qtbot, gui.service.stopped, 60_000, value=False):
        gui.window.quit_app()
    engine = Engine(tmp_path / "quit-data", embedder=embedder)
    try:
        assert engine.manifest.check() == []
        # every passage has its vector, or waits for it in the list the next run drains
        waiting = pending.listed(engine.manifest.conn)
        assert engine.manifest.all_hashes() <= engine.store().all_ids() | waiting
        done = engine.manifest.files_under(str(big))
        assert all(r.status == "indexed" and r.chunks > 0 for r in done.values())
    finally:
        engine.close()


def test_pdf_page_rendered_with_the_passage_boxes(make_gui: Any, qtbot: Any, indexed: Any) -> None:
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    outcome = ask(qtbot, w, "When will the lighthouse project finish?")
    hit = outcome.result.hits[0]
    assert hit.path.endswith("report.pdf") and hit.page == 2
    pdf = w.passage.pdf
    qtbot.waitUntil(
        lambda: pdf.canvas.image is not None and bool(pdf.canvas.passage), timeout=30_000
    )
    assert w.passage.tabs.currentWidget() is pdf
    assert pdf.page == 2 and pdf.page_count == 2

    # the highlight comes from character offsets; it lands where the words are printed
    with pymupdf.open(hit.path) as doc:
        printed = doc[1].search_for("lighthouse project")
    found = [pymupdf.Rect(r) for r in pdf.canvas.passage]
    assert printed and all(any(f.intersects(p) for f in found) for p in printed)
    assert merge_boxes(pdf.boxes, hit.start, hit.end) == pdf.canvas.passage

    width = pdf.canvas.width()
    pdf.zoom_in()
    assert pdf.canvas.width() > width
    with wait_signal(qtbot, gui.service.page_rendered, 20_000):
        pdf.previous_page()
    qtbot.waitUntil(lambda: pdf.page == 1 and not pdf.canvas.passage)
    with wait_signal(qtbot, gui.service.page_rendered, 20_000):
        pdf.next_page()
    qtbot.waitUntil(lambda: bool(pdf.canvas.passage))

    # from a one-page file back to page 2 of this one: page 2, highlighted (not clamped to 1)
    single = Path(hit.path).with_name("single-page.pdf")
    with pymupdf.open() as doc:
        doc.new_page().insert_text((72, 72), "A receipt of one page.")
        doc.save(single)
    with wait_signal(qtbot, gui.service.page_rendered, 20_000):
        pdf.show_passage(str(single), 1, 0, 9)
    qtbot.waitUntil(lambda: pdf.page_count == 1)
    with wait_signal(qtbot, gui.service.page_rendered, 20_000):
        pdf.show_passage(hit.path, 2, hit.start, hit.end)
    qtbot.waitUntil(lambda: pdf.page == 2 and pdf.page_count == 2 and bool(pdf.canvas.passage))
    assert pdf.page_box.value() == 2

    opened: list[tuple[str, int]] = []
    w.passage.open_requested.disconnect(w.nav.open_file)  # no viewer is started in tests
    w.passage.open_requested.connect(lambda path, page: opened.append((path, page)))
    w.passage.open_button.click()
    assert opened == [(hit.path, 2)]


def test_eta_and_progress_text() -> None:
    from app.ui.folders_panel import format_eta, progress_text
    from app.ui.indexing import EtaClock
    from app.ui.payloads import SyncProgress

    clock = EtaClock()
    clock.plan(100)
    clock.started -= 10.0  # ten seconds in
    assert clock.eta(1) is None  # too early to tell
    assert clock.eta(20) == pytest.approx(40.0, abs=0.5)
    assert format_eta(40.0) == "less than a minute left"
    assert format_eta(600.0) == "about 10 min left"
    assert format_eta(5400.0) == "about 1 h 30 min left"
    assert progress_text(SyncProgress(20, 100, eta_s=600.0)) == (
        "Indexing 20 of 100 files  ·  about 10 min left"
    )


@pytest.mark.slow
def test_a_crashed_engine_process_is_restarted_and_the_app_still_answers(
    make_gui: Any, qtbot: Any
) -> None:
    gui = make_gui()
    wait_ready(qtbot, gui)
    errors: list[str] = []
    gui.service.error_occurred.connect(lambda e: errors.append(e.message))
    old_pid = gui.service.host._proc.pid
    os.kill(old_pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: any("stopped unexpectedly" in m for m in errors), timeout=30_000)
    assert "index is intact" in errors[-1]
    # between the crash and the restart there is no process at all (``_proc`` is None)
    qtbot.waitUntil(
        lambda: getattr(gui.service.host._proc, "pid", old_pid) != old_pid, timeout=30_000
    )
    wait_ready(qtbot, gui)
    assert gui.service.state.writable  # the dead child's writer lock was released
    outcome = ask(qtbot, gui.window, "How much sun do tomatoes need?")
    assert outcome.error is None
    assert outcome.result.hits[0].path.endswith("garden.md")


@pytest.mark.slow
def test_hostile_folder_dropped_on_the_app_lists_each_failure_and_asking_goes_on(
    make_gui: Any, qtbot: Any, tmp_path: Path
) -> None:
    from tests.hostile_corpus import ABSENT, INDEXED, build

    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    hostile = tmp_path / "hostile"
    cases = build(hostile, big=False)
    privileged = os.geteuid() == 0  # the engine process runs as this user
    expected = {c.path: c.outcome(privileged) for c in cases}
    failing = {shown_path(p): why for p, why in expected.items() if why not in (INDEXED, ABSENT)}
    assert any("\ufffd" in p for p in failing)  # a name that is not UTF-8, shown legibly
    assert len(failing) >= 5
    assert drop(w, [hostile])

    def listed() -> dict[str, str]:
        items = (w.folders.failures.item(i) for i in range(w.folders.failures.count()))
        return {i.data(Qt.ItemDataRole.UserRole): i.text() for i in items}

    outcome = ask(qtbot, w, "How much sun do tomatoes need?")  # while the drop is indexed
    assert outcome.error is None and "Tomatoes" in outcome.answer.text
    qtbot.waitUntil(lambda: set(failing) <= set(listed()), timeout=180_000)
    shown = listed()
    for path, why in failing.items():
        assert why in shown[path], (path, shown[path])
    assert gui.service.state.engine_ready and gui.service.host.alive
    outcome = ask(qtbot, w, "How much sun do tomatoes need?")
    assert outcome.error is None and outcome.result.hits[0].path.endswith("garden.md")
