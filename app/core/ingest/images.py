"""Images as documents: PNG, JPEG, TIFF (frames are pages), WebP, BMP, GIF (first frame).

Each image becomes a page of an in-memory PDF, one PDF point per 4/3 pixel (96 dpi, as MuPDF
shows images), so the indexer's OCR and the viewer's rendering use the same page coordinates.
Pillow reads the header first: an image over the pixel limit (a decompression bomb, a 20000 x
20000 scan) is refused before anything is decoded, and a damaged or cut-short image fails with
a reason instead of half a page.
"""

from __future__ import annotations

import io
import warnings
from typing import TYPE_CHECKING

from app.core.ingest.failures import FailureKind, LoadError

if TYPE_CHECKING:
    import pymupdf

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp", ".gif")
MAX_PIXELS = 60_000_000  # per page: a 300 dpi A3 scan is 17 MP; 20000 x 20000 is 400 MP
POINTS_PER_PIXEL = 0.75
_PAGED_FORMATS = {"TIFF", "MPO"}  # frames are pages; in GIF, WebP and APNG they are animation


def image_pdf(data: bytes, max_pages: int | None = None) -> pymupdf.Document:
    """The image's pages (frames of a TIFF, else the first frame) as an in-memory PDF."""
    import pymupdf
    from PIL import Image, ImageSequence, UnidentifiedImageError

    if not data:
        raise LoadError("the file is empty")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's DecompressionBombWarning: checked below
            image = Image.open(io.BytesIO(data))
            frames = getattr(image, "n_frames", 1) if image.format in _PAGED_FORMATS else 1
    except (MemoryError, RecursionError):
        raise
    except Image.DecompressionBombError:
        raise LoadError(
            f"it has more pixels than the limit of {MAX_PIXELS // 1_000_000} megapixels "
            "(an image this large is usually a decompression bomb)",
            FailureKind.TOO_LARGE,
        ) from None
    except UnidentifiedImageError:
        raise LoadError("it is not a valid image or it is damaged") from None
    except Exception:
        raise LoadError("it is not a valid image or it is damaged") from None
    if max_pages is not None and frames > max_pages:
        raise LoadError(
            f"it has {frames:,} pages, more than the limit of {max_pages:,} (setting max_pages)",
            FailureKind.TOO_MANY_PAGES,
        )
    pdf = pymupdf.open()
    try:
        for index, frame in enumerate(ImageSequence.Iterator(image)):
            if index >= frames:
                break
            _add_page(pdf, frame, index)
    except BaseException:
        pdf.close()
        raise
    return pdf


def _add_page(pdf: pymupdf.Document, frame: object, index: int) -> None:
    """Decode one frame (after checking its size) and add it as a page."""
    from PIL import Image

    assert isinstance(frame, Image.Image)
    width, height = frame.size
    where = f"page {index + 1} of the image" if index else "the image"
    if width <= 0 or height <= 0:
        raise LoadError(f"{where} has no pixels; the file may be damaged")
    if width * height > MAX_PIXELS:
        raise LoadError(
            f"{where} is {width:,} x {height:,} pixels, more than the limit of "
            f"{MAX_PIXELS // 1_000_000} megapixels",
            FailureKind.TOO_LARGE,
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame.load()
            rgb = frame.convert("L" if frame.mode in ("1", "L", "I;16", "I", "F") else "RGB")
        png = io.BytesIO()
        rgb.save(png, "PNG", compress_level=1)
    except (MemoryError, RecursionError):
        raise
    except Exception:
        raise LoadError(f"{where} could not be decoded; the file is damaged or cut short") from None
    page = pdf.new_page(width=width * POINTS_PER_PIXEL, height=height * POINTS_PER_PIXEL)
    page.insert_image(page.rect, stream=png.getvalue())
