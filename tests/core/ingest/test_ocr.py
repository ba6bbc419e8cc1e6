"""OCR of scanned PDFs and images: indexed, found, marked ``ocr``, highlighted from word boxes.

The fixtures are made here: real sentences typeset by PyMuPDF, rendered to pixels, and stored
as an image-only PDF page and as a PNG, so the only way to their text is OCR.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.ingest import ocr
from app.core.ingest.parsing import ParseLimits, parse_file

pytestmark = pytest.mark.skipif(not ocr.ocr_available(), reason="Tesseract data not installed")

PDF_SENTENCE = "The lighthouse keeper counted forty seven herring boats before the storm."
PNG_SENTENCE = "Receipt for three copper kettles bought at the harbour market on Tuesday."
TEXT_PAGE = (
    "A text layer page about municipal budgets, drainage works and the annual audit of "
    "the water board, read without OCR."
)
BODY = (
    "Minutes of the river committee. {sentence} The meeting closed after a short "
    "discussion of the bridge repairs and the price of timber."
)


def _typeset(text: str):
    """A one-page PDF (PyMuPDF) with ``text`` in a text layer; and the page."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=400)
    page.insert_textbox(pymupdf.Rect(50, 50, 560, 350), text, fontsize=14)
    return doc, page


def _scanned_pdf(path: Path, text: str, dpi: int = 200) -> list[tuple[float, ...]]:
    """Page 1 a text layer, page 2 an image of ``text`` only; the sentence's word rects on
    page 2 (from the source layout, in page coordinates)."""
    import pymupdf

    src, page = _typeset(BODY.format(sentence=text))
    words = [tuple(r) for r in page.search_for(text)]
    pix = page.get_pixmap(dpi=dpi)
    out = pymupdf.open()
    first = out.new_page(width=612, height=400)
    first.insert_textbox(pymupdf.Rect(50, 50, 560, 350), TEXT_PAGE, fontsize=12)
    scan = out.new_page(width=page.rect.width, height=page.rect.height)
    scan.insert_image(scan.rect, pixmap=pix)
    out.save(path)
    src.close()
    return words


def _png(path: Path, text: str) -> list[tuple[float, ...]]:
    """A PNG of ``text`` at 96 dpi x 2 (pixels = 4/3 page points x 2); the sentence's rects in
    the image's page coordinates (0.75 point per pixel)."""
    import pymupdf

    src, page = _typeset(BODY.format(sentence=text))
    zoom = 2 * 96 / 72
    page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom)).save(path)
    scale = zoom * 0.75  # source points -> pixels -> image page points
    rects = [tuple(v * scale for v in r) for r in page.search_for(text)]
    src.close()
    return rects


def _covered(expected: list[tuple[float, ...]], rects: list[tuple[float, ...]]) -> float:
    """Share of the expected lines' width that highlight rects on the same line cover (OCR
    boxes are tight around the ink, the layout's are the font's full height)."""
    total = covered = 0.0
    for x0, y0, x1, y1 in expected:
        total += x1 - x0
        middle = (y0 + y1) / 2
        for a0, b0, a1, b1 in rects:
            if b0 <= middle <= b1:
                covered += max(0.0, min(x1, a1) - max(x0, a0))
    return covered / total if total else 0.0


@pytest.fixture
def scans(tmp_path: Path) -> dict[str, object]:
    docs = tmp_path / "docs"
    docs.mkdir()
    pdf_rects = _scanned_pdf(docs / "minutes.pdf", PDF_SENTENCE)
    png_rects = _png(docs / "receipt.png", PNG_SENTENCE)
    return {"docs": docs, "pdf_rects": pdf_rects, "png_rects": png_rects}


