"""A PDF/EPUB page rendered by PyMuPDF with the passage's glyph boxes highlighted; zoom, pages."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QImage, QKeySequence, QPainter, QPaintEvent, QPen, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.page_loader import merge_boxes
from app.ui.payloads import PageImage
from app.ui.theme import colors
from app.ui.widgets import plain_label

if TYPE_CHECKING:
    from app.ui.service import Service

ZOOMS = (0.5, 0.67, 0.8, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0)
Rect = tuple[float, float, float, float]


class PageCanvas(QWidget):
    """Paints the page image and, over it, the passage (yellow) and the strong span (orange)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.image: QImage | None = None
        self.zoom = 1.0  # display zoom: widget pixels per PDF point
        self.page_size = (612.0, 792.0)
        self.passage: list[Rect] = []
        self.strong: list[Rect] = []

    def sizeHint(self) -> QSize:
        return QSize(int(self.page_size[0] * self.zoom), int(self.page_size[1] * self.zoom))

    def set_zoom(self, zoom: float) -> None:
        self.zoom = zoom
        self.setFixedSize(self.sizeHint())
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        target = QRectF(0, 0, self.width(), self.height())
        painter.fillRect(target, QColor("white"))
        if self.image is not None:
            painter.drawImage(target, self.image)
        c = colors()
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Multiply)
        for rects, color in ((self.passage, "#ffe55c"), (self.strong, "#ffa040")):
            for r in rects:
                painter.fillRect(self._scaled(r, pad=1.0), QColor(color))
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
        if self.strong:
            painter.setPen(QPen(QColor(c.strong_border), 1.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            for r in self.strong:
                painter.drawRect(self._scaled(r, pad=1.5))
        painter.end()

    def _scaled(self, r: Rect, pad: float) -> QRectF:
        z = self.zoom
        top_left = QPointF(r[0] * z - pad, r[1] * z - pad)
        return QRectF(top_left, QPointF(r[2] * z + pad, r[3] * z + pad))

    def first_highlight(self) -> QRectF | None:
        rects = self.strong or self.passage
        return self._scaled(rects[0], 0) if rects else None


class PdfView(QWidget):
    """Toolbar (pages, zoom) over a scrollable page; renders in the service's view lane."""

    page_changed = Signal(int)

    def __init__(self, service: Service, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.path = ""
        self.page = 0
        self.page_count = 0
        self.hit_page = 0
        self.passage_range: tuple[int, int] | None = None
        self.strong_ranges: list[tuple[int, int]] = []
        self.boxes: list[tuple[float, float, float, float] | None] = []
        self.zoom = 0.0  # 0: fit width on the next render
        self._token = 0
        self._scroll_pending = False
        self.canvas = PageCanvas()
        self.scroller = QScrollArea()
        self.scroller.setWidget(self.canvas)
        self.scroller.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.scroller.setObjectName("pageScroll")
        self.message = plain_label()
        self.message.setWordWrap(True)
        self.message.hide()
        self._build_toolbar()
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        box.addLayout(self.toolbar)
        box.addWidget(self.message)
        box.addWidget(self.scroller, 1)
        self._zoom_timer = QTimer(self)
        self._zoom_timer.setSingleShot(True)
        self._zoom_timer.setInterval(120)
        self._zoom_timer.timeout.connect(self._request)
        service.page_rendered.connect(self._on_rendered)
        for key, slot in (
            (Qt.Key.Key_PageUp, self.previous_page),
            (Qt.Key.Key_PageDown, self.next_page),
        ):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)

    def _build_toolbar(self) -> None:
        def button(text: str, tip: str) -> QToolButton:
            b = QToolButton()
            b.setText(text)
            b.setToolTip(tip)
            b.setAutoRaise(True)
            return b

        self.prev_button = button("◀", "Previous page (Page Up)")
        self.next_button = button("▶", "Next page (Page Down)")
        self.page_box = QSpinBox()
        self.page_box.setMinimum(1)
        self.page_box.setKeyboardTracking(False)
        self.page_box.setAccessibleName("Page")
        self.count_label = QLabel("/ 0")
        self.zoom_out_button = button("−", "Zoom out (Ctrl+-)")
        self.zoom_label = QLabel("100%")
        self.zoom_label.setMinimumWidth(44)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.zoom_in_button = button("+", "Zoom in (Ctrl++)")
        self.fit_button = button("Fit width", "Zoom to the width of the view")
        self.prev_button.clicked.connect(self.previous_page)
        self.next_button.clicked.connect(self.next_page)
        self.page_box.valueChanged.connect(self._on_page_box)
        self.zoom_in_button.clicked.connect(self.zoom_in)
        self.zoom_out_button.clicked.connect(self.zoom_out)
        self.fit_button.clicked.connect(self.fit_width)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        for w in (self.prev_button, self.page_box, self.count_label, self.next_button):
            row.addWidget(w)
        row.addStretch(1)
        for w in (self.zoom_out_button, self.zoom_label, self.zoom_in_button, self.fit_button):
            row.addWidget(w)
        self.toolbar = row

    # -- showing ---------------------------------------------------------------------------
    def show_passage(self, path: str, page: int, start: int, end: int) -> None:
        """Render ``page`` of ``path`` with characters ``start:end`` of its text highlighted."""
        if path != self.path:  # another file: nothing of the last one's pages applies
            self.zoom = 0.0
            self.boxes = []
            self.page_count = 0
            self.page_box.setMaximum(max(1, page))
        self.path, self.hit_page = path, page
        self.passage_range = (start, end)
        self.strong_ranges = []
        self._scroll_pending = True
        self.go_to(page)

    def set_strong(self, ranges: list[tuple[int, int]]) -> None:
        """Highlight these page-text ranges more strongly (the hovered sentence's support)."""
        self.strong_ranges = ranges
        self._update_rects()
        if ranges and self.page == self.hit_page:
            self._scroll_to_highlight()

    def go_to(self, page: int) -> None:
        if not self.path:
            return
        if self.page_count:
            page = max(1, min(page, self.page_count))
        self.page = page
        self.page_box.blockSignals(True)
        self.page_box.setValue(page)
        self.page_box.blockSignals(False)
        self._request()

    @Slot()
    def _request(self) -> None:
        self._token = self.service.new_token()
        zoom = self.zoom or 1.0
        self.service.render_page(self._token, self.path, self.page, zoom * self.devicePixelRatioF())

    @Slot(object)
    def _on_rendered(self, img: PageImage) -> None:
        if img.token != self._token:
            return  # a newer page or zoom was asked for
        if img.error or img.image is None:
            self.message.setText(img.error or "This page could not be rendered.")
            self.message.show()
            self.canvas.image = None
            self.canvas.update()
            return
        self.message.hide()
        self.page_count = img.page_count
        self.page_box.setMaximum(max(1, img.page_count))
        self.count_label.setText(f"/ {img.page_count}")
        self.canvas.page_size = (img.width_pt, img.height_pt)
        image: QImage = img.image
        image.setDevicePixelRatio(self.devicePixelRatioF())
        self.canvas.image = image
        self.boxes = img.boxes
        if not self.zoom:
            self.zoom = self._fit_zoom()
            self.canvas.set_zoom(self.zoom)
            self._update_zoom_label()
            self._request()  # re-render sharp at the fitted zoom
        else:
            self.canvas.set_zoom(self.zoom)
        self._update_rects()
        self.prev_button.setEnabled(self.page > 1)
        self.next_button.setEnabled(self.page < self.page_count)
        if self._scroll_pending and self.page == self.hit_page:
            self._scroll_pending = False
            self._scroll_to_highlight()

    def _update_rects(self) -> None:
        on_page = self.page == self.hit_page
        r = self.passage_range
        self.canvas.passage = merge_boxes(self.boxes, *r) if (on_page and r) else []
        strong: list[Rect] = []
        if on_page:
            for s, e in self.strong_ranges:
                strong += merge_boxes(self.boxes, s, e)
        self.canvas.strong = strong
        self.canvas.update()

    def _scroll_to_highlight(self) -> None:
        rect = self.canvas.first_highlight()
        if rect is not None:
            margin = max(40, self.scroller.viewport().height() // 3)
            self.scroller.ensureVisible(int(rect.center().x()), int(rect.top()), 40, margin)

    # -- navigation and zoom ---------------------------------------------------------------
    @Slot()
    def previous_page(self) -> None:
        if self.page > 1:
            self.go_to(self.page - 1)
            self.page_changed.emit(self.page)

    @Slot()
    def next_page(self) -> None:
        if self.page < self.page_count:
            self.go_to(self.page + 1)
            self.page_changed.emit(self.page)

    @Slot(int)
    def _on_page_box(self, value: int) -> None:
        if value != self.page:
            self.go_to(value)
            self.page_changed.emit(value)

    def _fit_zoom(self) -> float:
        width = self.scroller.viewport().width() - 24
        return max(ZOOMS[0], min(ZOOMS[-1], width / max(self.canvas.page_size[0], 1.0)))

    def set_zoom(self, zoom: float) -> None:
        self.zoom = max(ZOOMS[0], min(ZOOMS[-1], zoom))
        self.canvas.set_zoom(self.zoom)  # scaled at once, re-rendered sharp shortly after
        self._update_zoom_label()
        self._zoom_timer.start()

    def _update_zoom_label(self) -> None:
        self.zoom_label.setText(f"{self.zoom:.0%}")

    @Slot()
    def zoom_in(self) -> None:
        current = self.zoom or 1.0
        self.set_zoom(next((z for z in ZOOMS if z > current + 0.01), ZOOMS[-1]))

    @Slot()
    def zoom_out(self) -> None:
        current = self.zoom or 1.0
        self.set_zoom(next((z for z in reversed(ZOOMS) if z < current - 0.01), ZOOMS[0]))

    @Slot()
    def fit_width(self) -> None:
        self.set_zoom(self._fit_zoom())
