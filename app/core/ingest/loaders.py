"""Loaders: a file on disk -> a Document of pages with exact, deterministic text.

Text-like files give one Page (number None); PDF and EPUB give one Page per page, numbered
from 1, with text built by ``app.core.ingest.pdftext`` so offsets map to glyph boxes. Scanned
PDF pages and images (``app.core.ingest.images``) are read by OCR (``app.core.ingest.ocr``) when
a ``PageOcr`` is given, their text built from the OCR word boxes. Failures are
DocumentError subclasses whose ``reason`` is a sentence a person understands and whose ``kind``
(``app.core.ingest.failures.FailureKind``) the engine decides by; a LoadError without one is
a damaged file.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from app.core.ingest.compressed import compression, decompress, read_suffix
from app.core.ingest.containers import check_zip
from app.core.ingest.containment import containment_problem
from app.core.ingest.context import (
    clean_title,
    html_title,
    markdown_title,
    outline_sections,
    with_page_title,
)
from app.core.ingest.decoding import (
    decode_bytes,
    decode_markup,
    decode_sniffed,
    decode_text,
    normalise,
)
from app.core.ingest.failures import DocumentError, FailureKind, LoadError, UnsupportedFile
from app.core.ingest.html import html_tables, html_to_text
from app.core.ingest.images import IMAGE_SUFFIXES, image_pdf
from app.core.ingest.ocr import PageOcr, needs_ocr, ocr_page_text
from app.core.ingest.pdftext import pdf_page_chars, pdf_page_layout, pdf_page_text
from app.core.ingest.skips import SkipReason, known_binary
from app.core.ingest.tables import delimited_table, markdown_tables
from app.core.types import Document, Page, TableSpan

READ_EVERY = 10  # pages between two reports of a long document being read

if TYPE_CHECKING:
    import pymupdf

__all__ = [
    "SUPPORTED_SUFFIXES",
    "DocumentError",
    "LoadError",
    "UnsupportedFile",
    "decode_text",
    "html_to_text",
    "is_supported",
    "kind_of",
    "load_bytes",
    "load_document",
    "open_paged",
    "pdf_page_chars",
    "pdf_page_text",
    "read_file",
]


_TEXT = ".txt .text .log .csv .tsv .org .tex .bib .nfo .srt .vtt"
_CODE = (
    ".py .pyi .pyx .js .jsx .mjs .cjs .ts .tsx .vue .svelte .c .h .cc .cpp .cxx .hpp .hh"
    " .hxx .m .mm .java .kt .kts .scala .groovy .gradle .go .rs .rb .php .pl .pm .lua .r .jl"
    " .swift .cs .fs .fsx .vb .dart .ex .exs .erl .hrl .hs .ml .mli .clj .cljs .el .lisp .scm"
    " .sh .bash .zsh .fish .ps1 .psm1 .bat .cmd .sql .json .jsonl .ndjson .yaml .yml .toml .ini"
    " .cfg .conf .properties .xml .xsd .xsl .css .scss .sass .less .proto .graphql"
    " .tf .hcl .nix .cmake .mk .make .dockerfile .patch .diff .vim .asm .s .f90 .v .sv .vhd"
    " .adoc .asciidoc .textile"
)
_KINDS: dict[str, str] = {
    **dict.fromkeys(_TEXT.split(), "text"),
    **dict.fromkeys(_CODE.split(), "code"),
    **dict.fromkeys([".md", ".markdown", ".mdown", ".mkd"], "markdown"),
    ".rst": "rst",
    **dict.fromkeys([".html", ".htm", ".xhtml"], "html"),
    ".pdf": "pdf",
    ".epub": "epub",
    ".docx": "docx",
    **dict.fromkeys(IMAGE_SUFFIXES, "image"),
}
SUPPORTED_SUFFIXES: frozenset[str] = frozenset(_KINDS)
SNIFFED = "sniffed"  # no known suffix: text when the content is text (README, x.Debian)

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def is_supported(path: str | os.PathLike[str]) -> bool:
    """True when the file's name alone says it is a format we read (no disk access); other
    files are read when their content is text (``format_of``)."""
    return read_suffix(os.fspath(path)) in _KINDS


def read_file(
    path: str,
    max_bytes: int | None = None,
    too_large: str = "",
    *,
    within: str | None = None,
    excluded: Sequence[str] = (),
) -> bytes:
    """Read a whole regular file, turning OS errors into reasons a person understands.

    Opened without blocking and checked with fstat, so a pipe or device put in a file's place
    fails at once instead of hanging the reader; ``max_bytes`` is checked on the open file,
    so a file that grew after it was scanned is refused with ``too_large`` as the reason.
    With ``within`` (a real folder path) or ``excluded`` folders, where the open descriptor
    really lies is checked before a byte is read (``containment``), so a symbolic link swapped
    in after the scan cannot lead the reader out of the watched folder or into the data folder.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        with open(fd, "rb") as fh:
            problem = containment_problem(fd, path, within, excluded)
            if problem is not None:
                raise LoadError(problem, FailureKind.VANISHED)
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(path)
            if not stat.S_ISREG(st.st_mode):
                raise LoadError(
                    "it is not a regular file (a pipe, socket or device)", FailureKind.SPECIAL_FILE
                )
            if max_bytes is not None and st.st_size > max_bytes:
                raise LoadError(
                    too_large or f"it is larger than {max_bytes:,} bytes", FailureKind.TOO_LARGE
                )
            data = fh.read() if max_bytes is None else fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise LoadError(
            "the file disappeared before it could be read", FailureKind.VANISHED
        ) from None
    except IsADirectoryError:
        raise LoadError("it is a folder, not a file", FailureKind.NOT_A_FILE) from None
    except PermissionError:
        if os.path.isdir(path):
            raise LoadError("it is a folder, not a file", FailureKind.NOT_A_FILE) from None
        raise LoadError("permission denied", FailureKind.PERMISSION) from None
    except OSError as exc:
        raise LoadError(
            f"it could not be read: {exc.strerror or exc}", FailureKind.UNREADABLE
        ) from None
    if max_bytes is not None and len(data) > max_bytes:  # still growing while we read
        raise LoadError(
            too_large or f"it is larger than {max_bytes:,} bytes", FailureKind.TOO_LARGE
        )
    return data


