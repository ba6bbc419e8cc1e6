"""The messages between a front end and the engine process: requests down, events up.

Each message is a frozen dataclass, pickled over a ``multiprocessing`` pipe, so both sides
agree on its fields by type rather than by the position of items in a tuple. Requests sent
with ``EngineHost.send`` run in order on the child's write lane; ``EngineHost.call`` wraps a
request in a ``Call`` and waits for its ``Reply``. Events reach the parent's ``on_message``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from app.core.config import Settings
    from app.core.index.indexer import IndexReport, Progress
    from app.core.search.scope import Scope
    from app.core.watch.watcher import WatchStatus


# -- requests (parent -> child) ------------------------------------------------------------
@dataclass(frozen=True)
class Warm:
    """Load the embedding model and open the vector store before the first question."""


@dataclass(frozen=True)
class Search:
    """Retrieve the ``k`` best passages for ``question`` (from within ``scope``, if given);
    answered with a SearchResult."""

    question: str
    k: int
    mode: str = "hybrid"
    scope: Scope | None = None


@dataclass(frozen=True)
class AddFolder:
    """Watch ``path`` from now on and index it."""

    path: str


@dataclass(frozen=True)
class RemoveFolder:
    """Stop watching ``path``; its passages leave the index."""

    path: str


@dataclass(frozen=True)
class IndexFiles:
    """Index these files once (they are not watched); ends with a ``DropDone``."""

    paths: tuple[str, ...]


@dataclass(frozen=True)
class Pause:
    """Stop the watcher (finishing the write in hand) until ``Resume``."""


@dataclass(frozen=True)
class Resume:
    """Start the watcher again after ``Pause``."""


@dataclass(frozen=True)
class ApplySettings:
    """Use these settings from now on (changed ignore patterns restart the watcher)."""

    settings: Settings


@dataclass(frozen=True)
class CancelDrop:
    """Stop indexing dropped files; handled at once, ahead of the queued requests."""


@dataclass(frozen=True)
class Stop:
    """Finish the write in hand and exit."""


Request: TypeAlias = (
    Warm
    | Search
    | AddFolder
    | RemoveFolder
    | IndexFiles
    | Pause
    | Resume
    | ApplySettings
    | CancelDrop
    | Stop
)


@dataclass(frozen=True)
class Call:
    """A request whose answer the parent waits for, matched to its ``Reply`` by ``id``."""

    id: int
    request: Request


@dataclass(frozen=True)
class Reply:
    """The answer to ``Call`` ``id``: a result, or the reason there is none."""

    id: int
    result: Any = None
    error: str = ""


# -- events (child -> parent) --------------------------------------------------------------
@dataclass(frozen=True)
class Opened:
    """The engine opened (or not); ``writable`` if this process holds the writer lock."""

    ok: bool
    writable: bool
    message: str = ""


@dataclass(frozen=True)
class IndexProgress:
    """One step of indexing (a file planned, indexed, failed, removed, moved)."""

    progress: Progress


@dataclass(frozen=True)
class WatchChanged:
    """The watcher's state changed; ``following`` while it runs, with its polled folders."""

    status: WatchStatus
    following: bool
    polling: tuple[str, ...] = ()


@dataclass(frozen=True)
class DropDone:
    """The end of indexing dropped files: a report, or cancelled, or an error."""

    report: IndexReport | None = None
    cancelled: bool = False
    error: str = ""


@dataclass(frozen=True)
class Failed:
    """A request sent without waiting failed; ``message`` says why, as a sentence."""

    message: str


@dataclass(frozen=True)
class Exited:
    """The engine process ended (made by the parent when the pipe closes)."""

    code: int | None


Event: TypeAlias = Opened | IndexProgress | WatchChanged | DropDone | Failed | Exited


def describe(exc: BaseException) -> str:
    """An exception as a sentence, for a message a person reads."""
    text = str(exc) or type(exc).__name__
    return text if text.endswith((".", "!", "?")) else text + "."
