"""The answer: streamed Markdown, [n] links, unsupported sentences marked, per-sentence hover."""

from __future__ import annotations

import html
import time
from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import (
    QColor,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import QTextBrowser, QTextEdit, QWidget

from app.ui.markup import SENT_END, SENT_START, marked_html, parse_cite, render_answer
from app.ui.theme import colors

if TYPE_CHECKING:
    from app.core.api import SentenceMark

FLUSH_MS = 50
MAX_FLUSH_MS = 400
PLACEHOLDER = (
    "Ask a question about your files. The answer cites the passages it rests on; "
    "click a citation like [1] to see the passage highlighted in its file."
)


class AnswerView(QTextBrowser):
    """Read-only rich text of one answer; never loads resources, only cite:n links work."""

    citation_clicked = Signal(int)
    sentence_hovered = Signal(int)  # -1 when the pointer leaves the sentences
    sentence_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("answerView")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setUndoRedoEnabled(False)
        self.setMouseTracking(True)
        self.anchorClicked.connect(self._on_anchor)
        self.hint = PLACEHOLDER  # drawn wrapped while empty (Qt's placeholder is cut off)
        self._text = ""
        self._sources = 0
        self._dirty = False
        self._marks: list[SentenceMark] = []
        self._ranges: list[tuple[int, int]] = []
        self._hovered = -1
        self._pinned = -1
        self._timer = QTimer(self)
        self._timer.setInterval(FLUSH_MS)
        self._timer.timeout.connect(self.flush)
        self.restyle()

    def restyle(self) -> None:
        c = colors()
        self.document().setDefaultStyleSheet(
            f"a {{ color:{c.link}; text-decoration:none; font-weight:600; }}"
            f" .badcite {{ color:{c.unsupported_line}; }}"
            f" code {{ font-family:monospace; }} p {{ margin-bottom:6px; }}"
        )
        self.document().setDocumentMargin(10)

    def setPlaceholderText(self, text: str) -> None:
        """Set the hint shown while empty (drawn here, wrapped, instead of by Qt)."""
        self.hint = text
        self.viewport().update()

    def placeholderText(self) -> str:
        return self.hint

    def paintEvent(self, event: QPaintEvent) -> None:
        """The answer, or while there is none the hint, wrapped to the pane's width."""
        super().paintEvent(event)
        if not self.hint or not self.document().isEmpty():
            return
        painter = QPainter(self.viewport())
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        margin = int(self.document().documentMargin())
        area = self.viewport().rect().adjusted(margin, margin, -margin, -margin)
        flags = Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap
        painter.drawText(area, int(flags), self.hint)

    # -- content ---------------------------------------------------------------------------
    def loadResource(self, type: int, name: QUrl | str, /) -> Any:
        """Never fetch anything (images, style sheets) named by model output."""
        return None

    @property
    def text(self) -> str:
        return self._text

    @property
    def marks(self) -> list[SentenceMark]:
        return self._marks

    def begin(self, sources: int) -> None:
        """Start a new answer: clear, and flush streamed pieces on a short timer."""
        self._text, self._sources, self._marks, self._ranges = "", sources, [], []
        self._hovered = self._pinned = -1
        self._dirty = False
        self.clear()
        self.setExtraSelections([])
        self._timer.setInterval(FLUSH_MS)
        self._timer.start()

    def set_sources(self, sources: int) -> None:
        self._sources = sources
        self._dirty = True

    def append(self, piece: str) -> None:
        self._text += piece
        self._dirty = True

    @Slot()
    def flush(self) -> None:
        """Render the text streamed so far (called by the timer, or directly in tests)."""
        if not self._dirty:
            return
        self._dirty = False
        bar = self.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        started = time.perf_counter()
        self.setHtml(render_answer(self._text, self._sources))
        if at_end:
            bar.setValue(bar.maximum())
        # long answers cost more to lay out: flush less often, so typing stays fluid
        cost_ms = (time.perf_counter() - started) * 1000
        self._timer.setInterval(int(min(MAX_FLUSH_MS, max(FLUSH_MS, cost_ms * 4))))

    def finish(
        self, text: str, marks: Sequence[SentenceMark], sources: int, rendered: str | None = None
    ) -> None:
        """The final answer with sentence marks: unsupported claims get a red wavy underline.

        Built in a detached document (edits there cost no layout), then swapped in at once.
        ``rendered`` is :func:`marked_html` computed off the GUI thread, when available.
        """
        self._timer.stop()
        self._text, self._marks, self._sources = text, list(marks), sources
        self._dirty = False
        doc = QTextDocument(self)
        doc.setDefaultStyleSheet(self.document().defaultStyleSheet())
        doc.setDocumentMargin(self.document().documentMargin())
        doc.setDefaultFont(self.document().defaultFont())
        doc.setUndoRedoEnabled(False)
        doc.setHtml(rendered if rendered is not None else marked_html(text, marks, sources))
        cursor = QTextCursor(doc)
        cursor.beginEditBlock()
        self._ranges = _take_sentinels(doc)
        c = colors()
        for mark, (start, end) in zip(self._marks, self._ranges, strict=False):
            if mark.supported or mark.kind == "meta" or end <= start:
                continue
            fmt = QTextCharFormat()
            fmt.setBackground(QColor(c.unsupported_bg))
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            fmt.setUnderlineColor(QColor(c.unsupported_line))
            why = mark.reason or "no passage among the sources says this"
            fmt.setToolTip("<p>Not supported by your files: " + html.escape(why) + "</p>")
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            cursor.mergeCharFormat(fmt)
        cursor.endEditBlock()
        old = self.document()
        mine = old.parent() is self  # Qt deletes the first one itself
        self.setDocument(doc)
        if mine:
            old.deleteLater()
        self._paint_selections()

    def stop(self) -> None:
        self._timer.stop()
        self.flush()

    def show_message(self, text: str, *, error: bool = False) -> None:
        """A note or error below whatever answer text there is (escaped: it may quote a file)."""
        self._timer.stop()
        c = colors()
        color = c.error_fg if error else c.muted_fg
        body = render_answer(self._text, self._sources) if self._text else ""
        note = html.escape(text).replace("\n", "<br>")
        self.setHtml(f"{body}<p style='color:{color}'><i>{note}</i></p>")

    # -- sentences under the pointer ----------------------------------------------------------
    def sentence_at(self, position: int) -> int:
        starts = [r[0] for r in self._ranges]
        i = bisect_right(starts, position) - 1
        if i >= 0 and self._ranges[i][0] <= position < self._ranges[i][1]:
            return i
        return -1

    def sentence_range(self, index: int) -> tuple[int, int] | None:
        return self._ranges[index] if 0 <= index < len(self._ranges) else None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        super().mouseMoveEvent(event)
        index = self.sentence_at(self.cursorForPosition(event.position().toPoint()).position())
        self.hover_sentence(index)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        if self.anchorAt(event.position().toPoint()):
            return
        index = self.sentence_at(self.cursorForPosition(event.position().toPoint()).position())
        if index >= 0:
            self.click_sentence(index)

    def event(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.Leave:
            self.hover_sentence(-1)
        return super().event(e)

    def hover_sentence(self, index: int) -> None:
        if index != self._hovered:
            self._hovered = index
            self._paint_selections()
            self.sentence_hovered.emit(index)

    def click_sentence(self, index: int) -> None:
        self._pinned = index
        self._paint_selections()
        self.sentence_clicked.emit(index)

    def unsupported_indices(self) -> list[int]:
        """The claim sentences no passage backs, in answer order."""
        return [
            i
            for i, m in enumerate(self._marks)
            if m.kind != "meta" and not m.supported and self.sentence_range(i) is not None
        ]

    @Slot()
    def next_unsupported(self) -> int:
        """Select (as a click would) the next sentence no passage backs, after the selected
        one, wrapping round; scroll it into view. Returns its index, or -1 if there is none."""
        flagged = self.unsupported_indices()
        if not flagged:
            return -1
        index = next((i for i in flagged if i > self._pinned), flagged[0])
        span = self.sentence_range(index)
        if span is not None:
            cursor = QTextCursor(self.document())
            cursor.setPosition(span[0])
            self.setTextCursor(cursor)
            self.ensureCursorVisible()
        self.click_sentence(index)
        return index

    @property
    def pinned(self) -> int:
        """The sentence last clicked or stepped to (-1 for none)."""
        return self._pinned

    def _paint_selections(self) -> None:
        c = colors()
        selections = []
        for index, alpha in ((self._pinned, 120), (self._hovered, 70)):
            span = self.sentence_range(index)
            if span is None:
                continue
            sel = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.document())
            cursor.setPosition(span[0])
            cursor.setPosition(span[1], QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cursor
            color = QColor(c.strong_bg)
            color.setAlpha(alpha)
            sel.format.setBackground(color)
            sel.format.setProperty(QTextFormat.Property.FullWidthSelection, False)
            selections.append(sel)
        self.setExtraSelections(selections)

    @Slot(QUrl)
    def _on_anchor(self, url: QUrl) -> None:
        n = parse_cite(url.toString())
        if n is not None and 1 <= n <= self._sources:
            self.citation_clicked.emit(n)


def _take_sentinels(doc: QTextDocument) -> list[tuple[int, int]]:
    """Remove the sentence marks from ``doc``; the (start, end) each pair enclosed."""
    ranges: list[tuple[int, int]] = []
    pos = 0
    while True:
        found = doc.find(SENT_START, pos)
        if found.isNull():
            return ranges
        start = found.selectionStart()
        found.removeSelectedText()
        close = doc.find(SENT_END, start)
        if close.isNull():
            ranges.append((start, doc.characterCount() - 1))
            return ranges
        end = close.selectionStart()
        close.removeSelectedText()
        ranges.append((start, end))
        pos = end
