"""Small widgets shared by the windows: plain-text labels, the verdict banner, the error bar."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.text import display_path
from app.ui.theme import colors


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A QLabel that never interprets its text as HTML (file names and passages are data)."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally: Qt would render HTML-looking tooltips."""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"


class Banner(QFrame):
    """The verdict line under the question: a loud 'Unsupported by your files' or a quiet OK."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("verdictBanner")
        self.title = plain_label()
        self.title.setObjectName("bannerTitle")
        self.reason = plain_label()
        self.reason.setObjectName("bannerReason")
        self.reason.setWordWrap(True)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box = QVBoxLayout(self)
        box.setContentsMargins(14, 8, 14, 8)
        box.setSpacing(2)
        box.addWidget(self.title)
        box.addWidget(self.reason)
        self.supported: bool | None = None
        self.hide()

    def show_verdict(self, supported: bool, reason: str, score: float) -> None:
        """Show the verdict; unsupported is large and red, supported a single quiet line."""
        self.supported = supported
        c = colors()
        if supported:
            self.setProperty("verdict", "ok")
            self.title.setText(f"✓  Supported by your files  ·  {score:.0%} confidence")
            self.title.setStyleSheet(f"color:{c.ok_fg}; font-weight:600;")
            self.setStyleSheet("")
        else:
            self.setProperty("verdict", "unsupported")
            self.title.setText("⚠  Unsupported by your files")
            self.title.setStyleSheet(f"color:{c.banner_fg}; font-weight:700; font-size:15pt;")
            self.setStyleSheet(
                f"#verdictBanner {{ background:{c.banner_bg}; border:1px solid {c.banner_border};"
                f" border-left:6px solid {c.unsupported_line}; border-radius:6px; }}"
            )
        self.reason.setText(reason)
        self.reason.setStyleSheet(f"color:{c.banner_fg if not supported else c.muted_fg};")
        self.reason.setVisible(bool(reason))
        self.show()

    def clear(self) -> None:
        self.supported = None
        self.hide()


class ErrorBar(QFrame):
    """A dismissible message bar for errors: they belong in the window, not only a terminal."""

    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBar")
        self.message = plain_label()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.clicked.connect(self._dismiss)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 6, 6, 6)
        row.addWidget(self.message, 1)
        row.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(self, text: str) -> None:
        c = colors()
        self.setStyleSheet(
            f"#errorBar {{ background:{c.error_bg}; border:1px solid {c.border};"
            f" border-radius:6px; }} QLabel {{ color:{c.error_fg}; }}"
        )
        self.message.setText(text)
        self.show()

    @Slot()
    def _dismiss(self) -> None:
        self.hide()
        self.dismissed.emit()


class QuestionBox(QLineEdit):
    """The question field: Enter asks, Esc cancels, Up/Down walk through earlier questions."""

    ask_requested = Signal(str)
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None, history_size: int = 100) -> None:
        super().__init__(parent)
        self.setObjectName("questionBox")
        self.setClearButtonEnabled(True)
        self.setAcceptDrops(False)  # drops go to the window: folders are watched, files indexed
        self.history: list[str] = []
        self._size = history_size
        self._pos = 0
        self._draft = ""
        self.returnPressed.connect(self._on_return)

    def set_history(self, items: list[str]) -> None:
        self.history = [q for q in items if q][-self._size :]
        self._pos = len(self.history)

    def remember(self, question: str) -> None:
        if question in self.history:
            self.history.remove(question)
        self.history.append(question)
        self.history = self.history[-self._size :]
        self._pos = len(self.history)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key == Qt.Key.Key_Escape:
            self.cancel_requested.emit()
        elif key == Qt.Key.Key_Up and self.history:
            if self._pos == len(self.history):
                self._draft = self.text()
            self._pos = max(0, self._pos - 1)
            self.setText(self.history[self._pos])
        elif key == Qt.Key.Key_Down and self._pos < len(self.history):
            self._pos += 1
            self.setText(self.history[self._pos] if self._pos < len(self.history) else self._draft)
        else:
            super().keyPressEvent(event)

    @Slot()
    def _on_return(self) -> None:
        question = self.text().strip()
        if question:
            self.remember(question)
            self.ask_requested.emit(question)


def shown_path(path: str) -> str:
    """A path as text Qt can hold (U+FFFD for bytes that are not UTF-8)."""
    return display_path(path)
