"""Tray menu actions, the quick-ask window, and the settings dialog round trip."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.core.config import Settings
from tests.ui_fixtures import *  # noqa: F403 - the fixtures
from tests.ui_fixtures import ask, wait_ready, wait_signal


def test_tray_menu_actions(make_gui: Any, qtbot: Any) -> None:
    gui = make_gui()
    wait_ready(qtbot, gui)
    tray = gui.tray
    assert tray.action_texts() == ["Quick ask…", "Pause indexing", "Open Footnotes", "Quit"]

    folders = gui.window.folders
    tray.trigger("Pause indexing")
    qtbot.waitUntil(lambda: tray.action_texts()[1] == "Resume indexing")
    qtbot.waitUntil(lambda: folders.tree.topLevelItem(0).text(2).endswith("paused"), timeout=30_000)
    tray.trigger("Resume indexing")
    qtbot.waitUntil(lambda: tray.action_texts()[1] == "Pause indexing")
    qtbot.waitUntil(
        lambda: folders.tree.topLevelItem(0).text(2).endswith("watching"), timeout=30_000
    )

    tray.trigger("Quick ask")
    assert gui.quick is not None and gui.quick.isVisible()
    assert gui.quick.windowFlags() & Qt.WindowType.WindowStaysOnTopHint

    gui.window.hide()
    tray.trigger("Open Footnotes")
    assert gui.window.isVisible()

    with wait_signal(qtbot, gui.service.stopped, 60_000, value=False):
        tray.trigger("Quit")
    assert not gui.window.isVisible()


def test_without_a_tray_quick_ask_is_in_the_window(make_gui: Any, qtbot: Any) -> None:
    gui = make_gui()
    assert gui.tray.available is False  # offscreen has no system tray
    assert gui.tray.icon is None
    menus = [a.text() for m in gui.window.menuBar().actions() for a in m.menu().actions()]
    assert "Quick ask…" in menus
    assert gui.window.actions_.quick_ask.shortcut().toString() == "Ctrl+Shift+K"
    gui.window.actions_.quick_ask.trigger()
    assert gui.quick is not None and gui.quick.isVisible()


def test_quick_ask_shows_answer_verdict_sources_and_hands_over(make_gui: Any, qtbot: Any) -> None:
    gui = make_gui()
    wait_ready(qtbot, gui)
    quick = gui.show_quick_ask()
    quick.question.setText("How much sun do tomatoes need?")
    with qtbot.waitSignal(quick.session.finished, timeout=60_000):
        qtbot.keyClick(quick.question, Qt.Key.Key_Return)
    assert "Tomatoes need six hours" in quick.answer.toPlainText()
    assert quick.banner.isVisible() and quick.banner.level == "partly_supported"  # the moon
    assert 1 <= quick.sources.count() <= 3
    # each source says how the answer used it, as in the main window
    assert "✓ supports 1 sentence" in quick.sources.item(0).text()
    second = quick.sources.item(1)
    gui.window.hide()
    qtbot.mouseClick(
        quick.sources.viewport(),
        Qt.MouseButton.LeftButton,
        pos=quick.sources.visualItemRect(second).center(),
    )
    w = gui.window
    assert w.isVisible()
    assert w.question.text() == "How much sun do tomatoes need?"
    assert w.sources.current() == 2 and w.passage.n == 2
    assert "Tomatoes need six hours" in w.answer.toPlainText()


def test_settings_round_trip(make_gui: Any, qtbot: Any, tmp_path: Path) -> None:
    gui = make_gui()
    wait_ready(qtbot, gui)
    dialog = gui.show_settings()
    qtbot.waitUntil(lambda: "is running" in dialog.host_status.text(), timeout=20_000)
    models = [dialog.model.itemText(i) for i in range(dialog.model.count())]
    assert models == ["llama3.2:latest", "qwen2.5:3b"]
    assert re.search(r"\d+ ms away", dialog.host_status.text())  # the round trip is shown
    assert dialog.data_dir.text() == str(tmp_path / "data")

    dialog.model.setCurrentText("qwen2.5:3b")
    dialog.top_k.setValue(5)
    dialog.mode.setCurrentIndex(dialog.mode.findData("refuse"))
    dialog.ignore.setPlainText(dialog.ignore.toPlainText() + "\n*.log")
    with wait_signal(qtbot, gui.service.settings_applied, 20_000):
        dialog.accept()

    saved = json.loads((tmp_path / "data" / "settings.json").read_text())
    assert saved["ollama_model"] == "qwen2.5:3b" and saved["top_k"] == 5
    assert saved["unsupported_mode"] == "refuse" and "*.log" in saved["ignore_patterns"]
    assert Settings.load(tmp_path / "data" / "settings.json") == gui.service.settings
    assert not list((tmp_path / "data").glob(".settings.json.*"))  # atomic: no leftovers

    outcome = ask(qtbot, gui.window, "How much sun do tomatoes need?")
    assert len(outcome.result.hits) == 5  # applied without a restart

    again = gui.show_settings()
    assert again.top_k.value() == 5 and again.mode.currentData() == "refuse"
    assert again.model.currentText() == "qwen2.5:3b"
    again.reject()


def test_settings_choose_a_grounding_model_get_it_and_the_verdict_names_it(
    make_gui: Any, qtbot: Any, fake_ollama: Any, tmp_path: Path
) -> None:
    fake_ollama.grounding = lambda _document, claim: "No"  # it backs no sentence
    gui = make_gui()
    wait_ready(qtbot, gui)
    dialog = gui.show_settings()
    qtbot.waitUntil(lambda: "is running" in dialog.host_status.text(), timeout=20_000)
    field = dialog.grounding
    listed = [field.combo.itemText(i) for i in range(field.combo.count())]
    assert listed == ["", "llama3.2:latest", "qwen2.5:3b"]  # none first: the built-in checks
    assert field.model() == "" and not field.get_button.isVisible()
    assert "instead of the built-in checks" in field.note.text()

    field.combo.setCurrentText("bespoke-minicheck")
    assert field.get_button.isVisible() and field.get_button.text() == "Get bespoke-minicheck"
    assert "“bespoke-minicheck” is not installed: the built-in checks judge" in field.note.text()
    pull = field.pull()
    with wait_signal(qtbot, dialog.model.currentTextChanged, 20_000):  # listed again once got
        qtbot.waitUntil(lambda: pull.done_ is not None, timeout=20_000)
    qtbot.waitUntil(lambda: not field.get_button.isVisible(), timeout=20_000)
    assert field.combo.findText("bespoke-minicheck:latest") > 0  # listed after "" (none)
    assert field.model() == "bespoke-minicheck" and "not installed" not in field.note.text()
    with wait_signal(qtbot, gui.service.settings_applied, 20_000):
        dialog.accept()
    saved = json.loads((tmp_path / "data" / "settings.json").read_text())
    assert saved["grounding_model"] == "bespoke-minicheck"

    outcome = ask(qtbot, gui.window, "How much sun do tomatoes need?")
    assert outcome.verdict.level != "supported"  # the model's No stands over the built-in marks
    assert "Sentences checked by bespoke-minicheck." in gui.window.banner.reason.text()
    assert any(r.body["model"].startswith("bespoke") for r in fake_ollama.chats())

    again = gui.show_settings()
    assert again.grounding.model() == "bespoke-minicheck"
    again.grounding.combo.setCurrentText("")  # back to the built-in checks
    with wait_signal(qtbot, gui.service.settings_applied, 20_000):
        again.accept()
    assert Settings.load(tmp_path / "data" / "settings.json").grounding_model == ""


def test_settings_show_ollama_not_running(make_gui: Any, qtbot: Any) -> None:
    gui = make_gui()
    dialog = gui.show_settings()
    qtbot.waitUntil(lambda: "is running" in dialog.host_status.text(), timeout=20_000)
    dialog.host.setText("http://127.0.0.1:9")
    dialog.check_host()
    qtbot.waitUntil(lambda: "is not running at" in dialog.host_status.text(), timeout=20_000)
    assert not dialog.host_warning.isVisible()
    dialog.host.setText("http://192.168.1.20:11434")
    dialog._update_warning()
    assert dialog.host_warning.isVisible()
    assert "192.168.1.20" in dialog.host_warning.text()
    assert "unencrypted" in dialog.host_warning.text()
    dialog.reject()


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("not a url", "no spaces"),
        ("ftp://example.com", "http:// or https://"),
        ("http://", "names no host"),
        ("http://127.0.0.1:99999", "from 1 to 65535"),
    ],
)
def test_settings_refuse_an_address_that_cannot_be_one(
    make_gui: Any, qtbot: Any, host: str, why: str
) -> None:
    """Save keeps the dialog open and says why, instead of saving what the next start would
    throw away."""
    gui = make_gui()
    before = gui.service.settings.ollama_host
    dialog = gui.show_settings()
    dialog.host.setText(host)
    dialog.accept()
    assert dialog.isVisible() and dialog.invalid.isVisible()
    assert why in dialog.invalid.text() and dialog.invalid.text().startswith("Not saved")
    assert gui.service.settings.ollama_host == before
    dialog.host.setText(before)
    dialog.accept()
    assert not dialog.isVisible() and not dialog.invalid.isVisible()


def test_second_writer_is_refused_with_a_message_and_asking_still_works(
    make_gui: Any, qtbot: Any, tmp_path: Path, indexed: Any
) -> None:
    import shutil

    from app.core.locking import WriterLock

    shutil.copytree(indexed[1], tmp_path / "shared")
    with WriterLock(tmp_path / "shared" / "writer.lock", "footnotes watch"):
        gui = make_gui("shared")
        w = gui.window
        qtbot.waitUntil(lambda: w.errors.isVisible(), timeout=30_000)
        assert not gui.service.state.writable
        said = w.errors.message.text()
        assert "footnotes watch" in said
        # words for a person: no command-line option, and what this window can still do
        assert "--" not in said and "already open with this data folder" in said
        assert "can ask questions but not index" in said
        assert not w.folders.add_button.isEnabled() and not w.actions_.pause.isEnabled()
        qtbot.waitUntil(lambda: gui.service.state.model_loaded, timeout=60_000)
        outcome = ask(qtbot, w, "How much sun do tomatoes need?")
        assert outcome.answer is not None and outcome.answer.text
