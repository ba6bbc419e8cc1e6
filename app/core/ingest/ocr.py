"""OCR of scanned pages: Tesseract through PyMuPDF, word boxes kept, results cached by file hash.

A page needs OCR when it shows images but has no usable text layer (no text, or text that is
mostly not letters and digits). OCR gives words with boxes in page coordinates; the page text is
built from them by fixed rules (words joined by a space, lines by "\\n", blocks by "\\n\\n"), so
``ocr_page_chars(words)`` maps every character offset back to a box, as ``pdf_page_chars`` does
for a text layer. Results are stored per file hash in the data directory, so a renamed, moved or
re-synced file is never OCR'd again, and the viewer highlights from the same words.

Why Tesseract (via PyMuPDF, which links it) over RapidOCR's PP-OCR models: measured here on
filing and manual pages it read 96.8% of characters at 150 and 300 dpi in ~1.5 s a page, while
RapidOCR read 92.6% in ~11 s a page (bench/bench_ocr.py); and a desktop build carries only the
4 MB ``eng.traineddata`` (PyMuPDF already ships the engine) instead of OpenCV and ONNX models.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from app.core.ingest.failures import FailureKind, LoadError
from app.core.ingest.pdftext import BLOCK_SEP, LINE_SEP, BBox, clean

if TYPE_CHECKING:
    import pymupdf

ENGINE = "tesseract-eng-2"  # part of the cache's identity: a new engine or model reads again
DPI = 300
MAX_OCR_PIXELS = 40_000_000  # a page is rendered for OCR at no more than this many pixels
IMAGE_DPI = 96  # an image page is 0.75 point per pixel: 96 dpi renders it pixel for pixel
SMALL_IMAGE_PX = 1600  # an image whose longest side is shorter is OCR'd at twice its size
MIN_TEXT_CHARS = 16  # letters and digits below which a page's text layer is not usable
_LEADERS = re.compile(r"([^\w\s]|_)(?: ?\1){2,}")  # a symbol repeated: dot leaders, rules

# (x0, y0, x1, y1, text, block, line) in page coordinates (PDF points)
Word = tuple[float, float, float, float, str, int, int]
PageFn = Callable[[int, int], None]  # (pages done, pages to OCR) before each page and at the end

_TESSDATA_DIRS = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
    "/opt/homebrew/share/tessdata",
)


@dataclass(frozen=True)
class OcrOptions:
    """Whether to OCR, where results are cached (None: no cache), and at what resolution."""

    enabled: bool = True
    cache_dir: str | None = None
    dpi: int = DPI
    language: str = "eng"


def usable_text(text: str) -> bool:
    """True when a text layer holds real text (not empty, whitespace or mostly symbols).

    Leaders ("Net income........ $", ". . . .", "____") are not counted: a financial statement
    or a table of contents is mostly dots, yet its text layer is exact and needs no OCR.
    """
    text = _LEADERS.sub("", text)
    alnum = sum(map(str.isalnum, text))
    visible = len("".join(text.split()))
    return alnum >= MIN_TEXT_CHARS and alnum >= 0.5 * visible


def needs_ocr(page: pymupdf.Page, text: str) -> bool:
    """A page that shows images but has no usable text layer."""
    if usable_text(text):
        return False
    try:
        return bool(page.get_images(full=False))
    except (MemoryError, RecursionError):
        raise
    except Exception:
        return False


@cache
def tessdata_dir() -> str | None:
    """Where Tesseract's language data is: $TESSDATA_PREFIX, a bundled copy, or the system's."""
    bundled = os.path.join(os.path.dirname(__file__), "..", "..", "..", "resources", "tessdata")
    candidates = [os.environ.get("TESSDATA_PREFIX") or "", os.path.normpath(bundled)]
    candidates.extend(_TESSDATA_DIRS)
    for folder in candidates:
        if folder and os.path.isfile(os.path.join(folder, "eng.traineddata")):
            return folder
    return None


def ocr_available() -> bool:
    """True when OCR can run here (Tesseract's English data is installed)."""
    return tessdata_dir() is not None


def page_dpi(page: pymupdf.Page, options: OcrOptions, image: bool) -> int:
    """The resolution to OCR a page at: an image at its own pixels (doubled when small), a
    PDF page at ``options.dpi``; never more than MAX_OCR_PIXELS (a poster-sized page)."""
    width, height = page.rect.width, page.rect.height
    if image:
        longest = max(width, height) * 96 / 72
        dpi = IMAGE_DPI * (2 if longest < SMALL_IMAGE_PX else 1)
    else:
        dpi = options.dpi
    area_in = max(width * height / (72 * 72), 1e-6)
    return max(36, min(dpi, int((MAX_OCR_PIXELS / area_in) ** 0.5)))


def ocr_words(page: pymupdf.Page, options: OcrOptions, dpi: int | None = None) -> list[Word]:
    """OCR one page at ``dpi`` (default ``options.dpi``); words with boxes in page
    coordinates, in reading order."""
    tessdata = tessdata_dir()
    if tessdata is None:
        raise LoadError(
            "it is a scanned document or image, and OCR is not installed "
            "(the Debian package tesseract-ocr-eng; see the README)",
            FailureKind.OCR_UNAVAILABLE,
        )
    try:
        textpage = page.get_textpage_ocr(
            language=options.language, dpi=dpi or options.dpi, full=True, tessdata=tessdata
        )
        raw = page.get_text("words", textpage=textpage, sort=False)
    except (MemoryError, RecursionError):
        raise
    except Exception as exc:
        raise LoadError(f"OCR failed on page {page.number + 1}: {exc}") from None
    words: list[Word] = []
    for x0, y0, x1, y1, text, block, line, _ in raw:
        text = clean(str(text)).strip()
        if text:
            words.append((float(x0), float(y0), float(x1), float(y1), text, int(block), int(line)))
    return words


def ocr_page_chars(words: Sequence[Sequence[Any]]) -> tuple[str, list[BBox | None]]:
    """The page text built from OCR words plus one box per character (None for separators).

    A word's box is split evenly among its characters, so part of a word highlights as part.
    Lines are grouped into paragraphs by layout (the engine makes a block of nearly each
    line): a line close below the last one continues its paragraph.
    """
    parts: list[str] = []
    boxes: list[BBox | None] = []
    last: tuple[int, int] | None = None
    line_box = (0.0, 0.0, 0.0, 0.0)  # the current line's extent
    for x0, y0, x1, y1, text, block, line in words:
        if last is not None:
            if (block, line) == last:
                sep = " "
            else:
                sep = LINE_SEP if _continues(line_box, (x0, y0, x1, y1)) else BLOCK_SEP
                line_box = (x0, y0, x1, y1)
            parts.append(sep)
            boxes.extend([None] * len(sep))
        else:
            line_box = (x0, y0, x1, y1)
        last = (block, line)
        lx0, ly0, lx1, ly1 = line_box
        line_box = (min(lx0, x0), min(ly0, y0), max(lx1, x1), max(ly1, y1))
        n = len(text)
        step = (x1 - x0) / n
        parts.append(text)
        boxes.extend((x0 + i * step, y0, x0 + (i + 1) * step, y1) for i in range(n))
    return "".join(parts), boxes


def _continues(prev: BBox, first_word: BBox) -> bool:
    """True when a line starting with ``first_word`` continues the paragraph of line ``prev``:
    just below it (a gap under one line height) and starting within its width."""
    height = max(prev[3] - prev[1], 1.0)
    gap = first_word[1] - prev[3]
    return -0.3 * height <= gap < 0.9 * height and prev[0] - height <= first_word[0] < prev[2]


def ocr_page_text(words: Sequence[Sequence[Any]]) -> str:
    """The page text built from OCR words (equal to ``ocr_page_chars(words)[0]``)."""
    return ocr_page_chars(words)[0]


class PageOcr:
    """OCR for one file's pages, through the cache of its hash; reports progress per page."""

    SAVE_EVERY_S = 10.0  # a long scan cut short (time limit, cancel) keeps what it read

    def __init__(self, options: OcrOptions, digest: str | None, on_page: PageFn | None = None):
        self.options = options
        self.on_page = on_page
        self._path = cache_path(options.cache_dir, digest) if options.cache_dir else None
        self._pages: dict[str, list[list[Any]]] = load_cached(self._path) if self._path else {}
        self._dirty = False
        self._saved = time.monotonic()
        self.ocr_runs = 0  # pages actually OCR'd (not from the cache)

    def cached(self, number: int) -> list[Word] | None:
        """The cached words of page ``number`` (1-based), or None."""
        words = self._pages.get(str(number))
        return None if words is None else [_word(w) for w in words]

    def pages(
        self, doc: pymupdf.Document, numbers: Sequence[int], image: bool = False
    ) -> dict[int, list[Word]]:
        """Words of each page in ``numbers`` (1-based): from the cache, else OCR'd now
        (``image``: the pages are an image's, OCR'd at its own resolution)."""
        todo = [n for n in numbers if str(n) not in self._pages]
        out: dict[int, list[Word]] = {}
        done = 0
        for n in numbers:
            words = self.cached(n)
            if words is None:
                if self.on_page is not None:
                    self.on_page(done, len(todo))
                page = doc.load_page(n - 1)
                words = ocr_words(page, self.options, page_dpi(page, self.options, image))
                self._pages[str(n)] = [list(w) for w in words]
                self._dirty = True
                self.ocr_runs += 1
                done += 1
                if time.monotonic() - self._saved > self.SAVE_EVERY_S:
                    self.save()
            out[n] = words
        if todo and self.on_page is not None:
            self.on_page(done, len(todo))
        self.save()
        return out

    def save(self) -> None:
        """Write new results to the cache (atomically; a failure to write costs only speed)."""
        if not (self._dirty and self._path):
            return
        payload = {"engine": ENGINE, "dpi": self.options.dpi, "pages": self._pages}
        with contextlib.suppress(OSError):
            _atomic_write(self._path, json.dumps(payload, separators=(",", ":")))
        self._dirty = False
        self._saved = time.monotonic()


def cache_path(cache_dir: str, digest: str | None) -> str | None:
    """The cache file of a file hash (None without a hash)."""
    if not digest:
        return None
    return os.path.join(cache_dir, digest[:2], f"{digest}.json")


def load_cached(path: str | None) -> dict[str, list[list[Any]]]:
    """The cached pages of a cache file; empty if missing, damaged or from another engine."""
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            payload = json.load(fh)
    except (OSError, ValueError):
        return {}
    if not isinstance(payload, dict) or payload.get("engine") != ENGINE:
        return {}
    if not isinstance(payload.get("pages"), dict):
        return {}
    return payload["pages"]


def cached_page_chars(
    cache_dir: str, digest: str, number: int
) -> tuple[str, list[BBox | None]] | None:
    """Text and boxes of an OCR'd page from the cache (for the viewer), or None."""
    words = load_cached(cache_path(cache_dir, digest)).get(str(number))
    return None if words is None else ocr_page_chars([_word(w) for w in words])


def _word(w: Sequence[Any]) -> Word:
    return (float(w[0]), float(w[1]), float(w[2]), float(w[3]), str(w[4]), int(w[5]), int(w[6]))


def _atomic_write(path: str, text: str) -> None:
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".ocr.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
