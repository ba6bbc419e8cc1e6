"""The dataclasses carried by the service's signals: one payload per signal, GUI-free."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.core.api import AskEvent, SkippedGroup

BBox = tuple[float, float, float, float]


@dataclass(frozen=True)
class AskUpdate:
    """One event of the core Ask operation, stamped with the question's token."""

    token: int
    event: AskEvent
    html: str | None = None  # with Done: the answer rendered with sentence marks


@dataclass(frozen=True)
class SyncProgress:
    """Indexing progress for the progress bar: ``done`` of ``total`` files, with an ETA."""

    done: int
    total: int
    path: str = ""
    event: str = ""
    eta_s: float | None = None
    detail: str = ""
    page: int = 0  # inside a long file (a scan being read): the page being read, of ``pages``
    pages: int = 0
    page_eta_s: float | None = None  # the rest of this file, at its pages' rate so far


@dataclass(frozen=True)
class SyncDone:
    """A sync run ended (finished, cancelled or failed)."""

    files_indexed: int = 0
    files_failed: int = 0
    files_removed: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    error: str | None = None


@dataclass(frozen=True)
class FolderInfo:
    """A watched folder as the folders panel shows it."""

    path: str
    files: int
    indexed: int
    failed: int
    passages: int
    status: str
    exists: bool = True
    problem: str = ""  # why the folder cannot be read now (status "unavailable")


@dataclass(frozen=True)
class IndexSnapshot:
    """Watched folders, totals and every failed file with its reason."""

    folders: list[FolderInfo]
    files: int = 0
    passages: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    waiting: int = 0  # passages searchable by their words whose vectors are not computed yet
    # files in the watched folders not read on purpose: [{reason, label, count, examples, types}]
    skipped: list[SkippedGroup] = field(default_factory=list)
    # files indexed with a warning (a guessed encoding, no text at all): (path, warning)
    warnings: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class ServiceState:
    """What the app can do right now (engine open, model loaded, allowed to write, paused)."""

    engine_ready: bool = False
    model_loaded: bool = False
    writable: bool = True
    paused: bool = False
    syncing: bool = False
    watching: str = ""  # "", "watching", "polling"
    message: str = ""
    folder: str = ""  # the folder being synced, when only one is
    retry: str = ""  # writes wait for a retry: "Chroma server unreachable — retrying in 40 s"


@dataclass(frozen=True)
class ModelList:
    """Models installed in Ollama at ``host``, or the reason they could not be listed."""

    host: str
    models: list[str]
    error: str | None = None
    version: str | None = None
    latency_ms: float | None = None  # round trip of a tiny request: the network, not the model


@dataclass(frozen=True)
class PageImage:
    """A rendered PDF/EPUB page with a box per character of its text (offsets index ``boxes``)."""

    token: int
    path: str
    page: int
    page_count: int
    zoom: float
    image: Any  # QImage, built in the view lane
    width_pt: float
    height_pt: float
    boxes: list[BBox | None]
    text: str
    error: str | None = None


@dataclass(frozen=True)
class PassageText:
    """The text around a passage: ``text`` starts at ``offset`` of the page (or file) text."""

    token: int
    path: str
    page: int | None
    text: str
    offset: int
    matches: bool
    error: str | None = None


@dataclass(frozen=True)
class ErrorReport:
    """Something failed in the background; shown in the window."""

    message: str
    detail: str = ""
