"""Loaders: every format from small files made here, and the failures a person would meet."""

from __future__ import annotations

import codecs
import os
import zipfile
from pathlib import Path

import docx
import pymupdf
import pytest

from app.core.ingest.loaders import (
    SUPPORTED_SUFFIXES,
    DocumentError,
    LoadError,
    UnsupportedFile,
    decode_text,
    is_supported,
    load_document,
    open_paged,
    pdf_page_chars,
    pdf_page_text,
)


def make_pdf(path: Path, pages: list[list[str]], **save_kwargs: object) -> Path:
    """A PDF whose page i holds the given lines, each written at its own height."""
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page()
        for i, line in enumerate(lines):
            page.insert_text((72, 72 + 200 * i), line, fontsize=12)
    doc.save(path, **save_kwargs)
    doc.close()
    return path


def make_epub(path: Path, chapters: list[str]) -> Path:
    """A minimal EPUB 3 book: mimetype, container.xml, an OPF and one XHTML file per chapter."""
    items = "".join(
        f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>'
        for i in range(len(chapters))
    )
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    opf = (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
        '<dc:identifier id="id">x</dc:identifier>'
        "<dc:title>Test book</dc:title><dc:language>en</dc:language></metadata>"
        f"<manifest>{items}</manifest><spine>{spine}</spine></package>"
    )
    container = (
        '<?xml version="1.0"?><container version="1.0" '
        'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
        '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
        "</rootfiles></container>"
    )
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        zf.writestr("META-INF/container.xml", container)
        zf.writestr("OEBPS/content.opf", opf)
        for i, text in enumerate(chapters):
            zf.writestr(
                f"OEBPS/c{i}.xhtml",
                '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
                f"<head><title>Chapter {i}</title></head><body><p>{text}</p></body></html>",
            )
    return path


# --- suffixes and errors ---------------------------------------------------------------------


def test_supported_suffixes_are_lowercase_with_dot() -> None:
    assert all(s.startswith(".") and s == s.lower() for s in SUPPORTED_SUFFIXES)
    assert {".txt", ".md", ".rst", ".py", ".html", ".pdf", ".epub", ".docx"} <= SUPPORTED_SUFFIXES
    assert is_supported("Report.PDF") and is_supported(Path("notes/a.markdown"))
    assert is_supported("photo.jpg") and is_supported("scan.TIFF")  # read by OCR
    assert not is_supported("clip.mp4") and not is_supported("Makefile")


def test_error_reason_is_the_message() -> None:
    err = LoadError("permission denied")
    assert isinstance(err, DocumentError) and str(err) == err.reason == "permission denied"


def test_unknown_suffix_is_skipped_with_reason(tmp_path: Path) -> None:
    path = tmp_path / "clip.mp4"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42")
    with pytest.raises(UnsupportedFile, match=r"\.mp4 files are not a supported format"):
        load_document(path)


def test_binary_data_named_md_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    with pytest.raises(UnsupportedFile, match="binary data"):
        load_document(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="disappeared"):
        load_document(tmp_path / "gone.txt")


def test_directory(tmp_path: Path) -> None:
    folder = tmp_path / "folder.md"
    folder.mkdir()
    with pytest.raises(LoadError, match="folder, not a file"):
        load_document(folder)
    with pytest.raises(LoadError, match="folder, not a file"):
        load_document(tmp_path)


def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "secret.txt"
    path.write_text("hidden")
    path.chmod(0)
    try:
        if os.geteuid() == 0:
            # root reads files whatever their mode, so the denial cannot happen here.
            pytest.skip("running as root: chmod 000 does not stop root from reading")
        with pytest.raises(LoadError, match="permission denied"):
            load_document(path)
    finally:
        path.chmod(0o644)


# --- text, encodings, markup ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("a.txt", "text"),
        ("a.md", "markdown"),
        ("a.rst", "rst"),
        ("a.py", "code"),
        ("a.yml", "code"),
    ],
)
def test_text_kinds_give_one_unnumbered_page(tmp_path: Path, name: str, kind: str) -> None:
    path = tmp_path / name
    path.write_text("# Title\n\nBody text\n", encoding="utf-8")
    doc = load_document(path)
    assert doc.kind == kind
    assert [(p.number, p.text) for p in doc.pages] == [(None, "# Title\n\nBody text\n")]


def test_path_is_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "rel.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    doc = load_document("rel.txt")
    assert doc.path == str(tmp_path / "rel.txt") and os.path.isabs(doc.path)


