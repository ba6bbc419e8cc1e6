"""The sources list: a model over the retrieved passages and a delegate that draws each one."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractListModel,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from app.core.wording import gist
from app.ui.theme import colors
from app.ui.widgets import elide_name, shown_path, tooltip

if TYPE_CHECKING:
    from app.core.api import Hit
    from app.ui.ask_session import SourceUsage

RowRole = Qt.ItemDataRole.UserRole + 1
NARROW_ROW = 300  # below this a row drops its similarity bar, so the name and page fit
Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class SourceRow:
    """One retrieved passage as listed: number, hit, and how the answer used it."""

    n: int
    hit: Hit
    sent: bool = True  # given to the model (False: a weaker match, or over the prompt's budget)
    read_in_part: bool = False  # the model read only part of it (an excerpt, or cut to fit)
    cited: int = 0  # answer sentences citing it
    supports: int = 0  # answer sentences whose support span lies in it
    answered: bool = False  # the answer is finished, so the marks are final
    weak: bool = False  # the verdict is "unsupported": backing sentences earns no green check

    @property
    def name(self) -> str:
        return os.path.basename(shown_path(self.hit.path))

    @property
    def gist(self) -> str:
        """What tells this passage from others of the same file or page: its first words
        (its folder and section are in the tooltip); thirty words of a script written without
        spaces, not its whole first paragraph."""
        return gist(self.hit.text)

    def mark(self) -> tuple[str, str]:
        """(text, colour name) of the support mark."""
        if not self.sent:
            return "not sent to the model", "muted_fg"
        if not self.answered:
            return "", "muted_fg"
        if self.supports:
            s = "sentence" if self.supports == 1 else "sentences"
            if self.weak:  # the passage repeats them, but may not answer the question
                return f"repeats {self.supports} {s}; may not answer the question", "warn_fg"
            return f"✓ supports {self.supports} {s}", "ok_fg"
        if self.cited:
            return "cited, but no supporting span found", "warn_fg"
        return "not used in the answer", "muted_fg"


def usage_row(row: SourceRow, usage: SourceUsage) -> SourceRow:
    """``row`` marked with how the finished answer used it."""
    return replace(
        row,
        sent=row.n <= usage.sent,
        read_in_part=row.n in usage.read_in_part,
        cited=usage.cited.get(row.n, 0),
        supports=usage.supports.get(row.n, 0),
        answered=True,
        weak=usage.weak,
    )


def fit_name(name: str, metrics: QFontMetrics, page_width: int, width: int) -> str:
    """A file's name as it fits ``width`` beside its page, which is never cut (see
    ``widgets.elide_name``: "ULTA…EARNINGS.pdf", not "ULTABE…GS.pdf")."""
    return elide_name(name, metrics, max(0, width - page_width))


def short_folder(folder: str) -> str:
    home = str(Path.home())
    if folder == home or folder.startswith(home + os.sep):
        return "~" + folder[len(home) :]
    return folder


class SourcesModel(QAbstractListModel):
    """Rows of SourceRow; the Qt side presents them, nothing more."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[SourceRow] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"[{row.n}] {row.name}"
        if role == Qt.ItemDataRole.ToolTipRole:
            where = shown_path(row.hit.path) + (f"\npage {row.hit.page}" if row.hit.page else "")
            if row.hit.heading:
                where += f"\nsection: {row.hit.heading}"
            if row.hit.dense_score is not None:  # what the bar on the right shows
                where += f"\nsimilarity to the question: {row.hit.dense_score:.2f}"
            if row.read_in_part:
                where += "\nthe model read only part of it"
            return tooltip(where)
        if role == RowRole:
            return row
        return None

    def set_hits(self, hits: list[Hit]) -> None:
        self.beginResetModel()
        ordered = sorted(hits, key=lambda h: h.rank)
        self.rows = [SourceRow(i + 1, h) for i, h in enumerate(ordered)]
        self.endResetModel()

    def set_usage(self, usage: SourceUsage) -> None:
        """After the answer: how many sources reached the model, and which sentences use each
        (under an "unsupported" verdict no source earns a green check)."""
        self.rows = [usage_row(r, usage) for r in self.rows]
        if self.rows:
            self.dataChanged.emit(self.index(0), self.index(len(self.rows) - 1))

    def hit(self, n: int) -> Hit | None:
        return self.rows[n - 1].hit if 1 <= n <= len(self.rows) else None