@pytest.mark.slow
def test_scanned_pdf_and_image_are_found_marked_and_highlighted(scans, make_engine, qapp):
    from app.ui.page_loader import PageLoader, merge_boxes

    engine = make_engine()
    report = engine.index([str(scans["docs"])])
    assert report.files_indexed == 2, report.failures
    assert report.pages_ocr == 2  # page 2 of the PDF and the image; page 1 has a text layer
    assert report.to_json()["pages_ocr"] == 2
    assert engine.status()["pages_ocr"] == 2

    loader = PageLoader(ocr_cache=str(engine.data.ocr_cache_path))
    try:
        for name, sentence, page, key in (
            ("minutes.pdf", PDF_SENTENCE, 2, "pdf_rects"),
            ("receipt.png", PNG_SENTENCE, 1, "png_rects"),
        ):
            hit = engine.search(sentence, 3).hits[0]
            assert hit.path.endswith(name) and hit.page == page
            assert hit.ocr is True and hit.to_json()["ocr"] is True
            flat = " ".join(hit.text.split())
            assert "copper kettles" in flat or "herring boats" in flat
            shown = loader.render(1, hit.path, hit.page, 1.0)
            assert shown.error is None and shown.image is not None
            assert shown.text[hit.start : hit.end] == hit.text
            at = hit.text.index(sentence.split()[0])
            end = hit.text.index(sentence.split()[-1]) + len(sentence.split()[-1])
            rects = merge_boxes(shown.boxes, hit.start + at, hit.start + end)
            expected = scans[key]
            assert _covered(expected, rects) > 0.9, (name, expected, rects)
            assert len(rects) == len(expected)  # one rect per line: nothing else lit
        text_hit = engine.search("municipal budgets drainage works annual audit", 3).hits[0]
        assert text_hit.page == 1 and text_hit.ocr is False
    finally:
        loader.close()

    cache = engine.data.ocr_cache_path
    assert len(list(cache.glob("*/*.json"))) == 2
    (scans["docs"] / "receipt.png").unlink()
    again = engine.index([str(scans["docs"])])
    assert again.files_removed == 1 and again.pages_ocr == 0
    assert len(list(cache.glob("*/*.json"))) == 1  # results of gone contents are dropped


def test_ocr_results_are_cached_by_file_hash(tmp_path: Path, scans, monkeypatch) -> None:
    cache = tmp_path / "ocr-cache"
    limits = ParseLimits(ocr_cache=str(cache))
    pages: list[tuple[int, int]] = []
    first = parse_file(
        str(scans["docs"] / "receipt.png"), None, limits, lambda d, t: pages.append((d, t))
    )
    assert first.error is None and first.ocr_pages == [1]
    assert pages == [(0, 1), (1, 1)]
    moved = tmp_path / "elsewhere" / "renamed.png"
    moved.parent.mkdir()
    shutil.copy(scans["docs"] / "receipt.png", moved)

    def no_ocr(*args: object) -> object:
        raise AssertionError("OCR ran again for content already read")

    monkeypatch.setattr(ocr, "ocr_words", no_ocr)
    again = parse_file(str(moved), None, limits)
    assert again.error is None and again.ocr_pages == [1]
    assert [c.text for c in again.chunks] == [c.text for c in first.chunks]


@pytest.mark.slow
def test_ocr_off_lists_scans_and_turning_it_on_reads_them(scans, make_engine) -> None:
    engine = make_engine(settings=Settings(ocr_enabled=False))
    report = engine.index([str(scans["docs"])])
    reasons = dict(report.failures)
    assert len(reasons) == 1  # the PDF keeps its text page; the image has nothing to index
    [(path, reason)] = reasons.items()
    assert path.endswith("receipt.png") and reason.startswith("scanned, OCR off")
    assert report.pages_ocr == 0
    engine.indexer().set_ocr(True)
    again = engine.index([str(scans["docs"])])
    assert again.files_failed == 0 and again.files_indexed >= 1
    assert engine.status()["pages_ocr"] >= 1


