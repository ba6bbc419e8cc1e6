"""Why a file is skipped on purpose, and its type: what ``index``, ``status`` and the window count.

A skipped file is neither indexed nor failed: Footnotes chose not to read it (binary data, a
format it has no reader for, a name the ignore rules exclude). Each is counted by reason and
by type (its extension, the inner one for a compressed file) so a person can see what is left
out and why, and the counts of a folder add up to the files on disk.
"""

from __future__ import annotations

import os
from enum import StrEnum


class SkipReason(StrEnum):
    """Why a file is not read; the value is what the manifest stores (``skipped.reason``)."""

    BINARY = "binary"  # its content is binary data with no format we know
    FORMAT = "format"  # its extension names a format we have no reader for (.zip, .mp3, ...)
    IGNORED = "ignored"  # its name matches an ignore pattern (setting ignore_patterns)


LABELS: dict[SkipReason, tuple[str, str]] = {  # (one, many) as the counts say them
    SkipReason.BINARY: ("unknown binary", "unknown binary"),
    SkipReason.FORMAT: (
        "file in a format Footnotes does not read",
        "files in formats Footnotes does not read",
    ),
    SkipReason.IGNORED: ("file matching an ignore pattern", "files matching an ignore pattern"),
}

# Why a file named explicitly (``footnotes index PATH``) was skipped, as one sentence.
SENTENCES: dict[SkipReason, str] = {
    SkipReason.BINARY: "it holds binary data, not text, in no format Footnotes reads",
    SkipReason.FORMAT: "{type} files are not a format Footnotes reads",
    SkipReason.IGNORED: "its name matches an ignore pattern (setting ignore_patterns)",
}

# Formats with no reader whose content is never text: skipped by name, without reading them.
_BINARY_FORMATS = (
    ".zip .tar .tgz .tbz2 .txz .7z .rar .jar .war .ear .apk .deb .rpm .iso .img .dmg .cab .msi"
    " .exe .dll .so .dylib .o .a .lib .obj .class .pyc .pyo .pyd .wasm .mo .gmo .bin .dat"
    " .mp3 .mp4 .m4a .m4v .wav .flac .ogg .oga .ogv .opus .avi .mkv .mov .webm .wmv .flv .mid"
    " .ttf .otf .woff .woff2 .eot .pfb .pfa .afm"
    " .sqlite .sqlite3 .db .mdb .pdb .doc .xls .ppt .xlsx .pptx .odt .ods .odp .rtf .ps .eps"
    " .psd .xcf .ai .icns .cur .ani"
)
BINARY_FORMATS: frozenset[str] = frozenset(_BINARY_FORMATS.split())
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")


def file_type(path: str) -> str:
    """A file's type as the counts show it: ``.txt``, ``.html.gz``, or ``no extension``."""
    stem, suffix = os.path.splitext(os.path.basename(path))
    suffix = suffix.lower()
    if suffix in COMPRESSED_SUFFIXES:
        inner = os.path.splitext(stem)[1].lower()
        return inner + suffix
    return suffix or "no extension"


def known_binary(path: str) -> bool:
    """True when the name alone says the content is a binary format we do not read."""
    name = os.path.basename(path).lower()
    stem, suffix = os.path.splitext(name)
    if suffix in COMPRESSED_SUFFIXES:
        suffix = os.path.splitext(stem)[1]
    return suffix in BINARY_FORMATS


def label(reason: str, count: int) -> str:
    """ "12 unknown binary", "1 file in a format Footnotes does not read"."""
    try:
        one, many = LABELS[SkipReason(reason)]
    except ValueError:
        one, many = "skipped file", "skipped files"
    return f"{count:,} {one if count == 1 else many}"


def sentence(reason: str, path: str) -> str:
    """Why one file was skipped, as a sentence (for a file named on the command line)."""
    try:
        text = SENTENCES[SkipReason(reason)]
    except ValueError:
        text = "it was skipped"
    return text.format(type=file_type(path))
