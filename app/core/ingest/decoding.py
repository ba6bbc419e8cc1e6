"""Bytes -> text for text-like files: BOMs, strict UTF-8, legacy code pages, newlines as LF.

Decoding is deterministic, so the same bytes always give the same text and the same offsets.
"""

from __future__ import annotations

import codecs
import re

from app.core.ingest.failures import UnsupportedFile

BINARY_SNIFF = 8192
BOMS = (  # UTF-32 before UTF-16: FF FE 00 00 starts with FF FE.
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_NEWLINES = re.compile(r"\r\n?")
_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)


def normalise(text: str) -> str:
    """Strip one leading BOM character and turn CRLF and lone CR into LF."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return _NEWLINES.sub("\n", text) if "\r" in text else text


def _decode_utf8(data: bytes) -> str | None:
    """Strict UTF-8; a sequence cut short at the very end becomes U+FFFD (a file being written)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data" and exc.start >= len(data) - 3:
            try:
                return data[: exc.start].decode("utf-8") + "\ufffd"
            except UnicodeDecodeError:
                return None
        return None


def decode_text(data: bytes) -> str:
    """Decode bytes: BOM, else strict UTF-8, else cp1252, else Latin-1; newlines become LF.

    Raises UnsupportedFile when a NUL byte in the first 8 KiB shows binary data.
    """
    for bom, encoding in BOMS:
        if data.startswith(bom):
            return normalise(data[len(bom) :].decode(encoding, errors="replace"))
    if b"\x00" in data[:BINARY_SNIFF]:
        raise UnsupportedFile("it holds binary data, not text")
    text = _decode_utf8(data)
    if text is None:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
    return normalise(text)


def decode_html(data: bytes) -> str:
    """Decode HTML: a BOM wins, then a <meta charset> near the top, then ``decode_text``."""
    if not any(data.startswith(bom) for bom, _ in BOMS) and b"\x00" not in data[:BINARY_SNIFF]:
        match = _META_CHARSET.search(data[:4096])
        if match:
            try:
                name = codecs.lookup(match.group(1).decode("ascii")).name
            except LookupError:
                name = ""
            # As browsers do: Latin-1/ASCII labels mean cp1252; UTF-16/32 labels (in bytes
            # that are plainly ASCII-compatible) mean UTF-8.
            name = {"latin-1": "cp1252", "iso8859-1": "cp1252", "ascii": "cp1252"}.get(name, name)
            if name.startswith("utf-16") or name.startswith("utf-32"):
                name = "utf-8"
            if name and name != "utf-8":
                try:
                    return normalise(data.decode(name))
                except UnicodeDecodeError:
                    pass
    return decode_text(data)
