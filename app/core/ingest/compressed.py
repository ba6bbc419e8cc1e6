"""Compressed files (.gz, .bz2, .xz): the inner name that decides the format, and decompression
under a byte cap.

The bytes are decompressed as a stream and refused once they pass the cap, or once they pass
``RATIO_FROM`` at more than ``MAX_RATIO`` times the file's size (no text compresses so well),
so a small file that would expand to gigabytes (a decompression bomb) fails with a reason
instead of filling the reader's memory; the file size limit (setting max_file_mb) applies to
what comes out.
"""

from __future__ import annotations

import bz2
import lzma
import os
import zlib
from typing import Protocol

from app.core.ingest.containers import MAX_RATIO, RATIO_FROM
from app.core.ingest.failures import FailureKind, LoadError

SUFFIXES = (".gz", ".bz2", ".xz")
DEFAULT_CAP = 256 * 1024 * 1024  # decompressed bytes when no file size limit is set
STEP = 1024 * 1024  # decompressed bytes asked for at a time
_NAMES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}


class _Stream(Protocol):
    """What the three decompressors share."""

    def decompress(self, data: bytes, max_length: int = -1) -> bytes: ...

    @property
    def eof(self) -> bool: ...

    @property
    def unused_data(self) -> bytes: ...


def compression(path: str) -> str | None:
    """The compression suffix of a path (``.gz``, ``.bz2``, ``.xz``), or None."""
    suffix = os.path.splitext(path)[1].lower()
    return suffix if suffix in SUFFIXES else None


def inner_name(path: str) -> str:
    """The name a compressed file had before it was compressed (``NEWS.gz`` -> ``NEWS``)."""
    suffix = compression(path)
    return path[: -len(suffix)] if suffix else path


def read_suffix(path: str) -> str:
    """The suffix that decides how ``path`` is read: its name's, or the inner name's of a
    compressed file ("notes.md.gz": ".md"); "" for a name without one."""
    return os.path.splitext(inner_name(path))[1].lower()


def _stream(suffix: str) -> _Stream:
    if suffix == ".gz":
        return zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)
    if suffix == ".bz2":
        return bz2.BZ2Decompressor()
    return lzma.LZMADecompressor()


def too_dense(ratio: int) -> str:
    """Why a compressed file that inflates far past any text's ratio is refused."""
    return (
        f"it decompresses to more than {ratio} times its size, more than any text does; it "
        "may be a decompression bomb"
    )


def too_large(cap: int) -> str:
    """Why a compressed file that expands past the cap is refused, naming the setting."""
    return (
        f"it decompresses to more than {cap / 1e6:g} MB, the file size limit "
        "(setting max_file_mb); it may be a decompression bomb"
    )


def decompress(data: bytes, suffix: str, cap: int | None) -> bytes:
    """The decompressed bytes of ``data`` (all members of a multi-member file), at most ``cap``.

    Raises LoadError: TOO_LARGE past the cap, DAMAGED for bytes that are not valid or cut short.
    """
    limit = DEFAULT_CAP if cap is None else cap
    name = _NAMES[suffix]
    if not data:
        raise LoadError(f"the file is empty; it is not a valid {name} file")
    out: list[bytes] = []
    size = 0
    rest = data
    try:
        while rest:  # a file may hold several compressed members, one after another
            stream = _stream(suffix)
            feed = rest
            while not stream.eof:
                chunk = stream.decompress(feed, STEP)
                size += len(chunk)
                if size > limit:
                    raise LoadError(too_large(limit), FailureKind.TOO_LARGE)
                if size > RATIO_FROM and size > MAX_RATIO * len(data):
                    raise LoadError(too_dense(MAX_RATIO), FailureKind.TOO_LARGE)
                if not chunk and not stream.eof:  # no progress: every byte given, no end
                    raise LoadError(f"the {name} data is cut short; the file is incomplete")
                out.append(chunk)
                feed = getattr(stream, "unconsumed_tail", b"")  # zlib keeps what it did not take
            rest = stream.unused_data
            if suffix == ".gz":
                rest = rest.lstrip(b"\x00")  # padding after the last member
    except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error):
        raise LoadError(f"it is not a valid {name} file or it is damaged") from None
    return b"".join(out)
