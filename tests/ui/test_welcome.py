"""The first start explains itself: an empty window invites a folder and says whether Ollama
answers (with what to do), and once files are indexed it offers a first question from them."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog

from app.core.config import Settings
from tests.fake_ollama import FakeOllama
from tests.ui_fixtures import *  # noqa: F403 - the fixtures
from tests.ui_fixtures import wait_ready


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def reject_next_file_dialog(seen: list[str], tries: int = 200) -> None:
    """Close the next folder chooser once it is shown (its exec runs this timer), noting its
    title in ``seen``."""

    def close(left: int) -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QFileDialog):
            if left:
                QTimer.singleShot(50, lambda: close(left - 1))
            return
        seen.append(box.windowTitle())
        box.reject()

    QTimer.singleShot(0, lambda: close(tries))


def test_an_empty_window_invites_a_folder_and_says_ollama_is_not_running(
    make_gui: Any, qtbot: Any
) -> None:
    host = f"http://127.0.0.1:{closed_port()}"
    gui = make_gui("empty", fresh=True, ollama_host=host)
    window = gui.window
    panel = window.welcome.panel
    assert window.welcome.showing  # the answer pane explains instead of standing empty
    qtbot.waitUntil(lambda: "is not running" in panel.ollama.text.text(), timeout=20_000)
    said = panel.ollama.text.text()
    assert f"Ollama is not running at {host}" in said and "ollama serve" in said
    assert panel.ollama.button.isVisible() and panel.ollama.button.text() == "Check again"

    qtbot.waitUntil(lambda: panel.folders.button.isEnabled(), timeout=60_000)
    assert "drop one on this window" in panel.folders.text.text()
    assert panel.folders.button.text() == "Add folder…"
    seen: list[str] = []
    reject_next_file_dialog(seen)
    qtbot.mouseClick(panel.folders.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(seen))
    assert seen == ["Watch a folder"]  # the window's own Add folder action


@pytest.fixture
def no_chat_model() -> Iterator[FakeOllama]:
    with FakeOllama(models=["nomic-embed-text:latest"]) as fake:
        yield fake


def test_ollama_without_a_chat_model_offers_to_get_one(
    qapp: Any, qtbot: Any, tmp_path: Path, no_chat_model: FakeOllama
) -> None:
    from app.ui.main import build

    gui = build(tmp_path / "data", settings=Settings(ollama_host=no_chat_model.url), app=qapp)
    gui.quit_app_when_stopped = False
    panel = gui.window.welcome.panel
    try:
        gui.window.show()
        qtbot.waitUntil(lambda: "no chat model" in panel.ollama.text.text(), timeout=20_000)
        assert "ollama pull llama3.2" in panel.ollama.text.text()
        assert panel.ollama.button.text() == "Get llama3.2…"
        qtbot.mouseClick(panel.ollama.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: no_chat_model.pulls_finished == 1, timeout=20_000)
        qtbot.waitUntil(lambda: "answers your questions" in panel.ollama.text.text())
    finally:
        gui.quit()
        assert gui.service.wait_stopped(60)
        gui.window.deleteLater()


def test_once_indexed_the_window_offers_a_first_question_from_the_files(
    make_gui: Any, qtbot: Any, indexed: tuple[Path, Path]
) -> None:
    gui = make_gui()
    window = gui.window
    panel = window.welcome.panel
    wait_ready(qtbot, gui)
    qtbot.waitUntil(lambda: panel.first.button.isVisible(), timeout=20_000)
    suggestion = panel.suggestion
    assert suggestion is not None and suggestion.path.startswith(str(indexed[0]))
    assert panel.first.button.text() == suggestion.question
    said = panel.folders.text.text()  # broken.md is not counted as indexed: it failed
    assert "4 files indexed in 1 folder" in said and "1 file could not be read" in said
    assert "llama3.2" in panel.ollama.text.text() and "answers" in panel.ollama.text.text()
    with qtbot.waitSignal(window.session.finished, timeout=60_000) as done:
        qtbot.mouseClick(panel.first.button, Qt.MouseButton.LeftButton)
    assert not window.welcome.showing  # the answer takes the pane
    assert window.question.text() == suggestion.question
    assert done.args[0].result.hits  # the files can answer it
