"""Small widgets shared by the windows: plain-text labels, the verdict banner, the error bar."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QEvent, QSize, Qt, Signal, Slot
from PySide6.QtGui import QFontMetrics, QKeyEvent, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QStyle,
    QStyleOptionButton,
    QStylePainter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.api import CHECKING, Level, Verdict
from app.core.wording import display_path
from app.ui.theme import colors


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A QLabel that never interprets its text as HTML (file names and passages are data)."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


_NAME_PARTS = re.compile(r"[_\-\s./]+")  # where the words of a file's name or path meet
_MIN_HEAD = 4  # characters of a name's start kept when its end is kept whole


def elide_name(name: str, metrics: QFontMetrics, width: int) -> str:
    """``name`` as it fits ``width``: elided in the middle, keeping whole the last words and
    the extension that tell a file from its siblings ("ULTA…EARNINGS.pdf", not
    "ULTABE…GS.pdf") when they fit with a start; else Qt's middle elision."""
    if metrics.horizontalAdvance(name) <= width:
        return name
    stem_end = name.rfind(".") if "." in name[1:] else len(name)
    for m in _NAME_PARTS.finditer(name, 1, max(stem_end, 1)):  # the longest tail that fits
        tail = name[m.end() :]
        if not tail:
            continue
        rest = width - metrics.horizontalAdvance("…" + tail)
        head = metrics.elidedText(name[: m.start()], Qt.TextElideMode.ElideRight, rest)
        if len(head) - 1 >= _MIN_HEAD and head.endswith("…"):
            return head + tail
    return metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, max(width, 0))


class ElidedLabel(QLabel):
    """One line of plain text that never widens its pane: what does not fit is elided
    (in the middle by default, keeping a file's last words and extension: ``elide_name``)
    and the whole text is the tooltip."""

    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle,
    ) -> None:
        super().__init__(parent)
        self.mode = mode
        self.tail = ""  # the end that is never elided ("  ·  page 2"), see ``set_parts``
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def set_parts(self, text: str, tail: str) -> None:
        """Show ``text`` then ``tail``, eliding only ``text`` (a file's name, its page kept)."""
        self.tail = tail
        self.setText(text + tail)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(min(hint.width(), 240), hint.height())

    def shown_text(self) -> str:
        """The text as drawn at the label's current width (elided when it does not fit)."""
        width = self.contentsRect().width()
        fm = self.fontMetrics()
        text, tail = self.text(), self.tail if self.text().endswith(self.tail) else ""
        if tail and fm.horizontalAdvance(text) > width:
            head = text[: len(text) - len(tail)]
            return self._elided(head, width - fm.horizontalAdvance(tail)) + tail
        return self._elided(text, width)

    def _elided(self, text: str, width: int) -> str:
        if self.mode == Qt.TextElideMode.ElideMiddle:
            return elide_name(text, self.fontMetrics(), max(width, 0))
        return self.fontMetrics().elidedText(text, self.mode, max(width, 0))

    def setText(self, text: str) -> None:
        super().setText(text)
        self._sync_tip()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._sync_tip()

    def _sync_tip(self) -> str:
        """The whole text as the tooltip when it is elided at the current width (set when
        the text or the width changes, not only when painted: a label not yet repainted
        still explains itself on hover); the text as drawn."""
        shown = self.shown_text()
        tip = tooltip(self.text()) if shown != self.text() else ""
        if tip != self.toolTip():
            self.setToolTip(tip)
        return shown

    def paintEvent(self, event: QPaintEvent) -> None:
        shown = self._sync_tip()
        painter = QPainter(self)
        self.style().drawItemText(
            painter,
            self.contentsRect(),
            int(self.alignment()),
            self.palette(),
            self.isEnabled(),
            shown,
            self.foregroundRole(),
        )


class ElidedButton(QPushButton):
    """A push button whose long label (a suggested question) is elided to the button's width
    rather than widening its pane; ``text()`` stays whole and is the tooltip when cut."""

    MIN_WIDTH = 120

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self.MIN_WIDTH), hint.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        option = QStyleOptionButton()
        self.initStyleOption(option)
        style = self.style()
        room = style.subElementRect(QStyle.SubElement.SE_PushButtonContents, option, self)
        shown = self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideRight, max(room.width() - 8, 0)
        )
        tip = tooltip(self.text()) if shown != self.text() else ""
        if tip != self.toolTip():
            self.setToolTip(tip)
        option.text = shown
        QStylePainter(self).drawControl(QStyle.ControlElement.CE_PushButton, option)


def tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally: Qt would render HTML-looking tooltips."""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"


class Banner(QFrame):
    """The verdict line under the question, one look per level of the answer's verdict.

    While the answer streams it only says the answer is being checked (never green); once
    the answer is complete it shows the verdict: ``supported`` a quiet green line,
    ``partly_supported`` amber with how many sentences are not backed and a button to step
    through them, ``unsupported`` large and red, ``no_answer`` neutral.
    """

    next_unsupported_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("verdictBanner")
        self.title = plain_label()
        self.title.setObjectName("bannerTitle")
        self.title.setWordWrap(True)
        self.reason = plain_label()
        self.reason.setObjectName("bannerReason")
        self.reason.setWordWrap(True)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.next_button = QPushButton("Next unsupported")
        self.next_button.setObjectName("nextUnsupported")
        self.next_button.setToolTip("Show the next sentence no passage backs (F8)")
        self.next_button.setShortcut("F8")
        self.next_button.clicked.connect(self.next_unsupported_requested)
        self.next_button.hide()
        text = QVBoxLayout()
        text.setSpacing(2)
        text.addWidget(self.title)
        text.addWidget(self.reason)
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 8, 14, 8)
        row.addLayout(text, 1)
        row.addWidget(self.next_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.supported: bool | None = None  # True only under a green "supported"
        self.level: str | None = None  # a verdict level, "checking", or None when hidden
        self.verdict: Verdict | None = None
        self.brief = False
        self.hide()

    def show_checking(self, note: str = "") -> None:
        """The answer is still coming: say it is being checked, in neutral colours."""
        self.supported, self.level, self.verdict = None, "checking", None
        c = colors()
        self.setProperty("verdict", "checking")
        self.title.setText(CHECKING)
        self.title.setStyleSheet(f"color:{c.muted_fg}; font-weight:600;")
        self.setStyleSheet("")
        self._reason(note, c.muted_fg)
        self.next_button.hide()
        self.show()

    def show_verdict(self, verdict: Verdict, *, brief: bool = False) -> None:
        """Show the verdict on the finished answer; ``brief``: without the reason of an answer
        that did not come back (an error bar beside it already says why)."""
        self.supported, self.level, self.verdict = verdict.supported, verdict.level, verdict
        self.brief = brief
        c = colors()
        self.setProperty("verdict", verdict.level.value)
        level = verdict.level
        if level is Level.SUPPORTED:
            self.title.setText(f"✓  {verdict.title}")
            self.title.setStyleSheet(f"color:{c.ok_fg}; font-weight:600;")
            self.setStyleSheet("")
            self._reason(verdict.reason, c.muted_fg)
        elif level is Level.PARTLY:
            self.title.setText(f"⚠  {verdict.title}")
            self.title.setStyleSheet(f"color:{c.warn_fg}; font-weight:700; font-size:13pt;")
            self.setStyleSheet(
                f"#verdictBanner {{ border:1px solid {c.border};"
                f" border-left:6px solid {c.warn_fg}; border-radius:6px; }}"
            )
            self._reason(verdict.reason, c.warn_fg)
        elif level is Level.UNSUPPORTED:
            self.title.setText(f"⚠  {verdict.title}")
            self.title.setStyleSheet(f"color:{c.banner_fg}; font-weight:700; font-size:15pt;")
            self.setStyleSheet(
                f"#verdictBanner {{ background:{c.banner_bg}; border:1px solid {c.banner_border};"
                f" border-left:6px solid {c.unsupported_line}; border-radius:6px; }}"
            )
            self._reason(verdict.reason, c.banner_fg)
        else:  # no_answer: neither an endorsement nor a failure
            self.title.setText(verdict.title)
            self.title.setStyleSheet(f"color:{c.muted_fg}; font-weight:600;")
            self.setStyleSheet(
                f"#verdictBanner {{ border:1px solid {c.border}; border-radius:6px; }}"
            )
            self._reason("" if brief and verdict.failed else verdict.reason, c.muted_fg)
        self.next_button.setVisible(level != "supported" and verdict.unsupported_sentences > 0)
        self.show()

    def _reason(self, text: str, color: str) -> None:
        self.reason.setText(text)
        self.reason.setStyleSheet(f"color:{color};")
        self.reason.setVisible(bool(text))

    def clear(self) -> None:
        self.supported, self.level, self.verdict = None, None, None
        self.next_button.hide()
        self.hide()


class ErrorBar(QFrame):
    """A dismissible message bar for errors: they belong in the window, not only a terminal.

    An error a person can fix from here carries a button (``action_requested``), e.g. pulling
    a model when none is installed.
    """

    dismissed = Signal()
    action_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBar")
        self.message = plain_label()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.action = QPushButton()
        self.action.setObjectName("errorAction")
        self.action.clicked.connect(self.action_requested)
        self.action.hide()
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.clicked.connect(self._dismiss)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 6, 6, 6)
        row.addWidget(self.message, 1)
        row.addWidget(self.action, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(self, text: str, action: str | None = None) -> None:
        """Show ``text``; with ``action``, a button of that name beside it."""
        c = colors()
        self.setStyleSheet(
            f"#errorBar {{ background:{c.error_bg}; border:1px solid {c.border};"
            f" border-radius:6px; }} QLabel {{ color:{c.error_fg}; }}"
        )
        self.message.setText(text)
        self.action.setText(action or "")
        self.action.setVisible(bool(action))
        self.show()

    @Slot()
    def _dismiss(self) -> None:
        self.hide()
        self.dismissed.emit()


# Window shortcuts a line edit would otherwise take for itself (Ctrl+E: end of line).
_WINDOW_KEYS = frozenset({Qt.KeyboardModifier.ControlModifier | Qt.Key.Key_E})


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

    def event(self, event: QEvent) -> bool:
        """Let the window's own shortcuts through (Ctrl+E exports the thread; a line edit
        would move the cursor to the end instead)."""
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.keyCombination() in _WINDOW_KEYS
        ):
            event.ignore()
            return False
        return super().event(event)

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