def load_document(path: str | os.PathLike[str], *, max_pages: int | None = None) -> Document:
    """Load a file into pages of text; raises UnsupportedFile or LoadError with a reason."""
    abspath = os.path.abspath(os.fspath(path))
    if os.path.isdir(abspath):
        raise LoadError("it is a folder, not a file", FailureKind.NOT_A_FILE)
    kind_of(abspath)  # an unsupported format is refused before the file is read
    return load_bytes(abspath, read_file(abspath), max_pages=max_pages)


def kind_of(path: str) -> str:
    """The format name for a path (a compressed file's inner name decides); ``text`` for a
    name that says nothing, whose content decides when it is read. Raises UnsupportedFile for
    a format known to be binary that we do not read."""
    kind = format_of(path)
    return "text" if kind == SNIFFED else kind


def format_of(path: str) -> str:
    """Like ``kind_of``, but ``SNIFFED`` for a name that leaves the format to the content."""
    suffix = read_suffix(path)
    kind = _KINDS.get(suffix)
    if kind is not None:
        return kind
    if known_binary(path):
        what = f"{suffix} files are" if suffix else "files without an extension are"
        raise UnsupportedFile(f"{what} not a supported format", SkipReason.FORMAT)
    return SNIFFED


def load_bytes(
    path: str,
    data: bytes,
    *,
    max_pages: int | None = None,
    ocr: PageOcr | None = None,
    on_read: Callable[[int, int], None] | None = None,
    max_bytes: int | None = None,
) -> Document:
    """Turn the bytes read from ``path`` into a Document (the suffix decides the format; for
    a compressed file, the inner name's, with at most ``max_bytes`` decompressed; with no
    known suffix, the content: text, else UnsupportedFile).

    Scanned pages are OCR'd through ``ocr``; without one (or with OCR off) they stay empty
    and are counted in ``Document.scanned_unread``. ``on_read(page, pages)`` hears every
    tenth page of a long PDF or book as its text is read.
    """
    abspath = os.path.abspath(path)
    kind = format_of(abspath)
    packed = compression(abspath)
    if packed is not None:
        data = decompress(data, packed, max_bytes)
    title: str | None = None
    unread = 0
    warning: str | None = None
    if kind in ("pdf", "epub", "image"):
        pages, title, unread = _paged_pages(data, kind, max_pages, ocr, on_read, max_bytes)
    elif kind == "docx":
        text, title, docx_tables = _docx_text(data, max_bytes)
        pages = [Page(None, text, tables=docx_tables)]
    elif kind == "html":
        decoded = decode_markup(data)
        html, warning = decoded.text, decoded.warning
        text, html_spans = html_tables(html)
        pages, title = [Page(None, text, tables=html_spans)], html_title(html)
    elif kind == SNIFFED:
        decoded = decode_sniffed(data)
        kind, pages = "text", [Page(None, decoded.text)]
    else:
        decoded = decode_bytes(data)
        text, warning = decoded.text, decoded.warning
        tables: tuple[TableSpan, ...] = ()
        if kind == "markdown":
            title, tables = markdown_title(text), markdown_tables(text)
        elif read_suffix(abspath) in (".csv", ".tsv"):
            tables = delimited_table(text)
        pages = [Page(None, text, tables=tables)]
    return Document(abspath, kind, pages, title, scanned_unread=unread, warning=warning)


