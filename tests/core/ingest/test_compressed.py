"""Compressed files: the inner name that decides the format, and decompression under a cap
that refuses a decompression bomb with a reason instead of filling memory."""

from __future__ import annotations

import bz2
import gzip
import lzma

import pytest

from app.core.ingest.compressed import compression, decompress, inner_name
from app.core.ingest.failures import FailureKind, LoadError

TEXT = b"Version 2.1 fixes the harbour lantern bug.\n" * 50


def test_the_inner_name_decides_the_format() -> None:
    assert compression("/docs/NEWS.GZ") == ".gz" and compression("/docs/notes.txt") is None
    assert inner_name("/docs/NEWS.gz") == "/docs/NEWS"
    assert inner_name("/docs/manual.html.xz") == "/docs/manual.html"
    assert inner_name("/docs/notes.txt") == "/docs/notes.txt"


@pytest.mark.parametrize(("suffix", "pack"), [(".gz", gzip), (".bz2", bz2), (".xz", lzma)])
def test_each_format_decompresses_whole(suffix: str, pack) -> None:
    assert decompress(pack.compress(TEXT), suffix, None) == TEXT


def test_every_member_of_a_multi_member_gzip_is_read() -> None:
    data = gzip.compress(b"one ") + gzip.compress(b"two") + b"\x00\x00"  # padded at the end
    assert decompress(data, ".gz", None) == b"one two"


def test_past_the_size_limit_is_too_large_and_names_the_setting() -> None:
    with pytest.raises(LoadError) as refused:
        decompress(gzip.compress(TEXT), ".gz", cap=1000)
    assert refused.value.kind is FailureKind.TOO_LARGE
    assert str(refused.value) == (
        "it decompresses to more than 0.001 MB, the file size limit (setting max_file_mb); "
        "it may be a decompression bomb"
    )
    assert decompress(gzip.compress(TEXT), ".gz", cap=len(TEXT)) == TEXT  # at the cap: fine


def test_a_ratio_no_text_has_is_a_bomb_whatever_the_cap() -> None:
    bomb = gzip.compress(b"a" * 10_000_000)  # 10 MB of one letter in ~10 KB
    with pytest.raises(LoadError, match="more than any text does") as refused:
        decompress(bomb, ".gz", cap=None)
    assert refused.value.kind is FailureKind.TOO_LARGE


@pytest.mark.parametrize(
    ("data", "suffix", "says"),
    [
        (b"", ".xz", "the file is empty; it is not a valid xz file"),
        (b"not bzip2 data at all", ".bz2", "it is not a valid bzip2 file or it is damaged"),
        (gzip.compress(TEXT)[:-20], ".gz", "the gzip data is cut short; the file is incomplete"),
        (lzma.compress(TEXT)[:-30], ".xz", "cut short"),
    ],
    ids=["empty", "not-bzip2", "cut-gzip", "cut-xz"],
)
def test_damaged_or_cut_short_data_is_damaged_with_a_reason(
    data: bytes, suffix: str, says: str
) -> None:
    with pytest.raises(LoadError) as failed:
        decompress(data, suffix, None)
    assert failed.value.kind is FailureKind.DAMAGED
    assert says in str(failed.value)
