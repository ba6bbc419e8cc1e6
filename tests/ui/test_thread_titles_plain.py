"""A thread's title shows as written in the History list's tooltip and the delete question."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tests.ui.test_plain_text_dialogs import HIDING, next_box_format


def test_a_thread_title_keeps_its_own_role_and_an_escaped_tooltip(qtbot: Any) -> None:
    from app.core.threads.store import ThreadInfo
    from app.ui.threads_panel import TITLE, ThreadsPanel

    panel = ThreadsPanel()
    qtbot.addWidget(panel)
    panel.set_threads([ThreadInfo("t1", HIDING, 1, 0.0)])
    item = panel.threads.item(0)
    assert item.data(TITLE) == HIDING  # what delete and export read back as the title
    assert "<span" not in item.toolTip() and "&lt;span" in item.toolTip()


def test_the_delete_question_shows_a_title_as_plain_text(qtbot: Any) -> None:
    from PySide6.QtCore import Qt

    from app.ui.thread_control import ThreadsController
    from app.ui.threads_panel import ThreadsPanel

    panel = ThreadsPanel()
    qtbot.addWidget(panel)
    seen: list[Any] = []
    next_box_format(seen)
    assert ThreadsController.confirm_delete(SimpleNamespace(panel=panel), HIDING) is False  # type: ignore[arg-type]
    ((fmt, text),) = seen
    assert fmt == Qt.TextFormat.PlainText and f"“{HIDING}”" in text