def _open_paged_bytes(data: bytes, kind: str, max_bytes: int | None = None) -> pymupdf.Document:
    """Open PDF/EPUB bytes with PyMuPDF, unlocking an empty user password; an EPUB's zip is
    inflated as a stream first, under caps (``containers``), since MuPDF inflates each part
    whole."""
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)  # failures surface as exceptions with reasons
    pymupdf.TOOLS.mupdf_display_warnings(False)
    if kind == "image":
        return image_pdf(data)
    label = "PDF" if kind == "pdf" else "EPUB book"
    if not data:
        raise LoadError("the file is empty")
    if kind == "epub":
        check_zip(data, label, max_bytes)
    try:
        doc = pymupdf.open(stream=data, filetype=kind)
    except (MemoryError, RecursionError):
        raise
    except Exception:
        raise LoadError(f"it is not a valid {label} or it is damaged") from None
    # MuPDF sniffs content, so an HTML error page named .pdf would open as HTML: refuse it.
    if doc.is_pdf != (kind == "pdf") or (
        kind == "epub" and (doc.metadata or {}).get("format") != "EPUB"
    ):
        doc.close()
        raise LoadError(f"it is not a valid {label} or it is damaged")
    if doc.needs_pass and not doc.authenticate(""):
        doc.close()
        raise LoadError(f"the {label} is protected by a password", FailureKind.ENCRYPTED)
    if kind == "pdf" and doc.is_repaired and b"%%EOF" not in data[-2048:]:
        doc.close()
        raise LoadError("the PDF is incomplete: the end of the file is missing (cut short?)")
    return doc


def open_paged(path: str | os.PathLike[str]) -> pymupdf.Document:
    """Open a PDF, EPUB or image for rendering exactly as ``load_document`` read it."""
    abspath = os.path.abspath(os.fspath(path))
    kind = os.path.splitext(abspath)[1].lower()
    kind = _KINDS.get(kind, "pdf") if kind in (".epub", *IMAGE_SUFFIXES) else "pdf"
    return _open_paged_bytes(read_file(abspath), kind)


def _paged_pages(
    data: bytes,
    kind: str,
    max_pages: int | None,
    ocr: PageOcr | None,
    on_read: Callable[[int, int], None] | None = None,
    max_bytes: int | None = None,
) -> tuple[list[Page], str | None, int]:
    """One Page per page, numbered from 1, with its heading path (the outline's, then the
    page's own title); the document's title; and the number of scanned pages left unread."""
    doc = _open_paged_bytes(data, kind, max_bytes)
    try:
        try:
            count = doc.page_count
        except (MemoryError, RecursionError):
            raise
        except Exception:
            raise LoadError("its pages could not be laid out; the file may be damaged") from None
        if count == 0:
            raise LoadError("it has no pages; the file may be damaged")
        if max_pages is not None and count > max_pages:
            raise LoadError(
                f"it has {count:,} pages, more than the limit of {max_pages:,} (setting max_pages)",
                FailureKind.TOO_MANY_PAGES,
            )
        pages = []
        scanned: list[int] = []
        for index in range(count):
            if on_read is not None and index and index % READ_EVERY == 0:
                on_read(index + 1, count)
            try:
                page = doc.load_page(index)
                text, page_title, tables = pdf_page_layout(page)
                if kind != "epub" and needs_ocr(page, text):
                    scanned.append(index + 1)
            except (MemoryError, RecursionError):
                raise
            except Exception:
                raise LoadError(
                    f"page {index + 1} could not be read; the file may be damaged"
                ) from None
            pages.append(Page(index + 1, text, page_title, tables=tables))
        title = clean_title((doc.metadata or {}).get("title")) if kind != "image" else None
        pages, unread = _with_ocr(doc, pages, scanned, ocr, kind == "image")
        return _with_outline(doc, pages), title, unread
    finally:
        doc.close()