@pytest.mark.parametrize("name", ["empty.txt", "empty.md", "empty.html", "empty.py"])
def test_zero_byte_text_file_is_one_empty_page(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"")
    assert [(p.number, p.text) for p in load_document(path).pages] == [(None, "")]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (codecs.BOM_UTF8 + "café\n".encode(), "café\n"),
        (codecs.BOM_UTF16_LE + "naïve Ωmega\n".encode("utf-16-le"), "naïve Ωmega\n"),
        (codecs.BOM_UTF16_BE + "naïve Ωmega\n".encode("utf-16-be"), "naïve Ωmega\n"),
        (codecs.BOM_UTF32_LE + "emoji 😀\n".encode("utf-32-le"), "emoji 😀\n"),
        ("plain UTF-8 — ok".encode(), "plain UTF-8 — ok"),
        ("crème brûlée".encode("latin-1"), "crème brûlée"),
        (b"\x93smart quotes\x94 cost \x805", "\u201csmart quotes\u201d cost \u20ac5"),
        (b"undefined in cp1252: \x81\x8d", "undefined in cp1252: \x81\x8d"),
        (b"one\r\ntwo\rthree\n\r\nfour", "one\ntwo\nthree\n\nfour"),
        ("cut short é".encode()[:-1], "cut short \ufffd"),
    ],
)
def test_decode_text(data: bytes, expected: str) -> None:
    assert decode_text(data) == expected
    assert decode_text(data) == decode_text(bytes(data))  # deterministic


def test_utf16_with_bom_is_not_binary_but_nul_without_bom_is() -> None:
    assert decode_text(codecs.BOM_UTF16_LE + "hi".encode("utf-16-le")) == "hi"
    with pytest.raises(UnsupportedFile):
        decode_text("hi".encode("utf-16-le"))


def test_encoded_files_load(tmp_path: Path) -> None:
    (tmp_path / "u16.txt").write_bytes(codecs.BOM_UTF16_LE + "Grüße\r\nzwei".encode("utf-16-le"))
    (tmp_path / "l1.md").write_bytes("Ångström\rline".encode("latin-1"))
    assert load_document(tmp_path / "u16.txt").pages[0].text == "Grüße\nzwei"
    assert load_document(tmp_path / "l1.md").pages[0].text == "Ångström\nline"


def test_html_visible_text_only(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<!DOCTYPE html><html><head><title>Tab title</title><style>p { color: red }</style>"
        "<script>document.write('<p>injected</p>')</script></head><body>"
        "<h1>Fish &amp; Chips</h1><p>Served   <b>hot</b>\n with &lt;salt&gt; &mdash; 5&nbsp;€</p>"
        "<noscript>Enable JS</noscript><template><p>not shown</p></template>"
        "<p>line one<br>line two</p><ul><li>first</li><li>second</li></ul>"
        "<!-- a comment --><script type='text/javascript'>var x = 1 < 2;</script></body></html>",
        encoding="utf-8",
    )
    doc = load_document(path)
    assert doc.kind == "html"
    assert doc.pages[0].text == (
        "Fish & Chips\n\nServed hot with <salt> \u2014 5\xa0€\n\n"
        "line one\nline two\n\nfirst\n\nsecond"
    )


def test_html_unclosed_head_ends_at_body_content(tmp_path: Path) -> None:
    path = tmp_path / "sloppy.htm"
    path.write_text("<html><head><meta charset=utf-8><title>T</title><p>Body text<p>More")
    assert load_document(path).pages[0].text == "Body text\n\nMore"


def test_html_meta_charset(tmp_path: Path) -> None:
    path = tmp_path / "old.htm"
    path.write_bytes(
        b'<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
        b"<p>\x93quoted\x94 caf\xe9</p>"
    )
    assert load_document(path).pages[0].text == "\u201cquoted\u201d café"


# --- DOCX --------------------------------------------------------------------------------------


def test_docx_paragraphs_and_tables_in_order(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_heading("Quarterly report", level=1)
    document.add_paragraph("Revenue grew.")
    document.add_paragraph("")  # empty paragraphs leave no gap
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Region"
    table.cell(0, 1).text = "Sales"
    merged = table.cell(1, 0).merge(table.cell(1, 1))
    merged.text = "Both columns"
    document.add_paragraph("After the table.")
    path = tmp_path / "report.docx"
    document.save(str(path))
    doc = load_document(path)
    assert doc.kind == "docx" and doc.pages[0].number is None
    text = doc.pages[0].text
    # a table is one block, one row a line, its cells side by side; merged cells read once
    assert text == (
        "Quarterly report\n\nRevenue grew.\n\nRegion | Sales\nBoth columns\n\nAfter the table."
    )
    (table_span,) = doc.pages[0].tables
    assert text[table_span.start : table_span.end] == "Region | Sales\nBoth columns"
    assert text[table_span.start : table_span.head_end] == "Region | Sales"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "the file is empty"),
        (b"PK\x03\x04 not really a zip", "not a valid Word"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512), "protected by a password"),
    ],
)
def test_bad_docx(tmp_path: Path, data: bytes, reason: str) -> None:
    path = tmp_path / "bad.docx"
    path.write_bytes(data)
    with pytest.raises(LoadError, match=reason):
        load_document(path)