def test_image_formats_and_tiff_pages(tmp_path: Path) -> None:
    from tests.hostile_corpus import image_bytes

    for suffix, fmt, frames in (
        ("jpg", "JPEG", 1),
        ("webp", "WEBP", 1),
        ("bmp", "BMP", 1),
        ("tif", "TIFF", 2),
    ):
        path = tmp_path / f"scan.{suffix}"
        path.write_bytes(image_bytes(fmt, frames=frames, text="Ledger of the copper mill"))
        result = parse_file(str(path), None, ParseLimits())
        assert result.error is None, (suffix, result.error)
        assert result.ocr_pages == list(range(1, frames + 1))
        assert [c.page for c in result.chunks] == list(range(1, frames + 1))
        assert all("copper" in c.text.lower() for c in result.chunks), suffix


@pytest.mark.slow
def test_index_json_and_search_json_carry_the_ocr_contract(scans, cli_data_dir: Path) -> None:
    from tests.helpers import footnotes

    proc = footnotes("--data-dir", str(cli_data_dir), "index", str(scans["docs"]), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["pages_ocr"] == 2
    proc = footnotes("--data-dir", str(cli_data_dir), "search", PNG_SENTENCE, "--json")
    hit = json.loads(proc.stdout)["hits"][0]
    assert hit["path"].endswith("receipt.png") and hit["page"] == 1 and hit["ocr"] is True
    status = footnotes("--data-dir", str(cli_data_dir), "status")
    assert "Pages read by OCR: 2" in status.stdout


@pytest.mark.slow
def test_a_long_scan_reports_pages_and_stops_between_them_when_cancelled(
    tmp_path: Path, make_engine
) -> None:
    import threading

    from app.core.index.report import Cancelled
    from tests.hostile_corpus import image_bytes

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ledger.tif").write_bytes(image_bytes("TIFF", frames=4, text="Ledger of the mill"))
    cancel = threading.Event()
    seen: list[str] = []

    def progress(p) -> None:
        if p.event == "ocr":
            seen.append(p.detail)
            if len(seen) == 2:  # page 2 of 4 begins: stop the run
                cancel.set()

    engine = make_engine()
    with pytest.raises(Cancelled):
        engine.index([str(docs)], progress=progress, cancel=cancel)
    assert seen[:2] == ["OCR page 1 of 4", "OCR page 2 of 4"] and len(seen) == 2
    assert engine.manifest.file(str(docs / "ledger.tif")) is None  # nothing half-indexed
    report = engine.index([str(docs)])
    assert report.files_indexed == 1 and report.pages_ocr == 4


def test_folders_panel_names_the_page_being_read() -> None:
    from app.ui.folders_panel import progress_text
    from app.ui.payloads import SyncProgress

    p = SyncProgress(3, 10, "/scans/ledger.pdf", "ocr", None, page=41, pages=200)  # numbers
    assert progress_text(p) == "Indexing 3 of 10 files  ·  ledger.pdf: OCR page 41 of 200"


def test_a_statement_of_dot_leaders_is_read_from_its_text_layer(tmp_path: Path) -> None:
    """A balance sheet's lines are mostly leader dots; with a logo on the page it is still
    read from its exact text layer (OCR would cost seconds and replace exact text)."""
    import pymupdf

    lines = [
        f"{name} {'.' * 60} $ {value}"
        for name, value in (
            ("Cash and cash equivalents", "876,560"),
            ("Short-term investments", "3,111,573"),
            ("Trade receivables", "672,006"),
            ("Prepaid expenses", "161,802"),
        )
    ] + ["Total current assets " + ". " * 40 + "$ 4,821,941"]
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    logo = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 90), False)
    logo.clear_with(120)
    page.insert_image(pymupdf.Rect(40, 20, 80, 80), pixmap=logo)
    page.insert_textbox(pymupdf.Rect(40, 100, 580, 700), "\n".join(lines), fontsize=9)
    path = tmp_path / "balance.pdf"
    doc.save(path)

    result = parse_file(str(path), None, ParseLimits())
    assert result.error is None
    assert result.ocr_pages == []
    text = " ".join(c.text for c in result.chunks)
    assert "Short-term investments" in text and "3,111,573" in text
