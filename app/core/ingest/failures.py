"""Why a file could not be indexed: a kind the engine decides by, and a reason a person reads.

The kind is stored beside the reason in the manifest (``files.error_kind``) and decides which
failed files the next sync reads again, so rewording a reason never changes behaviour.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from app.core.ingest.skips import SkipReason


class FailureKind(StrEnum):
    """What went wrong with a file; the value is what the manifest stores."""

    PERMISSION = "permission"  # the OS refused to open it
    VANISHED = "vanished"  # gone between the scan and the read
    NOT_A_FILE = "not_a_file"  # a folder where a file was
    SPECIAL_FILE = "special_file"  # a pipe, socket or device
    UNREADABLE = "unreadable"  # another OS error while reading (EIO, ...)
    FOLDER_UNREADABLE = "folder_unreadable"  # a folder the scan could not list
    BROKEN_LINK = "broken_link"  # a symbolic link that loops or leads nowhere
    UNSUPPORTED = "unsupported"  # binary data, or a format we do not read
    DAMAGED = "damaged"  # not a valid document, empty, cut short
    ENCRYPTED = "encrypted"  # protected by a password
    TOO_DEEP = "too_deep"  # nested too deeply for the parser (RecursionError)
    TOO_LARGE = "too_large"  # over the file size limit (setting max_file_mb)
    TOO_MANY_PAGES = "too_many_pages"  # over the page limit (setting max_pages)
    TOO_MANY_PASSAGES = "too_many_passages"  # over max_chunks_per_file
    TIMEOUT = "timeout"  # reading took longer than parse_timeout_s
    MEMORY = "memory"  # over the parser's memory cap, or too large to pass on
    PARSER_CRASH = "parser_crash"  # the reader process died on it
    PARSER_ERROR = "parser_error"  # a parser raised an unexpected exception (a bug)
    READER_UNAVAILABLE = "reader_unavailable"  # the reader process could not start
    OCR_OFF = "ocr_off"  # scanned pages or an image, and OCR is off (setting ocr_enabled)
    OCR_UNAVAILABLE = "ocr_unavailable"  # scanned, and the OCR engine's data is not installed
    UNKNOWN = "unknown"  # an old reason the migration could not classify


# Cured by fixing something other than the file's content (its permissions, a folder put
# back), so they are read again on every sync instead of waiting for the file to change.
RETRIED_KINDS = frozenset(
    {
        FailureKind.PERMISSION,
        FailureKind.VANISHED,
        FailureKind.NOT_A_FILE,
        FailureKind.OCR_UNAVAILABLE,
    }
)

# A file skipped by one of these limits is read again once that setting has a new value.
LIMIT_SETTINGS: dict[FailureKind, str] = {
    FailureKind.TOO_LARGE: "max_file_mb",
    FailureKind.TOO_MANY_PAGES: "max_pages",
    FailureKind.TOO_MANY_PASSAGES: "max_chunks_per_file",
    FailureKind.TIMEOUT: "parse_timeout_s",
    FailureKind.OCR_OFF: "ocr_enabled",
}


def is_retried(kind: FailureKind | None, limit: str | None, now: Mapping[FailureKind, str]) -> bool:
    """True for a failure worth another try although the file has not changed.

    ``limit`` is the value stored with a limit failure, ``now`` each limit's current value
    (``parsing.limit_values``); a limit failure is retried once its setting has a new value.
    """
    if kind is None:
        return False
    if kind in LIMIT_SETTINGS:
        return now.get(kind) != limit
    return kind in RETRIED_KINDS


class DocumentError(Exception):
    """A file that could not be turned into text, with a reason a person understands."""

    default_kind = FailureKind.DAMAGED

    def __init__(self, reason: str, kind: FailureKind | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind or self.default_kind

    def __str__(self) -> str:
        return self.reason


class UnsupportedFile(DocumentError):
    """A format we do not read, or binary data. With ``skip`` set (a name that says nothing
    of the format, or one of a binary format) the file is skipped on purpose, and counted so;
    without (binary data in a file named as text, ``notes.md``) it is a failure."""

    default_kind = FailureKind.UNSUPPORTED

    def __init__(self, reason: str, skip: SkipReason | None = None) -> None:
        super().__init__(reason)
        self.skip = skip


class LoadError(DocumentError):
    """Failed: damaged, password-protected, unreadable or over a limit."""