# --- PDF and EPUB ------------------------------------------------------------------------------


def test_pdf_one_page_per_page(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "a.pdf", [["Hello world", "Second block"], ["Page two"]])
    doc = load_document(path)
    assert doc.kind == "pdf"
    assert [p.number for p in doc.pages] == [1, 2]
    assert doc.pages[0].text == "Hello world\n\nSecond block"
    assert doc.pages[1].text == "Page two"
    assert load_document(path) == doc  # same bytes, same text


def test_pdf_page_chars_matches_text_and_maps_to_glyphs(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "a.pdf", [["Alpha beta", "Gamma delta"]])
    with pymupdf.open(path) as pdf:
        page = pdf[0]
        # An image block on the page must not add text or break the mapping.
        page.insert_image(
            pymupdf.Rect(300, 300, 340, 340),
            pixmap=pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False),
        )
        text, boxes = pdf_page_chars(page)
        assert text == pdf_page_text(page) == "Alpha beta\n\nGamma delta"
        assert len(boxes) == len(text)
        assert [i for i, b in enumerate(boxes) if b is None] == [10, 11]  # the block separator
        start = text.index("Gamma")
        x0 = min(b[0] for b in boxes[start : start + 5] if b)
        y0 = min(b[1] for b in boxes[start : start + 5] if b)
        x1 = max(b[2] for b in boxes[start : start + 5] if b)
        y1 = max(b[3] for b in boxes[start : start + 5] if b)
        (found,) = page.search_for("Gamma")
        assert abs(x0 - found.x0) < 1 and abs(x1 - found.x1) < 1
        assert found.y0 - 2 < y0 < y1 < found.y1 + 2


def test_pdf_with_empty_user_password_loads(tmp_path: Path) -> None:
    path = make_pdf(
        tmp_path / "locked.pdf",
        [["Readable by anyone"]],
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        owner_pw="owner",
        user_pw="",
    )
    assert load_document(path).pages[0].text == "Readable by anyone"
    with open_paged(path) as pdf:  # the UI opens it the same way to highlight passages
        assert pdf_page_text(pdf[0]) == "Readable by anyone"


def test_pdf_with_real_password_fails(tmp_path: Path) -> None:
    path = make_pdf(
        tmp_path / "secret.pdf",
        [["Top secret"]],
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        owner_pw="owner",
        user_pw="hunter2",
    )
    with pytest.raises(LoadError) as info:
        load_document(path)
    assert info.value.reason == "the PDF is protected by a password"


def test_truncated_and_broken_pdfs_fail_plainly(tmp_path: Path) -> None:
    data = make_pdf(tmp_path / "whole.pdf", [["One"], ["Two"], ["Three"]]).read_bytes()
    (tmp_path / "half.pdf").write_bytes(data[: len(data) // 2])
    (tmp_path / "head.pdf").write_bytes(data[:40])
    (tmp_path / "html.pdf").write_bytes(b"<html><body>404 Not Found</body></html>")
    (tmp_path / "empty.pdf").write_bytes(b"")
    with pytest.raises(LoadError, match="incomplete"):
        load_document(tmp_path / "half.pdf")
    for name in ("head.pdf", "html.pdf"):
        with pytest.raises(LoadError, match="not a valid PDF or it is damaged"):
            load_document(tmp_path / name)
    with pytest.raises(LoadError, match="the file is empty"):
        load_document(tmp_path / "empty.pdf")


def test_max_pages(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "long.pdf", [["p1"], ["p2"], ["p3"]])
    assert len(load_document(path, max_pages=3).pages) == 3
    with pytest.raises(LoadError, match="3 pages, more than the limit of 2"):
        load_document(path, max_pages=2)


def test_epub_pages(tmp_path: Path) -> None:
    path = make_epub(tmp_path / "book.epub", ["The first chapter begins.", "Chapter two here."])
    doc = load_document(path)
    assert doc.kind == "epub"
    assert [p.number for p in doc.pages] == list(range(1, len(doc.pages) + 1))
    whole = "\n".join(p.text for p in doc.pages)
    assert "The first chapter begins." in whole and "Chapter two here." in whole
    assert "Chapter 0" not in whole  # the <title> is not body text
    with open_paged(path) as book:
        for page in doc.pages:
            assert pdf_page_chars(book[page.number - 1])[0] == page.text


def test_bad_epub(tmp_path: Path) -> None:
    (tmp_path / "bad.epub").write_bytes(b"not a zip at all")
    with pytest.raises(LoadError, match="EPUB"):
        load_document(tmp_path / "bad.epub")
