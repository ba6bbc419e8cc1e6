"""Bytes to text for text-like files: BOMs, strict UTF-8, legacy code pages, LF newlines; a
file whose encoding is only guessed is still read, with a warning a person sees."""

from __future__ import annotations

import codecs
import random

import pytest

from app.core.ingest.decoding import (
    decode_bytes,
    decode_html,
    decode_markup,
    decode_sniffed,
    decode_text,
    normalise,
)
from app.core.ingest.failures import FailureKind, UnsupportedFile
from app.core.ingest.skips import SkipReason

RUSSIAN = "Добрый день, это тестовый документ о погоде в Москве зимой и летом."
FRENCH = "Café crème brûlée, naïve façade — déjà vu."


def test_newlines_become_lf_and_one_bom_is_dropped() -> None:
    assert normalise("\ufeffa\r\nb\rc\n") == "a\nb\nc\n"
    assert decode_text(b"\xef\xbb\xbfhello\r\nworld") == "hello\nworld"


@pytest.mark.parametrize(
    "data",
    [
        RUSSIAN.encode("utf-8-sig"),
        RUSSIAN.encode("utf-16"),
        RUSSIAN.encode("utf-32"),
        codecs.BOM_UTF16_BE + RUSSIAN.encode("utf-16-be"),
        codecs.BOM_UTF32_BE + RUSSIAN.encode("utf-32-be"),
    ],
    ids=["utf-8", "utf-16", "utf-32", "utf-16-be", "utf-32-be"],
)
def test_a_bom_decides_the_encoding(data: bytes) -> None:
    decoded = decode_bytes(data)
    assert decoded.text == RUSSIAN and decoded.warning is None


@pytest.mark.parametrize(("text", "encoding"), [(RUSSIAN, "cp1251"), (FRENCH, "cp1252")])
def test_a_legacy_code_page_is_found_by_how_the_text_reads(text: str, encoding: str) -> None:
    decoded = decode_bytes(text.encode(encoding))
    assert (decoded.text, decoded.encoding, decoded.warning) == (text, encoding, None)


def test_a_file_cut_short_mid_character_is_still_utf8() -> None:
    decoded = decode_bytes("abc é".encode()[:-1])  # a file still being written
    assert (decoded.text, decoded.encoding) == ("abc \ufffd", "utf-8")


def test_undecidable_bytes_are_read_with_a_warning_not_refused() -> None:
    rng = random.Random(3)
    junk = bytes(rng.randrange(128, 256) for _ in range(300))
    decoded = decode_bytes(junk)
    assert decoded.warning is not None and "save it as UTF-8" in decoded.warning
    assert len(decoded.text) == len(junk)  # every byte read as one character
    assert decode_bytes(junk) == decoded  # the same bytes give the same text every time


def test_a_nul_byte_near_the_start_is_binary_data() -> None:
    with pytest.raises(UnsupportedFile) as named_as_text:
        decode_bytes(b"abc\x00def")
    assert named_as_text.value.kind is FailureKind.UNSUPPORTED
    assert named_as_text.value.skip is None  # a file named as text: a failure, not a skip
    assert decode_bytes(b"a" * 9000 + b"\x00").text.startswith("a")  # past the sniffed 8 KiB


def test_a_file_without_a_format_in_its_name_is_read_only_when_it_is_text() -> None:
    assert decode_sniffed(b"Plain README text\n").text == "Plain README text\n"
    for binary in (b"abc\x00def", bytes(range(1, 32)) * 50):
        with pytest.raises(UnsupportedFile) as refused:
            decode_sniffed(binary)
        assert refused.value.skip is SkipReason.BINARY  # skipped on purpose, counted so
    rng = random.Random(3)
    with pytest.raises(UnsupportedFile):  # only a guess: not text enough to read unnamed
        decode_sniffed(bytes(rng.randrange(128, 256) for _ in range(300)))


def test_html_says_its_own_charset_and_latin1_means_windows_1252() -> None:
    page = (
        b'<html><head><meta charset="windows-1251"></head><body>'
        + "Привет мир".encode("cp1251")
        + b"</body></html>"
    )
    assert decode_markup(page).encoding == "cp1251" and "Привет мир" in decode_html(page)
    latin = b'<meta charset="iso-8859-1">' + "caf\xe9 \x93quoted\x94".encode("latin-1")
    assert decode_html(latin).endswith("café “quoted”")  # as browsers read it


def test_a_charset_label_the_bytes_cannot_be_is_passed_over() -> None:
    assert decode_markup(b'<meta charset="utf-16"><p>plain</p>').encoding == "utf-8"
    assert decode_markup(b'<meta charset="no-such-code"><p>plain</p>').text.endswith("plain</p>")
    bom = b"\xef\xbb\xbf" + '<meta charset="windows-1251"><p>é</p>'.encode()
    assert decode_html(bom).endswith("<p>é</p>")  # a BOM wins over the label
