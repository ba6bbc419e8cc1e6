"""The errors the engine raises to its callers, each with a sentence a person can act on.

They live here, below every stage, so that a caller names the failures it handles without
importing the stage that raises them (``ask.py`` lists search failures without standing above
the engine process or the watcher), and a front end meets them in one place.
"""

from __future__ import annotations

from enum import StrEnum


class LockedError(Exception):
    """Another process is writing this index; the message names it, ``holder`` says who."""

    def __init__(self, message: str, holder: str = "another Footnotes process") -> None:
        super().__init__(message)
        self.holder = holder


class AnswerFailure(StrEnum):
    """Why no (whole) answer came back: front ends decide by this, never by the wording."""

    ERROR = "error"  # anything not named below
    NOT_RUNNING = "not_running"
    UNKNOWN_HOST = "unknown_host"
    CONNECT_TIMEOUT = "connect_timeout"
    TIMEOUT = "timeout"
    INTERRUPTED = "interrupted"
    MALFORMED = "malformed"
    HTTP = "http"
    SERVER = "server"
    REDIRECT = "redirect"
    MODEL_MISSING = "model_missing"
    MODEL_CANNOT_CHAT = "model_cannot_chat"
    PULL_FAILED = "pull_failed"
    TOO_LONG = "too_long"
    ECHOED = "echoed"  # the model only wrote its instructions back: nothing was left to show


class AnswerError(Exception):
    """A failure to get an answer from Ollama, worded as a sentence a person can act on."""

    def __init__(self, message: str, kind: AnswerFailure | str = AnswerFailure.ERROR) -> None:
        super().__init__(message)
        self.message = message
        self.kind = AnswerFailure(kind)


class QueryError(ValueError):
    """A query retrieval refuses; its message is one sentence a person can act on."""


class HistoryError(Exception):
    """The thread database could not be used; the message says why and what to do."""


class UnknownThread(Exception):
    """No thread has this id."""

    def __init__(self, thread_id: str) -> None:
        super().__init__(thread_id)
        self.thread_id = thread_id


class HostError(Exception):
    """The child could not answer: it failed, exited, or took too long; the message says so."""


class NamespaceError(OSError):
    """The namespace file cannot be kept in the data directory."""


class EmbeddingError(RuntimeError):
    """The embedding model could not be loaded or exported; the message says what to do."""


class DamagedError(Exception):
    """A file of the data directory that cannot be used; the message says what to do."""


class DiskFullError(Exception):
    """A write found no room on the disk: the message says how much is free and that nothing
    was lost (``app.core.diskfull`` builds it)."""


class StoreError(Exception):
    """The vector store cannot be reached or written; the message says what to do."""


class NotOnDiskYet(StoreError):
    """The embedded store's first vectors are being written by another process."""