def _with_ocr(
    doc: pymupdf.Document,
    pages: list[Page],
    scanned: list[int],
    ocr: PageOcr | None,
    image: bool,
) -> tuple[list[Page], int]:
    """Pages with the scanned ones read by OCR; and how many stayed unread (OCR off)."""
    if not scanned:
        return pages, 0
    if ocr is None or not ocr.options.enabled:
        return pages, len(scanned)
    words = ocr.pages(doc, scanned, image)
    out = list(pages)
    for number, page_words in words.items():
        out[number - 1] = Page(number, ocr_page_text(page_words), ocr=True)
    return out, 0


def _docx_text(
    data: bytes, max_bytes: int | None = None
) -> tuple[str, str | None, tuple[TableSpan, ...]]:
    """Paragraphs and tables in document order, separated by blank lines (a table one row a
    line, its cells joined by " | ", its first row its column heads); the title; the tables.
    The zip is inflated as a stream under caps first (``containers``): python-docx inflates
    each part whole."""
    if not data:
        raise LoadError("the file is empty")
    if data.startswith(_OLE_MAGIC):
        raise LoadError(
            "the Word document is protected by a password or is an old .doc file",
            FailureKind.ENCRYPTED,
        )
    check_zip(data, "Word (.docx) document", max_bytes)
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
        parts: list[tuple[str, int | None]] = []
        _docx_collect(document.iter_inner_content(), parts)
    except (MemoryError, RecursionError):
        raise
    except Exception:
        raise LoadError("it is not a valid Word (.docx) document or it is damaged") from None
    texts: list[str] = []
    tables: list[TableSpan] = []
    pos = 0
    for raw, head in parts:
        text = normalise(raw).lstrip("\ufeff") if texts else normalise(raw)
        if texts:
            texts.append("\n\n")
            pos += 2
        if head is not None:
            tables.append(TableSpan(pos, pos + len(text), pos + min(len(text), head)))
        texts.append(text)
        pos += len(text)
    return "".join(texts), clean_title(document.core_properties.title), tuple(tables)


def _with_outline(doc: pymupdf.Document, pages: list[Page]) -> list[Page]:
    """Pages with the heading path of the document's outline (bookmarks) open on each, before
    the page's own title (``Page.section`` as read)."""
    try:
        toc = doc.get_toc(simple=True)
    except (MemoryError, RecursionError):
        raise
    except Exception:  # a damaged outline costs the sections, not the document
        return pages
    if not toc:
        return pages
    sections = outline_sections(toc, len(pages))
    return [
        Page(p.number, p.text, with_page_title(sections[i], p.section), p.ocr, p.tables)
        for i, p in enumerate(pages)
    ]


def _docx_collect(items: Iterable[Any], parts: list[tuple[str, int | None]]) -> None:
    """Append the text of paragraphs (head None), and of each table as rows of cells, each
    cell once (merged cells repeat), with the length of its first row (its column heads)."""
    for item in items:
        if _is_table(item):
            rows = _docx_rows(item)
            if rows:
                parts.append(("\n".join(rows), len(rows[0]) if len(rows) > 1 else 0))
        elif item.text.strip():
            parts.append((item.text, None))


def _is_table(item: Any) -> bool:
    from docx.table import Table

    return isinstance(item, Table)


def _docx_rows(table: Any) -> list[str]:
    """A Word table's rows as lines: each cell's text (paragraphs, nested tables) on one
    line, cells joined by " | "; a cell merged over several columns or rows is read once."""
    seen: dict[int, object] = {}  # id -> element, kept alive so ids stay unique
    rows: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            if id(cell._tc) in seen:
                continue
            seen[id(cell._tc)] = cell._tc
            inner: list[tuple[str, int | None]] = []
            _docx_collect(cell.iter_inner_content(), inner)
            cells.append(" ".join(" ".join(text.split()) for text, _ in inner))
        if any(cells):
            rows.append(" | ".join(cells))
    return rows
