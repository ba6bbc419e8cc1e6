"""Compressed text and files without a known extension are read; binary data is skipped.

Real gzip, bzip2 and xz bytes on disk, read by the same ``parse_file`` the reader process runs.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pytest

from app.core.ingest.failures import FailureKind
from app.core.ingest.parsing import ParseLimits, parse_file
from app.core.ingest.skips import SkipReason

NEWS = "Version 2.1 fixes the harbour lantern bug.\n\nThe copper signal now works.\n"
LIMITS = ParseLimits(max_bytes=1_000_000)


def text_of(path: Path, limits: ParseLimits = LIMITS) -> tuple[str | None, str]:
    """(format, passages joined) as the index would store them."""
    result = parse_file(str(path), None, limits)
    assert result.error is None and result.skipped is None, result
    return result.kind, "\n".join(ch.text for ch in result.chunks)


@pytest.mark.parametrize("suffix, pack", [(".gz", gzip), (".bz2", bz2), (".xz", lzma)])
def test_compressed_text_is_read_as_the_inner_name_says(tmp_path: Path, suffix, pack) -> None:
    news = tmp_path / f"NEWS{suffix}"
    news.write_bytes(pack.compress(NEWS.encode()))
    kind, text = text_of(news)
    assert kind == "text" and "harbour lantern" in text and "copper signal" in text


def test_inner_html_and_markdown_keep_their_format(tmp_path: Path) -> None:
    html = tmp_path / "manual.html.gz"
    html.write_bytes(
        gzip.compress(
            b"<html><head><title>Manual</title></head><body><p>Press the "
            b"<b>orchard</b> button.</p><script>var x=1;</script></body></html>"
        )
    )
    kind, text = text_of(html)
    assert kind == "html" and "Press the orchard button." in text and "<b>" not in text
    assert "var x" not in text
    md = tmp_path / "x.md.gz"
    md.write_bytes(gzip.compress(b"# Meadow notes\n\nThe meadow floods in spring.\n"))
    result = parse_file(str(md), None, LIMITS)
    assert result.kind == "markdown" and result.chunks[0].heading == "Meadow notes"


def test_a_decompression_bomb_fails_with_a_reason(tmp_path: Path) -> None:
    bomb = tmp_path / "huge.txt.gz"
    bomb.write_bytes(gzip.compress(bytes(20_000_000)))  # 20 MB of zeros in about 20 KB
    assert bomb.stat().st_size < LIMITS.max_bytes  # small on disk: only its content is over
    result = parse_file(str(bomb), None, LIMITS)
    assert result.error_kind is FailureKind.TOO_LARGE
    assert "decompresses to more than 1 MB" in (result.error or "")
    assert "max_file_mb" in (result.error or "")


def test_a_damaged_or_cut_short_archive_fails_with_a_reason(tmp_path: Path) -> None:
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(gzip.compress(NEWS.encode() * 200)[:60])
    result = parse_file(str(cut), None, LIMITS)
    assert result.error_kind is FailureKind.DAMAGED and "cut short" in (result.error or "")
    bad = tmp_path / "bad.gz"
    bad.write_bytes(b"this is not gzip at all")
    result = parse_file(str(bad), None, LIMITS)
    assert result.error == "it is not a valid gzip file or it is damaged"


@pytest.mark.parametrize(
    "name, content",
    [
        ("README", "Read me first: the lantern is in the orchard.\n"),
        ("COPYING", "Permission is granted to copy this lantern.\n"),
        ("Makefile", "all:\n\tcc -o lantern lantern.c\n"),
        ("changelog.Debian", "lantern (1.0-1) unstable; urgency=low\n\n  * Initial.\n"),
        ("tool.perl", '#!/usr/bin/perl\nprint "lantern\\n";\n'),
        ("fix.cocci", "@@\nexpression E;\n@@\n- lantern(E)\n+ beacon(E)\n"),
        ("configure", "#!/bin/sh\necho 'checking for lantern... yes'\n"),
        ("TODO.latin1", "Caf\xe9 lantern: d\xe9j\xe0 vu, na\xefve r\xe9sum\xe9 \xe9t\xe9.\n"),
    ],
)
def test_text_without_a_known_extension_is_read(tmp_path: Path, name: str, content: str) -> None:
    path = tmp_path / name
    path.write_bytes(content.encode("latin-1" if name.endswith("latin1") else "utf-8"))
    kind, text = text_of(path)
    assert kind == "text" and "lantern" in text


def test_binary_data_without_a_known_extension_is_skipped_not_failed(tmp_path: Path) -> None:
    blob = tmp_path / "firmware"
    blob.write_bytes(bytes(range(256)) * 40)
    result = parse_file(str(blob), None, LIMITS)
    assert result.skipped == SkipReason.BINARY and result.error is None and not result.chunks
    packed = tmp_path / "data.bin.gz"  # a known binary format inside: skipped by its name
    packed.write_bytes(gzip.compress(bytes(range(256))))
    assert parse_file(str(packed), None, LIMITS).skipped == SkipReason.FORMAT
    named = tmp_path / "notes.md"  # named as text but binary: that is a failure
    named.write_bytes(b"\x00\x01binary\x00" * 20)
    result = parse_file(str(named), None, LIMITS)
    assert result.skipped is None and result.error == "it holds binary data, not text"
