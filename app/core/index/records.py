"""Rows of the manifest as dataclasses: a file's record, a stored chunk, and the chunk id."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from app.core.ingest.failures import FailureKind

FileStatus = Literal["indexed", "failed"]


@dataclass(frozen=True)
class FileRecord:
    """One row of the files table; a failed file has a reason, a kind, and for a limit, its value.

    ``error_limit`` is the value of the setting a limit failure hit (``parsing.limit_values``),
    so raising that setting reads the file again.
    """

    path: str
    size: int
    mtime_ns: int
    hash: str | None
    status: FileStatus
    error: str | None = None
    kind: str | None = None
    pages: int = 0
    chunks: int = 0
    error_kind: FailureKind | None = None
    error_limit: str | None = None
    format: int = 1  # the index format its passages were built with (schema.INDEX_FORMAT)

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> FileRecord:
        """A record from a SELECT of ``FILE_COLUMNS``; a kind this version does not know is
        read as unknown (a newer version wrote it)."""
        path, size, mtime_ns, digest, status, error, kind, pages, chunks, error_kind, limit, fmt = (
            row
        )
        return cls(
            path,
            size,
            mtime_ns,
            digest,
            status,
            error,
            kind,
            pages,
            chunks,
            _kind(error_kind),
            limit,
            int(fmt),
        )


def _kind(value: str | None) -> FailureKind | None:
    """The stored kind as the enum (unknown for a value this version does not know)."""
    if value is None:
        return None
    try:
        return FailureKind(value)
    except ValueError:
        return FailureKind.UNKNOWN


@dataclass(frozen=True)
class ChunkRow:
    """A stored chunk, joined with its file path."""

    row_id: int
    chunk_id: str
    path: str
    page: int | None
    start: int
    end: int
    text_hash: str
    heading: str | None
    text: str
    context: str = ""


def make_chunk_id(path: str, page: int | None, start: int, text_hash: str) -> str:
    """Deterministic id: the same file content at the same path always gets the same ids."""
    key = f"{path}\x00{page}\x00{start}\x00{text_hash}".encode("utf-8", "surrogateescape")
    return hashlib.blake2b(key, digest_size=12).hexdigest()