class SourceDelegate(QStyledItemDelegate):
    """Draws file name, page, folder, a score bar and the support mark."""

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        h = option.fontMetrics.height()
        return QSize(280, 2 * h + 18)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        row: SourceRow = index.data(RowRole)
        c = colors()
        painter.save()
        style = option.widget.style() if option.widget else None
        if style is not None:
            style.drawPrimitive(
                QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, option.widget
            )
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        pal = option.palette
        text_color = pal.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        )
        muted = text_color if selected else QColor(c.muted_fg)
        r = option.rect.adjusted(10, 7, -10, -7)
        fm = option.fontMetrics
        line = fm.height()
        bar_w = 64 if r.width() >= NARROW_ROW else 0  # a narrow row gives its bar to the name
        left = QRect(r.left(), r.top(), r.width() - bar_w - (12 if bar_w else 0), line)

        bold = QFont(option.font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(QColor(c.link) if not selected else text_color)
        tag = f"[{row.n}]"
        painter.drawText(left, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, tag)
        tag_w = painter.fontMetrics().horizontalAdvance(tag + " ")
        painter.setPen(text_color)
        page = f"  ·  p. {row.hit.page}" if row.hit.page else ""
        name_rect = left.adjusted(tag_w, 0, 0, 0)
        bold_fm = painter.fontMetrics()
        name = fit_name(row.name, bold_fm, fm.horizontalAdvance(page), name_rect.width())
        painter.drawText(
            name_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, name
        )
        name_w = bold_fm.horizontalAdvance(name)
        painter.setFont(option.font)
        if page:
            painter.setPen(muted)
            after = name_rect.adjusted(name_w, 0, 0, 0)
            align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
            painter.drawText(after, align, page)

        second = QRect(r.left(), r.top() + line + 4, r.width(), line)
        mark, mark_color = row.mark()
        mark_w = fm.horizontalAdvance(mark) + 8 if mark else 0
        painter.setPen(muted)
        gist = fm.elidedText(
            row.gist, Qt.TextElideMode.ElideRight, max(20, second.width() - mark_w - 8)
        )
        painter.drawText(second, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, gist)
        if mark:
            painter.setPen(text_color if selected else QColor(getattr(c, mark_color)))
            painter.drawText(
                second, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, mark
            )

        if not bar_w:
            painter.restore()
            return
        score = row.hit.dense_score if row.hit.dense_score is not None else 0.0
        value = max(0.0, min(1.0, score))
        track = QRect(r.right() - bar_w, r.top() + line // 2 - 3, bar_w, 6)
        painter.setPen(Qt.PenStyle.NoPen)
        track_color = QColor(text_color if selected else QColor(c.score_track))
        if selected:  # on the selection colour: a faint track, the bar in the text colour
            track_color.setAlphaF(0.3)
        painter.setBrush(track_color)
        painter.drawRoundedRect(track, 3, 3)
        painter.setBrush(text_color if selected else QColor(c.score_bar))
        painter.drawRoundedRect(QRect(track.left(), track.top(), int(bar_w * value), 6), 3, 3)
        painter.restore()


class SourcesPanel(QListView):
    """The list of sources; selecting one (or clicking a citation) shows its passage."""

    source_selected = Signal(int)
    open_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sourcesPanel")
        self.model_ = SourcesModel(self)
        self.setModel(self.model_)
        self.setItemDelegate(SourceDelegate(self))
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setUniformItemSizes(True)
        self.setMouseTracking(True)
        self.selectionModel().currentChanged.connect(self._on_current)
        self.activated.connect(self._on_activated)

    def set_hits(self, hits: list[Hit]) -> None:
        self.model_.set_hits(hits)

    def select(self, n: int) -> None:
        if 1 <= n <= self.model_.rowCount():
            index = self.model_.index(n - 1)
            self.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            )
            self.scrollTo(index)

    def current(self) -> int:
        index = self.currentIndex()
        return index.row() + 1 if index.isValid() else 0

    @Slot(QModelIndex, QModelIndex)
    def _on_current(self, current: QModelIndex, previous: QModelIndex) -> None:
        if current.isValid():
            self.source_selected.emit(current.row() + 1)

    @Slot(QModelIndex)
    def _on_activated(self, index: QModelIndex) -> None:
        self.open_requested.emit(index.row() + 1)
