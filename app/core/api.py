"""The engine's one face: a ``Footnotes`` object for a data directory, and the types it returns.

The window, quick ask and the command line reach the engine through this module only (an
import-linter contract holds them to it, to ``errors``, ``config`` and ``wording``), as Anki's
front ends reach theirs through one ``Collection``::

    fn = Footnotes(data_dir)
    report = fn.index(["~/Notes"])                 # IndexReport
    result = fn.search("lease renewal", k=8)       # SearchResult: hits and the support flag
    for event in fn.ask(AskRequest("When is the lease up?")):   # Planned, Searched, Piece, Done
        ...
    fn.threads.list()                              # the conversation store (None: history off)
    fn.export(thread_id, to=Path("answer.md"))     # Markdown with footnotes, written safely
    fn.status(); fn.doctor(); fn.repair()
    fn.close()

Every type a front end names is importable from here (``Hit``, ``Scope``, ``Verdict``,
``Level``, ``AskRequest``, ``Turn``…); the heavier ones (the ask path, the Ollama client, the
watcher) are loaded on first use, so a ``search`` command does not pay for the model client.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.config import DataDir, Settings
from app.core.faults import NO_FAULTS, Faults
from app.core.search.scope import Scope, ScopeChoices
from app.core.types import Hit, Support
from app.core.verdict.judge import CHECKING, Level, Verdict

if TYPE_CHECKING:
    from app.core.ask import Asker, AskEvent, AskOptions, AskRequest
    from app.core.engine import Engine
    from app.core.index.indexer import IndexReport, ProgressFn
    from app.core.prompt.answering import Reply
    from app.core.search.retrieval import SearchResult
    from app.core.threads.store import ThreadStore
    from app.core.watch.watcher import Watcher, WatchStatus

__all__ = [
    "CHECKING",
    "NO_FAULTS",
    "AddedFolder",
    "DataDir",
    "Faults",
    "Footnotes",
    "Hit",
    "Level",
    "RemovedFolder",
    "Scope",
    "ScopeChoices",
    "Settings",
    "Support",
    "Verdict",
    "holds_files",
    "preload",
]  # and every name of ``_LAZY``, added below

# Types and helpers the front ends use, by module: importable from here, loaded on first use.
_LAZY: dict[str, str] = {
    "app.core.ask": "AskEvent AskOptions AskOutcome AskRequest Asker Done Ending Piece Planned"
    " SearchFn Searched SourceUsage open_store source_usage",
    "app.core.diskfull": "FULL_BELOW_BYTES is_disk_full",
    "app.core.host.client": "EngineHost",
    "app.core.host.messages": "AddFolder ApplySettings CancelDrop DropDone Event Exited Failed"
    " IndexFiles IndexProgress Opened Pause RemoveFolder Request Resume Search Warm"
    " WatchChanged describe",
    "app.core.host.server": "BACKGROUND_NICE",
    "app.core.index.availability": "folder_problem",
    "app.core.index.indexer": "Cancelled IndexReport Progress",
    "app.core.index.skipped": "SkippedGroup",
    "app.core.index_view": "FolderCounts IndexSummary IndexView peek",
    "app.core.ingest.images": "IMAGE_SUFFIXES",
    "app.core.ingest.loaders": "UnsupportedFile kind_of load_document open_paged pdf_page_chars"
    " read_file",
    "app.core.ingest.ocr": "cached_page_chars usable_text",
    "app.core.ingest.parsing": "bytes_hash",
    "app.core.ingest.scanning": "is_within no_longer_watched normalize",
    "app.core.ollama.address": "display_host host_problem plain_http_warning",
    "app.core.ollama.client": "has_model probe_server",
    "app.core.ollama.models": "ModelInfo PullProgress installed_models pick_chat_model pull_model",
    "app.core.private": "too_open",
    "app.core.prompt.answering": "Answer Reply Source server_version",
    "app.core.search.query": "MAX_QUERY_CHARS",
    "app.core.search.retrieval": "SearchResult",
    "app.core.search.scope": "choices parse_date parse_type",
    "app.core.search.suggest": "Suggestion first_question",
    "app.core.text": "CITATION well_formed",
    "app.core.threads.export": "source_state thread_markdown",
    "app.core.threads.export_file": "ExportError write_export",
    "app.core.threads.store": "ThreadInfo ThreadStore Turn turn_from_answer",
    "app.core.verdict.sentence": "SentenceMark",
    "app.core.watch.retrying": "read_state",
    "app.core.watch.watcher": "WatchState WatchStatus Watcher",
}
_WHERE = {name: module for module, names in _LAZY.items() for name in names.split()}
__all__ += sorted(_WHERE)


def __getattr__(name: str) -> Any:
    """A type or helper of ``_LAZY``, imported on first use."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def holds_files(data_dir: Path, path: str) -> bool:
    """Whether the index in ``data_dir`` holds files at or below ``path`` (read only; False
    where there is no index yet): an unplugged drive's folder is in the index, a typo is not."""
    from app.core.index.manifest import Manifest
    from app.core.ingest.scanning import normalize

    manifest_path = DataDir(data_dir).manifest_path
    if not manifest_path.exists():
        return False
    manifest = Manifest(manifest_path, readonly=True)
    try:
        return manifest.holds_files(normalize(path))
    finally:
        manifest.close()


