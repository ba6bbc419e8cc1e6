"""Dialogs and tooltips showing a folder name or a question show it as written, not markup."""

from __future__ import annotations

from typing import Any

HIDING = 'Notes<span style="font-size:1px">'


def next_box_format(seen: list[Any]) -> None:
    """Note the text format and text of the next modal message box, then cancel it."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    def answer(left: int) -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            if left:
                QTimer.singleShot(20, lambda: answer(left - 1))
            return
        seen.append((box.textFormat(), box.text()))
        box.button(QMessageBox.StandardButton.Cancel).click()

    QTimer.singleShot(0, lambda: answer(200))


def test_the_remove_question_shows_a_folder_name_as_plain_text(qtbot: Any) -> None:
    from PySide6.QtCore import Qt

    from app.ui.folders_panel import FoldersPanel

    panel = FoldersPanel()
    qtbot.addWidget(panel)
    seen: list[Any] = []
    next_box_format(seen)
    assert panel.confirm_remove(f"/home/ann/{HIDING}") is False
    ((fmt, text),) = seen
    assert fmt == Qt.TextFormat.PlainText and HIDING in text


def test_a_turns_tooltip_escapes_the_question(qtbot: Any) -> None:
    from app.ui.threads_panel import ThreadsPanel

    panel = ThreadsPanel()
    qtbot.addWidget(panel)
    panel._add(1, f"What about {HIDING}?", 0.0, "", "m")
    tip = panel.turns.item(0).toolTip()
    assert "<span" not in tip and "&lt;span" in tip


def test_the_tray_tooltip_shows_a_file_name_as_written(qapp: Any) -> None:
    """The tray icon's tooltip names the file a long scan is on; a tray host renders tooltips
    as rich text, so a name with markup must come out escaped, as written."""
    from PySide6.QtGui import QTextDocument

    from app.ui.folders_panel import progress_text
    from app.ui.payloads import SyncProgress
    from app.ui.tray import tray_tooltip

    p = SyncProgress(1, 3, f"/scans/{HIDING}.pdf", "ocr", page=2, pages=9)
    shown = tray_tooltip(progress_text(p))
    doc = QTextDocument()
    doc.setHtml(shown)  # what a rich-text tooltip displays
    assert f"{HIDING}.pdf: OCR page 2 of 9" in doc.toPlainText()
