"""Fixtures for the GUI tests: a small indexed corpus, the stand-in Ollama, a running app.

Import the fixtures into a test module (``from tests.ui_fixtures import *``). The corpus is
indexed once per module with the core engine; each test copies that data directory, so it
starts a real app (service, watcher, windows) over a real index in a second or two.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, Slot
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTextBrowser

from tests.fake_ollama import FakeOllama
from tests.helpers import make_pdf, paragraph

__all__ = ["fake_ollama", "indexed", "make_gui"]  # the fixtures, for ``import *``

ANSWER = (
    "Tomatoes need six hours of direct sun [1]. "
    "A compost heap wants green nitrogen material and brown carbon material [2]. "
    "Tomatoes were first grown on the moon in 1802 [1]."
)
HOSTILE = (
    '# Odd page\n\nThe zeppelin hangar report says <img src="file:///etc/hosts"> and '
    '<a href="file:///etc/passwd">click here</a> and javascript:alert(1) about zeppelins.\n'
)


def write_corpus(root: Path) -> Path:
    """Notes on gardening and bikes, a two-page PDF, a file with HTML in it, a broken file."""
    rng = random.Random(3)
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "garden.md").write_text(
        "# Garden\n\n## Tomatoes\n\nTomatoes need six hours of direct sun and deep watering "
        "twice a week. Pinch the suckers to keep the plant productive.\n\n## Compost\n\n"
        "A compost heap wants a balance of green nitrogen material and brown carbon "
        "material. Turn it every two weeks so it stays warm.\n"
    )
    (root / "notes" / "bikes.txt").write_text(
        "The chain on a road bicycle should be replaced every three thousand kilometres.\n\n"
        + paragraph(rng, 60)
        + "\n"
    )
    (root / "notes" / "odd.md").write_text(HOSTILE)
    make_pdf(
        root / "report.pdf",
        [
            "Quarterly report. Revenue grew to 4.2 million dollars in the third quarter.",
            "Outlook. The company expects the lighthouse project to finish in March. "
            "The lighthouse keeper retires in April.",
        ],
    )
    (root / "broken.md").write_bytes(b"\x00\x01\x02binary\x00data" * 50)
    return root


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> tuple[Path, Path]:
    """(corpus folder, data directory) with the corpus watched and indexed."""
    from app.core.engine import Engine

    base = tmp_path_factory.mktemp("ui-corpus")
    corpus = write_corpus(base / "docs")
    data = base / "template-data"
    engine = Engine(data, embedder=embedder)
    try:
        engine.add_folder(str(corpus))
        engine.index([str(corpus)])
    finally:
        engine.close()
    return corpus, data


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    fake = FakeOllama(reply=ANSWER, models=["llama3.2:latest", "qwen2.5:3b"], token_delay=0.01)
    with fake:
        yield fake


@pytest.fixture
def make_gui(
    qapp: Any,
    tmp_path: Path,
    models_dir: Path,
    fake_ollama: FakeOllama,
    indexed: tuple[Path, Path],
) -> Iterator[Callable[..., Any]]:
    """Start the real app (window shown, service and engine process started) over a copy of
    the indexed data. The data directory's ``models`` is linked to the session's export of
    the embedding model, so the engine process loads it instead of exporting it again."""
    from app.core.config import Settings
    from app.ui.main import build

    guis: list[Any] = []

    def make(name: str = "data", *, fresh: bool = False, **settings: Any) -> Any:
        data = tmp_path / name
        if not fresh and not data.exists():
            shutil.copytree(indexed[1], data, ignore=shutil.ignore_patterns("models"))
        data.mkdir(exist_ok=True)
        if not (data / "models").exists():
            (data / "models").symlink_to(models_dir, target_is_directory=True)
        chosen = Settings(**{"ollama_host": fake_ollama.url, **settings})
        gui = build(data, settings=chosen, app=qapp)
        gui.quit_app_when_stopped = False
        gui.window.show()
        gui.service.start()
        guis.append(gui)
        return gui

    yield make
    for gui in guis:
        gui.quit()
        assert gui.service.wait_stopped(300), "the service did not stop"
        gui.window.close()
        gui.window.deleteLater()
        if gui.quick is not None:
            gui.quick.deleteLater()
    # Delete the windows now, inside this test, rather than at whatever moment the next test
    # first runs the event loop (while its own app is starting).
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()


def indexed_file(gui: Any, path: Path) -> bool:
    """The engine has indexed this file (read from the manifest, as a second reader would)."""
    from app.core.index.manifest import Manifest

    manifest = Manifest(gui.service.data.manifest_path, readonly=True)
    try:
        record = manifest.file(str(path))
        return record is not None and record.status == "indexed"
    finally:
        manifest.close()


def wait_ready(qtbot: Any, gui: Any, timeout: int = 240_000) -> None:
    """Until the engine is open, the model loaded and the start-up sync finished.

    A generous limit: the engine process loads the model (and, the first time for a CPU
    family, exports it) while the machine may be busy with other tests."""
    qtbot.waitUntil(
        lambda: bool(
            gui.service.state.engine_ready
            and gui.service.state.model_loaded
            and not gui.service.state.syncing
            and gui.window.folders.snapshot.folders
        ),
        timeout=timeout,
    )


def ask(qtbot: Any, window: Any, question: str, timeout: int = 60_000) -> Any:
    """Type a question, press Enter, wait for the answer to finish; returns the outcome."""
    from PySide6.QtCore import Qt

    window.question.setFocus()
    window.question.setText(question)
    with qtbot.waitSignal(window.session.finished, timeout=timeout) as blocker:
        qtbot.keyClick(window.question, Qt.Key.Key_Return)
    return blocker.args[0]


def anchor_point(view: QTextBrowser, href: str) -> QPoint:
    """Viewport coordinates of the middle of the link ``href`` in a text browser."""
    doc = view.document()
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.charFormat().anchorHref() == href:
                cursor = QTextCursor(doc)
                cursor.setPosition(frag.position() + max(1, frag.length() // 2))
                return view.cursorRect(cursor).center()
            it += 1
        block = block.next()
    raise AssertionError(f"no link {href} in the answer")


def fragments(view: QTextBrowser) -> list[Any]:
    """Every text fragment's char format in a document (to inspect links and images)."""
    out = []
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            out.append(it.fragment().charFormat())
            it += 1
        block = block.next()
    return out


