"""Settings speak in sentences: a bad Ollama address is said in words, and "Not saved" goes
once the value that stopped the save is fixed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings

from app.core.config import Settings


@pytest.fixture
def dialog(qapp: Any, tmp_path: Path) -> Iterator[Any]:
    """A Settings dialog of a window whose engine is never started (nothing slow here)."""
    from app.ui.main import build
    from app.ui.settings_dialog import SettingsDialog

    gui = build(tmp_path / "data", settings=Settings(ollama_host="http://127.0.0.1:9"), app=qapp)
    gui.quit_app_when_stopped = False
    ini = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    shown = SettingsDialog(gui.service, ini)
    shown.show()
    try:
        yield shown
    finally:
        shown.reject()
        shown.deleteLater()
        gui.quit()
        assert gui.service.wait_stopped(60)
        gui.window.deleteLater()


def test_check_with_an_impossible_port_says_so_in_words(dialog: Any) -> None:
    dialog.host.setText("localhost:99999")
    dialog.check_button.click()
    said = dialog.host_status.text()
    assert "port should be a number from 1 to 65535" in said
    assert "Error" not in said and "cast" not in said  # no exception name, no parser wording
    assert said.endswith(".")


def test_not_saved_goes_when_the_host_is_fixed(dialog: Any) -> None:
    dialog.host.setText("localhost:99999")
    dialog.accept()
    assert dialog.isVisible() and dialog.invalid.isVisible()
    assert dialog.invalid.text().startswith("Not saved: the Ollama host is not an address")
    dialog.host.setText("localhost:11434")  # fixed, not yet saved
    assert not dialog.invalid.isVisible()
    dialog.host.setText("localhost:0")  # broken again: said again, as typed
    assert dialog.invalid.isVisible() and "1 to 65535" in dialog.invalid.text()