def preload(*names: str) -> None:
    """Load now what these names of the face stand in (a window warming up in a background
    lane, so that the first answer does not wait for an import)."""
    for name in names:
        __getattr__(name)


@dataclass(frozen=True)
class AddedFolder:
    """What ``add_folder`` did: the folder as recorded, and how it will be indexed."""

    folder: str
    already: bool = False  # it was watched already
    inside: str | None = None  # a watched folder around it, whose files are indexed already
    watcher_running: bool = False  # another process holds the index: it picks the folder up


@dataclass(frozen=True)
class RemovedFolder:
    """What ``remove_folder`` did."""

    folder: str
    files_removed: int
    kept_by_parent: bool  # its files stay: a watched folder around it holds them


class Footnotes:
    """One data directory's engine as the front ends meet it (see the module docstring)."""

    def __init__(
        self,
        data_dir: Path | str,
        *,
        settings: Settings | None = None,
        ollama_host: str | None = None,
        chroma_url: str | None = None,
        faults: Faults = NO_FAULTS,
        engine: Engine | None = None,
    ) -> None:
        from app.core.engine import Engine

        self.engine = engine or Engine(
            Path(data_dir),
            settings=settings,
            ollama_host=ollama_host,
            chroma_url=chroma_url,
            faults=faults,
        )
        self._threads: ThreadStore | None = None  # opened on first use
        self._threads_lock = threading.Lock()

    # -- state -------------------------------------------------------------------------------
    @property
    def data(self) -> DataDir:
        return self.engine.data

    @property
    def settings(self) -> Settings:
        return self.engine.settings

    def apply_settings(self, new: Settings) -> None:
        """Use ``new`` from now on (what depends on the old settings is rebuilt on next use)."""
        self.engine.apply_settings(new)

    # -- indexing ----------------------------------------------------------------------------
    def index(
        self,
        paths: Sequence[str],
        *,
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> IndexReport:
        """Bring the index up to date for these files and folders, once."""
        return self.engine.index(paths, progress=progress, cancel=cancel)

    def folders(self) -> list[str]:
        """The watched folders."""
        return self.engine.manifest.folders()

    def add_folder(self, path: str) -> AddedFolder:
        """Watch ``path`` from now on (raises OSError for a folder that cannot be watched)."""
        from app.core.errors import LockedError
        from app.core.ingest.scanning import is_within

        watched = self.folders()
        folder = self.engine.add_folder(path)
        if folder in watched:
            return AddedFolder(folder, already=True)
        around = next((f for f in watched if is_within(folder, f)), None)
        if around is not None:
            return AddedFolder(folder, inside=around)
        try:
            self.engine.acquire_writer("footnotes folders add")
        except LockedError:  # a running watcher (footnotes watch, the app) picks it up
            return AddedFolder(folder, watcher_running=True)
        return AddedFolder(folder)

    def remove_folder(self, path: str) -> RemovedFolder | None:
        """Stop watching ``path`` and take its files out of the index (unless a watched folder
        around it holds them); None when it was not watched."""
        from app.core.ingest.scanning import no_longer_watched, normalize

        folder = normalize(path)
        manifest = self.engine.manifest
        with self.engine.writing():
            self.engine.acquire_writer("footnotes folders remove")
            if not manifest.remove_folder(folder):
                return None
            known = manifest.files_under(folder)
            doomed = no_longer_watched(folder, manifest.folders(), known)
            removed = self.engine.indexer().remove(doomed) if doomed else 0
        return RemovedFolder(folder, removed, bool(known) and not doomed)

    def watch(
        self,
        *,
        on_progress: Callable[[Any], None] | None = None,
        on_status: Callable[[WatchStatus], None] | None = None,
    ) -> Watcher:
        """A watcher over the watched folders (``start`` it: it syncs, then follows changes),
        holding the data directory's writer lock from now on (LockedError names the process
        that holds it)."""
        from app.core.watch.watcher import Watcher

        self.engine.acquire_writer("footnotes watch")
        return Watcher(self.engine, on_progress=on_progress, on_status=on_status)

    def status(self) -> dict[str, Any]:
        """``status --json``: counts, failures, unavailable folders, warnings, skipped files."""
        from app.core.index import file_warnings
        from app.core.index.availability import folder_problem
        from app.core.watch.retrying import read_state

        status = self.engine.status()
        manifest = self.engine.manifest
        problems = {f: folder_problem(f, manifest.holds_files(f)) for f in status["folders"]}
        status["unavailable"] = [{"path": f, "reason": r} for f, r in problems.items() if r]
        status["watch"] = read_state(self.data.root, self.data.lock_path)  # None: no retry
        warned = file_warnings.listed(manifest.conn)
        status["warnings"] = [{"path": p, "warning": w} for p, w in warned]
        status["skipped"] = manifest.skipped_summary()
        status["files_skipped"] = sum(g["count"] for g in status["skipped"])
        return status

    def repair(self, progress: ProgressFn | None = None) -> list[str]:
        """Set damaged files aside and rebuild them; one line per repair."""
        return self.engine.repair(progress=progress)

    def doctor(self) -> list[tuple[str, str]]:
        """One (finding, line) per check, the finding ``ok``, ``warning`` or ``problem``:
        Ollama, the model, the embedding model, the verdict's parser, the index, the folders,
        privacy, the disk."""
        from app.core.doctor import checks, level

        return [(level(ok), text) for ok, text in checks(self.engine)]

    # -- search and ask ----------------------------------------------------------------------
    def search(
        self, query: str, k: int | None = None, mode: str = "hybrid", scope: Scope | None = None
    ) -> SearchResult:
        """The passages for ``query``, with the retrieval evidence (the support flag)."""
        return self.engine.search(query, k, mode, scope)

    def _ask_search(self, query: str, k: int, scope: Scope | None) -> SearchResult:
        return self.engine.search(query, k, scope=scope)

    def asker(
        self,
        options: AskOptions | None = None,
        *,
        keep_history: bool = True,
        reply: Reply | None = None,
    ) -> Asker:
        """The owner of asking over this index (``ask`` its requests); ``keep_history`` False
        for questions that are never kept (batches); ``reply`` writes answers instead of
        Ollama (a replay)."""
        from app.core.ask import Asker, AskOptions

        opts = options or AskOptions.from_settings(self.settings)
        store = self.threads if keep_history and self.settings.history_enabled else None
        return Asker(self._ask_search, store, opts, reply=reply)

    def ask(self, request: AskRequest, cancel: threading.Event | None = None) -> Iterator[AskEvent]:
        """One question end to end, as events: Planned, Searched, Piece…, Done."""
        return self.asker().ask(request, cancel)

    # -- threads -----------------------------------------------------------------------------
    @property
    def threads(self) -> ThreadStore:
        """The conversation store (threads.sqlite3), opened on first use. Questions are kept
        in it only while history is on (Settings); what it holds can be listed either way."""
        with self._threads_lock:
            if self._threads is None:
                from app.core.threads.store import ThreadStore

                self._threads = ThreadStore(self.data.threads_path, self.settings.busy_timeout_s)
            return self._threads

    def export(
        self,
        thread_id: str,
        *,
        turn: int | None = None,
        to: Path | None = None,
        force: bool = False,
    ) -> str:
        """A thread (or one of its answers) as Markdown with footnotes, returned, and written
        to ``to`` when given: a regular file in a folder that exists, never one of the data
        directory's, an existing one only with ``force``, written whole or not at all. Raises
        UnknownThread, or ValueError for a turn it does not have, or ExportError."""
        from app.core.errors import UnknownThread
        from app.core.threads.export import thread_markdown
        from app.core.threads.export_file import write_export

        store = self.threads
        info = store.get(thread_id)
        if info is None:
            raise UnknownThread(thread_id)
        turns = store.turns(info.id)
        if turn is not None:
            turns = [t for t in turns if t.n == turn]
            if not turns:
                raise ValueError(f"thread {info.id} has turns 1 to {info.turns}, not {turn}")
        text = thread_markdown(info.title, turns, thread_id=info.id)
        if to is not None:
            write_export(to, text, self.data.root, replace=force)
        return text

    def close(self) -> None:
        if self._threads is not None:
            self._threads.close()
        self.engine.close()