def answer_next_dialog(button: str, seen: list[str], tries: int = 200) -> None:
    """Click ``button`` ("Cancel", or a button's text) in the next modal message box, once it
    is shown (a box's ``exec`` runs its own event loop, which runs this timer), noting its
    text in ``seen``."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    def answer(left: int) -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            if left:
                QTimer.singleShot(50, lambda: answer(left - 1))
            return
        seen.append(box.text())
        if button == "Cancel":
            chosen = box.button(QMessageBox.StandardButton.Cancel)
        else:
            chosen = next(b for b in box.buttons() if b.text().replace("&", "") == button)
        chosen.click()

    QTimer.singleShot(0, lambda: answer(tries))


class _Catcher(QObject):
    """Receives a signal in a QObject of the GUI thread.

    pytest-qt's ``waitSignal`` connects a plain Python object's method. A signal emitted from a
    background lane is queued; when a second emission (another page render, a late state
    change) was already queued as the blocker disconnected, PySide 6 still delivered it after
    the blocker was gone and the test process died of a segmentation fault inside
    ``_quit_loop_by_signal``. Qt drops queued calls to a QObject that is deleted, and a live
    one just notes them, so the service's cross-thread signals are awaited with this.
    """

    def __init__(self) -> None:
        super().__init__()
        self.caught: list[tuple[Any, ...]] = []

    @property
    def args(self) -> list[Any]:
        """The first emission's arguments (as pytest-qt's blocker has them)."""
        return list(self.caught[0]) if self.caught else []

    @Slot()
    def without_value(self) -> None:
        self.caught.append(())

    @Slot(object)
    def with_value(self, value: Any) -> None:
        self.caught.append((value,))


@contextmanager
def wait_signal(qtbot: Any, signal: Any, timeout: int = 20_000, *, value: bool = True) -> Any:
    """Wait (after the block) until ``signal`` of a background lane has been emitted; the
    catcher's ``args`` are its first emission's (``value=False`` for a signal without one)."""
    catcher = _Catcher()
    slot = catcher.with_value if value else catcher.without_value
    signal.connect(slot)
    try:
        yield catcher
        qtbot.waitUntil(lambda: bool(catcher.caught), timeout=timeout)
    finally:
        signal.disconnect(slot)
        catcher.deleteLater()
