"""Bytes -> text for text-like files: BOMs, strict UTF-8, legacy code pages, newlines as LF.

Legacy (non-UTF-8) bytes go to charset-normalizer, which tries the code pages and scores
each reading for mess and for likeness to some language (cp1251 Russian, Shift-JIS, GB18030,
...). Western cp1252 stays the choice whenever it reads as text and no other code page reads
clearly better. When no reading is convincing, the file is still read (cp1252, else Latin-1)
but carries a warning that ``footnotes status`` shows. Decoding is deterministic, so the
same bytes always give the same text and the same offsets.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from app.core.ingest.failures import UnsupportedFile
from app.core.ingest.skips import SkipReason

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


@dataclass(frozen=True)
class Decoded:
    """Text decoded from bytes, the encoding read, and a warning when it was only a guess."""

    text: str
    encoding: str
    warning: str | None = None


def decode_text(data: bytes) -> str:
    """Decode bytes (see ``decode_bytes``) and return only the text."""
    return decode_bytes(data).text


def decode_bytes(data: bytes) -> Decoded:
    """Decode bytes: BOM, else strict UTF-8, else the legacy encoding charset-normalizer
    decides; newlines become LF. Undecidable bytes are read as cp1252 (else Latin-1), with a
    warning.

    Raises UnsupportedFile when a NUL byte in the first 8 KiB shows binary data.
    """
    for bom, encoding in BOMS:
        if data.startswith(bom):
            text = data[len(bom) :].decode(encoding, errors="replace")
            return Decoded(normalise(text), encoding)
    if b"\x00" in data[:BINARY_SNIFF]:
        raise UnsupportedFile("it holds binary data, not text")
    utf8 = _decode_utf8(data)
    if utf8 is not None:
        return Decoded(normalise(utf8), "utf-8")
    return _decode_legacy(data)


# Control characters that text files do hold (tab, newlines, form feed, escape for colours).
_TEXT_CONTROLS = frozenset("\t\n\r\f\v\x1b\x08")
MAX_CONTROL_SHARE = 0.01  # more control characters than this in a sniffed file: binary


def decode_sniffed(data: bytes) -> Decoded:
    """Decode a file whose name says nothing of its format (``README``, ``x.Debian``), only
    when its content is text: a BOM, UTF-8, or a code page read with confidence, with few
    control characters. Raises UnsupportedFile for anything else (binary data)."""
    try:
        decoded = decode_bytes(data)
    except UnsupportedFile as exc:  # NUL bytes: binary, and the name claimed nothing
        raise UnsupportedFile(exc.reason, SkipReason.BINARY) from None
    sample = decoded.text[:BINARY_SNIFF]
    controls = sum(1 for ch in sample if ch < " " and ch not in _TEXT_CONTROLS)
    if decoded.warning is not None or controls > MAX_CONTROL_SHARE * max(len(sample), 1):
        raise UnsupportedFile("it holds binary data, not text", SkipReason.BINARY)
    return decoded


def _decode_legacy(data: bytes) -> Decoded:
    """Bytes that are not UTF-8: cp1252 when it reads as text and no other code page reads
    clearly better; else the code page charset-normalizer finds, when it is convincing; else
    cp1252 (Latin-1 where cp1252 cannot decode them) with a warning."""
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    western = from_bytes(data, cp_isolation=["cp1252"]).best()  # None: it reads as a mess
    if (
        best is not None
        and _convincing(best.encoding, best.chaos, best.coherence, str(best))
        and (western is None or best.coherence > western.coherence + WESTERN_COHERENCE_MARGIN)
    ):
        return Decoded(normalise(str(best)), best.encoding)
    if western is not None:
        return Decoded(normalise(str(western)), "cp1252")
    try:
        guess, text = "cp1252", data.decode("cp1252")
    except UnicodeDecodeError:
        guess, text = "latin-1", data.decode("latin-1")
    warning = (
        "its text encoding could not be decided with confidence; it was read as "
        f"{guess}, so some characters may be wrong (save it as UTF-8 to be sure)"
    )
    return Decoded(normalise(text), guess, warning)


WESTERN_COHERENCE_MARGIN = 0.1  # another code page must read this much more like a language
MAX_CHAOS = 0.2  # a reading messier than this (charset-normalizer's mess ratio) is a guess
MIN_COHERENCE = 0.2  # a single-byte reading must look this much like some language
MIN_WIDE_CHARS = 8  # a multi-byte (CJK) reading needs this many non-ASCII characters
_MULTI_BYTE = ("cp932", "shift_jis", "euc_jp", "iso2022_jp", "gb", "big5", "euc_kr", "cp949")


def _convincing(encoding: str, chaos: float, coherence: float, text: str) -> bool:
    """True when charset-normalizer's reading is trustworthy, not just possible: clean, and
    for a single-byte code page, like some language; for a multi-byte one, long enough to
    rule out chance (CJK text often scores no language coherence in a few sentences)."""
    if chaos > MAX_CHAOS:
        return False
    if encoding.startswith(_MULTI_BYTE):
        return sum(not ch.isascii() for ch in text) >= MIN_WIDE_CHARS
    return coherence >= MIN_COHERENCE


def decode_html(data: bytes) -> str:
    """Decode HTML (see ``decode_markup``) and return only the text."""
    return decode_markup(data).text


def decode_markup(data: bytes) -> Decoded:
    """Decode HTML: a BOM wins, then a <meta charset> near the top, then ``decode_bytes``."""
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
                    return Decoded(normalise(data.decode(name)), name)
                except UnicodeDecodeError:
                    pass
    return decode_bytes(data)
