"""View-lane work: render a PDF/EPUB page with its character boxes, load text around a passage.

Images render as documents of one page (a TIFF's frames as pages). A scanned page's text and
boxes come from the OCR cache of the file's hash, the same words the indexer read, so its
passages highlight exactly as a text layer's do. Runs on one dedicated thread: PyMuPDF objects
are only ever touched from that thread.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QImage

from app.core.api import IMAGE_SUFFIXES
from app.ui.payloads import PageImage, PassageText

if TYPE_CHECKING:
    from app.core.api import Hit

PAGED = (".pdf", ".epub", *IMAGE_SUFFIXES)
CONTEXT_CHARS = 6000  # shown on each side of a passage in a text file
MAX_PIXELS = 5000  # longest side of a rendered page


def is_paged(path: str) -> bool:
    return path.lower().endswith(PAGED)


class PageLoader:
    """Keeps a few documents open (PyMuPDF) and page texts cached, for one thread's use."""

    def __init__(self, max_docs: int = 4, ocr_cache: str | None = None) -> None:
        self._docs: OrderedDict[tuple[str, int], Any] = OrderedDict()
        self._chars: OrderedDict[tuple[str, int, int], tuple[str, list[Any]]] = OrderedDict()
        self._hashes: OrderedDict[tuple[str, int], str] = OrderedDict()
        self._max_docs = max_docs
        self._ocr_cache = ocr_cache

    def _ocr_chars(self, path: str, page: int) -> tuple[str, list[Any]] | None:
        """The OCR'd text and word boxes of a scanned page, from the cache of the file's hash."""
        from app.core.api import bytes_hash, cached_page_chars, read_file

        if self._ocr_cache is None:
            return None
        key = (path, os.stat(path).st_mtime_ns)
        digest = self._hashes.get(key)
        if digest is None:
            digest = bytes_hash(read_file(path))
            self._hashes[key] = digest
            while len(self._hashes) > 64:
                self._hashes.popitem(last=False)
        return cached_page_chars(self._ocr_cache, digest, page)

    def _doc(self, path: str) -> Any:
        from app.core.api import open_paged

        key = (path, os.stat(path).st_mtime_ns)
        doc = self._docs.pop(key, None)
        if doc is None:
            doc = open_paged(path)
        self._docs[key] = doc
        while len(self._docs) > self._max_docs:
            _, old = self._docs.popitem(last=False)
            old.close()
        return doc

    def _page_chars(self, path: str, page: int) -> tuple[Any, str, list[Any]]:
        from app.core.api import pdf_page_chars

        doc = self._doc(path)
        if not 1 <= page <= doc.page_count:
            raise ValueError(f"page {page} is outside the document (1–{doc.page_count})")
        key = (path, os.stat(path).st_mtime_ns, page)
        cached = self._chars.pop(key, None)
        pg = doc.load_page(page - 1)
        if cached is None:
            from app.core.api import usable_text

            cached = pdf_page_chars(pg)
            if not usable_text(cached[0]):
                cached = self._ocr_chars(path, page) or cached
        self._chars[key] = cached
        while len(self._chars) > 16:
            self._chars.popitem(last=False)
        return pg, cached[0], cached[1]

    def render(self, token: int, path: str, page: int, zoom: float) -> PageImage:
        """The page as an image at ``zoom`` (1.0 = 72 dpi) plus the page text's glyph boxes."""
        import pymupdf

        try:
            pg, text, boxes = self._page_chars(path, page)
            rect = pg.rect
            zoom = min(zoom, MAX_PIXELS / max(rect.width, rect.height, 1.0))
            pix = pg.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
            fmt = QImage.Format.Format_RGB888
            image = QImage(pix.samples, pix.width, pix.height, pix.stride, fmt).copy()
            count = self._doc(path).page_count
        except Exception as exc:  # a damaged or vanished file: say so in the view
            return PageImage(token, path, page, 0, zoom, None, 0, 0, [], "", _reason(exc))
        return PageImage(
            token, path, page, count, zoom, image, rect.width, rect.height, boxes, text
        )

    def passage(self, token: int, hit: Hit) -> PassageText:
        """The text around ``hit`` (the whole page for PDFs), checked against the stored text."""
        try:
            if hit.page is not None and is_paged(hit.path):
                _, full, _ = self._page_chars(hit.path, hit.page)
            else:
                from app.core.api import load_document

                doc = load_document(hit.path)
                full = doc.pages[0].text if doc.pages else ""
        except Exception as exc:
            return PassageText(token, hit.path, hit.page, "", 0, False, _reason(exc))
        matches = full[hit.start : hit.end] == hit.text
        if not matches:
            return PassageText(token, hit.path, hit.page, hit.text, hit.start, False)
        lo = max(0, hit.start - CONTEXT_CHARS)
        hi = min(len(full), hit.end + CONTEXT_CHARS)
        if lo > 0:
            nl = full.find("\n", lo, hit.start)
            lo = nl + 1 if nl >= 0 else lo
        if hi < len(full):
            nl = full.rfind("\n", hit.end, hi)
            hi = nl if nl >= 0 else hi
        return PassageText(token, hit.path, hit.page, full[lo:hi], lo, True)

    def close(self) -> None:
        for doc in self._docs.values():
            doc.close()
        self._docs.clear()
        self._chars.clear()


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    if isinstance(reason, str):
        return f"This file cannot be shown: {reason}."
    if isinstance(exc, FileNotFoundError):
        return "This file no longer exists; it will leave the index at the next sync."
    if isinstance(exc, PermissionError):
        return "This file cannot be read any more (permission denied)."
    return f"This file cannot be shown: {exc}"


def merge_boxes(boxes: list[Any], start: int, end: int) -> list[tuple[float, float, float, float]]:
    """One rectangle per run of glyphs on a line, for characters ``start:end`` of the page."""
    rects: list[list[float]] = []
    for box in boxes[max(0, start) : max(0, end)]:
        if box is None:
            continue
        x0, y0, x1, y1 = box
        if x1 <= x0 or y1 <= y0:
            continue
        if rects:
            r = rects[-1]
            height = max(r[3] - r[1], y1 - y0)
            same_line = abs(y0 - r[1]) < height * 0.5 and x0 >= r[2] - height
            if same_line:
                r[0], r[1] = min(r[0], x0), min(r[1], y0)
                r[2], r[3] = max(r[2], x1), max(r[3], y1)
                continue
        rects.append([x0, y0, x1, y1])
    return [(r[0], r[1], r[2], r[3]) for r in rects]
