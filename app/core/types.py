"""Dataclasses that flow through the engine: files -> pages -> chunks -> hits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.core.text import display_path


@dataclass(frozen=True)
class TableSpan:
    """A table in a page's text: ``text[start:end]``, one row a line; its column heads (and
    caption) are its first lines, ``text[start:head_end]`` (empty when it has none)."""

    start: int
    end: int
    head_end: int


@dataclass(frozen=True)
class Page:
    """Text of one page (PDF/EPUB, 1-based ``number``) or of a whole file (``number`` None)."""

    number: int | None
    text: str
    section: str | None = None  # heading path of the page: its PDF outline, its own title
    ocr: bool = False  # the text was read by OCR (a scanned page or an image)
    tables: tuple[TableSpan, ...] = ()  # its tables, for the chunker to keep whole


@dataclass(frozen=True)
class Document:
    """A loaded file: its absolute path, format name and pages of exact, stable text."""

    path: str
    kind: str
    pages: list[Page]
    title: str | None = None  # the document's own title (metadata, first heading), if any
    scanned_unread: int = 0  # pages that need OCR but were not OCR'd (OCR off)
    warning: str | None = None  # read, but with a doubt a person should hear of (an encoding)


@dataclass(frozen=True)
class Chunk:
    """A passage with exact offsets: ``text == page_text[start:end]``.

    ``context`` is the line embedded before it (document title, heading path); ``text_hash``
    hashes what is embedded, context included, and keys the passage's vector.
    """

    path: str
    page: int | None
    start: int
    end: int
    text: str
    text_hash: str
    heading: str | None = None
    context: str = ""


@dataclass
class Hit:
    """One retrieved passage, as printed by ``search --json``."""

    rank: int
    path: str
    page: int | None
    start: int
    end: int
    text: str
    score: float
    chunk_id: str
    heading: str | None = None
    dense_score: float | None = None
    lexical_score: float | None = None
    dense_rank: int | None = None
    lexical_rank: int | None = None
    text_hash: str | None = None
    ocr: bool = False  # the passage was read by OCR from a scanned page or an image

    def to_json(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "path": self.path,
            "display_path": display_path(self.path),
            "page": self.page,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "score": round(self.score, 6),
            "chunk_id": self.chunk_id,
            "heading": self.heading,
            "dense_score": None if self.dense_score is None else round(self.dense_score, 6),
            "lexical_score": None if self.lexical_score is None else round(self.lexical_score, 6),
            "dense_rank": self.dense_rank,
            "lexical_rank": self.lexical_rank,
            "ocr": self.ocr,
        }


@dataclass
class Support:
    """Whether the retrieved evidence supports answering, with a reason a person understands."""

    supported: bool
    score: float
    reason: str
    features: dict[str, float] = field(default_factory=dict)
    # Some passages had no vector yet (the index is still being built), so a miss may be ours.
    building: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "supported": self.supported,
            "score": round(self.score, 4),
            "reason": self.reason,
            "building": self.building,
            "features": {k: round(v, 4) for k, v in self.features.items()},
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Support:
        """The evidence ``to_json`` wrote (a stored turn's)."""
        features = raw.get("features") or {}
        return cls(
            bool(raw.get("supported", False)),
            float(raw.get("score", 0.0)),
            str(raw.get("reason", "")),
            {str(k): float(v) for k, v in features.items()},
            bool(raw.get("building", False)),
        )
