"""The passage in its file: the text around it (always) and the rendered page (PDF, EPUB)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QColor, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.ui.page_loader import is_paged
from app.ui.payloads import PassageText
from app.ui.pdf_view import PdfView
from app.ui.reflow import Reflowed, reflow
from app.ui.sources_panel import short_folder
from app.ui.theme import colors
from app.ui.widgets import ElidedLabel, plain_label, shown_path

if TYPE_CHECKING:
    from app.core.types import Hit
    from app.ui.service import Service

LINE_KEEPING = (".log", ".csv", ".tsv")  # terminal output and tables: lines mean something


def keeps_lines(path: str) -> bool:
    """True for code, logs and tables, whose lines are shown unwrapped (scrolling sideways
    inside the pane); prose wraps at the pane's width."""
    from app.core.ingest.loaders import UnsupportedFile, kind_of

    if path.lower().endswith(LINE_KEEPING):
        return True
    try:
        return kind_of(path) == "code"
    except UnsupportedFile:
        return False


class PassageView(QWidget):
    """Shows one source: file, page, the passage highlighted; Open and Show in folder."""

    open_requested = Signal(str, int)  # path, page (0: none)
    reveal_requested = Signal(str)

    def __init__(self, service: Service, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("passageView")
        self.service = service
        self.hit: Hit | None = None
        self.n = 0
        self._token = 0
        self._offset = 0
        self._shown = Reflowed("", [0])  # the text shown, with offsets into what was loaded
        self._strong: list[tuple[int, int]] = []
        self.title = ElidedLabel("No source selected")
        self.title.setObjectName("passageTitle")
        self.where = ElidedLabel()
        self.where.setObjectName("mutedLabel")
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warning = plain_label()
        self.warning.setObjectName("warningLabel")
        self.warning.setWordWrap(True)
        self.warning.hide()
        self.open_button = QPushButton("Open")
        self.open_button.setToolTip("Open the file in its usual application (Ctrl+Return)")
        self.reveal_button = QPushButton("Show in folder")
        self.open_button.clicked.connect(self._open)
        self.reveal_button.clicked.connect(self._reveal)
        for b in (self.open_button, self.reveal_button):
            b.setEnabled(False)
        self.text = QPlainTextEdit()
        self.text.setObjectName("passageText")
        self.text.setReadOnly(True)
        self.text.setUndoRedoEnabled(False)
        self.text.setPlaceholderText("Select a source to see its passage in context.")
        # a long line wraps (prose) or scrolls inside the pane (code): it never widens the pane
        self.text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)
        self.pdf = PdfView(service)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.page_tab = self.tabs.addTab(self.pdf, "Page")
        self.text_tab = self.tabs.addTab(self.text, "Text")
        self.tabs.setTabVisible(self.page_tab, False)

        # the file's name and page get the pane's whole width; its folder shares the next
        # line with the buttons
        under = QHBoxLayout()
        under.addWidget(self.where, 1)
        under.addWidget(self.open_button)
        under.addWidget(self.reveal_button)
        box = QVBoxLayout(self)
        box.setContentsMargins(8, 8, 8, 8)
        box.addWidget(self.title)
        box.addLayout(under)
        box.addWidget(self.warning)
        box.addWidget(self.tabs, 1)
        service.passage_loaded.connect(self._on_loaded)

    def show_source(self, n: int, hit: Hit) -> None:
        """Show source ``n``: request its text around the passage, and its page if paged."""
        self.n, self.hit, self._strong = n, hit, []
        page = f"  ·  page {hit.page}" if hit.page else ""
        self.title.set_parts(f"[{n}]  {os.path.basename(shown_path(hit.path))}", page)
        self.where.setText(short_folder(os.path.dirname(shown_path(hit.path))))
        for b in (self.open_button, self.reveal_button):
            b.setEnabled(True)
        self.warning.hide()
        paged = hit.page is not None and is_paged(hit.path)
        self.tabs.setTabVisible(self.page_tab, paged)
        if paged and hit.page is not None:
            self.pdf.show_passage(hit.path, hit.page, hit.start, hit.end)
            self.tabs.setCurrentIndex(self.page_tab)
        else:
            self.tabs.setCurrentIndex(self.text_tab)
        wrap = QPlainTextEdit.LineWrapMode
        self.text.setLineWrapMode(wrap.NoWrap if keeps_lines(hit.path) else wrap.WidgetWidth)
        self._set_text(hit.text, hit.start)
        self._paint()
        self._token = self.service.new_token()
        self.service.load_passage(self._token, hit)

    def set_strong(self, spans: list[tuple[int, int]]) -> None:
        """Highlight these spans (offsets inside the passage text) more strongly."""
        self._strong = spans
        self._paint()
        if self.hit is not None:
            base = self.hit.start
            self.pdf.set_strong([(base + s, base + e) for s, e in spans])

    def clear(self) -> None:
        self.hit, self.n = None, 0
        self.title.set_parts("No source selected", "")
        self.where.clear()
        self.warning.hide()
        self.text.clear()
        self.tabs.setTabVisible(self.page_tab, False)
        for b in (self.open_button, self.reveal_button):
            b.setEnabled(False)

    @Slot(object)
    def _on_loaded(self, loaded: PassageText) -> None:
        if loaded.token != self._token or self.hit is None:
            return
        if loaded.error:
            self.warning.setText(loaded.error + " Showing the passage as it was indexed.")
            self.warning.show()
            return
        if not loaded.matches:
            self.warning.setText(
                "This file changed after it was indexed, so the passage is shown as it was "
                "indexed; it will be updated at the next sync."
            )
            self.warning.show()
        self._set_text(loaded.text, loaded.offset)
        self._paint(scroll=True)

    def _set_text(self, text: str, offset: int) -> None:
        """Show ``text`` (which starts at ``offset`` of the file's text): prose reflowed,
        code, logs and tables with their lines as they are."""
        hit = self.hit
        if hit is not None and keeps_lines(hit.path):
            self._shown = Reflowed(text, list(range(len(text) + 1)))
        else:
            self._shown = reflow(text)
        self.text.setPlainText(self._shown.text)
        self._offset = offset

    def _paint(self, scroll: bool = False) -> None:
        hit = self.hit
        if hit is None:
            return
        c = colors()
        length = self.text.document().characterCount() - 1
        at = self._shown.at  # offsets in the loaded text -> in the reflowed text shown
        base = hit.start - self._offset
        start = max(0, min(at(base), length))
        end = max(start, min(at(hit.end - self._offset), length))
        selections = [self._selection(start, end, QColor(c.passage_bg))]
        strong = QColor(c.strong_bg)
        for s, e in self._strong:
            lo, hi = at(max(base, base + s)), at(base + e)
            selections.append(self._selection(min(max(lo, start), end), min(hi, end), strong))
        self.text.setExtraSelections(selections)
        if scroll:
            cursor = QTextCursor(self.text.document())
            cursor.setPosition(end)
            self.text.setTextCursor(cursor)
            self.text.ensureCursorVisible()
            cursor.setPosition(start)
            self.text.setTextCursor(cursor)
            self.text.centerCursor()

    def _selection(self, start: int, end: int, color: QColor) -> QTextEdit.ExtraSelection:
        sel = QTextEdit.ExtraSelection()
        cursor = QTextCursor(self.text.document())
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        sel.cursor = cursor
        sel.format.setBackground(color)
        sel.format.setProperty(QTextFormat.Property.FullWidthSelection, False)
        return sel

    def highlighted_text(self) -> str:
        """The text under the passage highlight (for tests and accessibility)."""
        sels = self.text.extraSelections()
        return sels[0].cursor.selectedText().replace("\u2029", "\n") if sels else ""

    @Slot()
    def _open(self) -> None:
        if self.hit is not None:
            self.open_requested.emit(self.hit.path, self.hit.page or 0)

    @Slot()
    def _reveal(self) -> None:
        if self.hit is not None:
            self.reveal_requested.emit(self.hit.path)
