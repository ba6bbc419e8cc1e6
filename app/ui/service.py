"""The service the windows talk to: runs the engine process and background lanes.

The engine (index writes, the watcher, the embedding model, search) runs in a child process
(``EngineProcess``), so its long GIL-holding calls never stall the window. Lanes here (one
thread each, jobs in order): ``writer`` starts the engine process, ``ask`` runs the core Ask
operation (searching through the engine process, streaming the answer from Ollama), ``view``
renders PDF pages and passage text with PyMuPDF, ``reader`` reads status snapshots from
SQLite and saves settings, ``probe`` checks Ollama. Indexing requests and reports go through
``Indexing``. Results come back as signals carrying one dataclass; requests are stamped with a
token so a window can drop results a newer request made stale.
"""

from __future__ import annotations

import importlib
import itertools
import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.core.api import Event, IndexView, Search, describe, preload
from app.core.config import DataDir, Settings
from app.ui.background import Lanes, StateBox
from app.ui.engine_process import EngineProcess
from app.ui.history import History
from app.ui.indexing import Indexing, IndexingReports
from app.ui.page_loader import PageLoader
from app.ui.payloads import AskUpdate, ErrorReport, ModelList, ServiceState

if TYPE_CHECKING:
    from app.core.api import AskRequest, EngineHost, Hit, Scope, SearchFn, SearchResult

log = logging.getLogger(__name__)
LANES = ("writer", "ask", "view", "reader", "probe")


class Service(QObject):
    """Runs the engine process; every slow call runs in a lane and reports back by signal."""

    state_changed = Signal(object)  # ServiceState
    ask_updated = Signal(object)  # AskUpdate: one event of the core Ask operation
    sync_progressed = Signal(object)  # SyncProgress
    sync_finished = Signal(object)  # SyncDone
    index_changed = Signal(object)  # IndexSnapshot
    models_listed = Signal(object)  # ModelList
    page_rendered = Signal(object)  # PageImage
    passage_loaded = Signal(object)  # PassageText
    settings_applied = Signal(object)  # Settings
    scope_choices_listed = Signal(object)  # ScopeChoices
    question_suggested = Signal(object)  # Suggestion, or None when nothing is indexed
    error_occurred = Signal(object)  # ErrorReport
    stopped = Signal()

    def __init__(
        self,
        data_dir: Path,
        *,
        settings: Settings | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.data = DataDir(Path(data_dir)).ensure()
        self.settings = settings or self.data.load_settings()
        self._state = StateBox(self.state_changed.emit)
        self._lanes = Lanes(LANES, self._on_lane_error)
        self._view = IndexView(self.data.manifest_path)
        self._pages = PageLoader(ocr_cache=str(self.data.ocr_cache_path))
        self._tokens = itertools.count(1)
        self._ask_cancel = threading.Event()
        self._ask_token = 0
        self.told_notes: set[str] = set()  # model notes already shown in this run (both windows)
        self._stop_thread: threading.Thread | None = None
        self.history = History(self.data, self._current_settings, self._lanes, self)
        self.engine = EngineProcess(
            self.data.root,
            self._current_settings,
            self._state,
            self._lanes,
            on_error=self.error_occurred.emit,
            on_event=self._on_engine_event,
        )
        self.indexing = Indexing(
            self.engine,
            self._state,
            self._lanes,
            self._view,
            IndexingReports(
                progressed=self.sync_progressed.emit,
                finished=self.sync_finished.emit,
                snapshot=self.index_changed.emit,
                error=self.error_occurred.emit,
            ),
        )

    # -- state -----------------------------------------------------------------------------
    @property
    def state(self) -> ServiceState:
        """What the app can do right now (replaced whole on each change)."""
        return self._state.value

    @property
    def host(self) -> EngineHost | None:
        """The engine process's handle (a new one after a restart)."""
        return self.engine.host

    def _on_lane_error(self, exc: BaseException) -> None:
        self.error_occurred.emit(ErrorReport(describe(exc), repr(exc)))

    def _on_engine_event(self, event: Event) -> None:
        self.indexing.on_event(event)

    # -- start -----------------------------------------------------------------------------
    def start(self) -> None:
        """Open the engine and load the embedding model in the background, then sync."""
        self.engine.start()
        self._lanes.submit("view", self._warm_view)

    def _warm_view(self) -> None:
        importlib.import_module("pymupdf")  # about 2 s
        preload("load_document")  # the loaders

    # -- indexing (the window's requests) --------------------------------------------------
    def add_folder(self, path: str) -> None:
        """Watch ``path`` from now on and index it."""
        self.indexing.add_folder(path)

    def remove_folder(self, path: str) -> None:
        """Stop watching ``path``; its passages leave the index."""
        self.indexing.remove_folder(path)

    def index_paths(self, paths: list[str]) -> None:
        """Index these files once (dropped on the window); they are not watched."""
        self.indexing.index_paths(paths)

    def set_paused(self, paused: bool) -> None:
        """Pause or resume indexing."""
        self.indexing.set_paused(paused)

    def _current_settings(self) -> Settings:
        return self.settings

    # -- asking ----------------------------------------------------------------------------
    def ask(self, request: AskRequest) -> int:
        """Start answering ``request`` in the ask lane (cancelling any earlier question) with
        the settings of this moment; its events come back by ``ask_updated``; returns its
        token."""
        self._ask_cancel.set()
        cancel = threading.Event()
        self._ask_cancel = cancel
        token = next(self._tokens)
        self._ask_token = token
        self._lanes.submit("ask", self._answer, token, request, cancel)
        return token

    def cancel_ask(self, token: int | None = None) -> None:
        """Stop the answer in progress (only if it is still ``token``'s, when given)."""
        if token is None or token == self._ask_token:
            self._ask_cancel.set()

    def _answer(self, token: int, request: AskRequest, cancel: threading.Event) -> None:
        """Run the core Ask in the ask lane, passing each event on (Done with its marks drawn
        here, off the GUI thread)."""
        from app.core.api import Asker, AskOptions, Done

        settings = self.settings
        store = self.history.store if settings.history_enabled else None
        asker = Asker(self._searcher(cancel), store, AskOptions.from_settings(settings))
        for event in asker.ask(request, cancel):
            html = None
            if isinstance(event, Done) and event.outcome.answer is not None:
                from app.ui.markup import marked_html

                a = event.outcome.answer
                html = marked_html(a.text, a.sentences, len(a.sources))
            self.ask_updated.emit(AskUpdate(token, event, html))

    def _searcher(self, cancel: threading.Event) -> SearchFn:
        """The window's one search: in the engine process (raises HostError when it is not
        there, or when ``cancel`` is set meanwhile)."""

        def search(query: str, k: int, scope: Scope | None) -> SearchResult:
            from app.core.errors import HostError

            if not self.engine.wait_ready():
                raise HostError("The index is not open.")
            return self.engine.search(Search(query, k, scope=scope), cancel)

        return search

    def list_scope_choices(self) -> None:
        """Read the watched folders and indexed file types in the reader lane; answered by
        ``scope_choices_listed``."""
        self._lanes.submit("reader", self._scope_choices)

    def _scope_choices(self) -> None:
        if self.state.engine_ready and self._view.exists():
            self.scope_choices_listed.emit(self._view.scope_choices())

    def suggest_question(self) -> None:
        """Pick a first question from the indexed passages in the reader lane; answered by
        ``question_suggested``."""
        self._lanes.submit("reader", self._suggest)

    def _suggest(self) -> None:
        if self.state.engine_ready and self._view.exists():
            self.question_suggested.emit(self._view.first_question())

    # -- viewing ---------------------------------------------------------------------------
    def new_token(self) -> int:
        """A fresh stamp for a request, so its view can drop results a newer one made stale."""
        return next(self._tokens)

    def render_page(self, token: int, path: str, page: int, zoom: float) -> None:
        """Render a PDF/EPUB page in the view lane; answered by ``page_rendered``."""
        self._lanes.submit("view", self._render, token, path, page, zoom)

    def _render(self, token: int, path: str, page: int, zoom: float) -> None:
        self.page_rendered.emit(self._pages.render(token, path, page, zoom))

    def load_passage(self, token: int, hit: Hit) -> None:
        """Load the text around a passage in the view lane; answered by ``passage_loaded``."""
        self._lanes.submit("view", self._passage, token, hit)

    def _passage(self, token: int, hit: Hit) -> None:
        self.passage_loaded.emit(self._pages.passage(token, hit))

    # -- settings --------------------------------------------------------------------------
    def list_models(self, host: str) -> None:
        """List Ollama's models at ``host`` in the probe lane; answered by ``models_listed``."""
        self._lanes.submit("probe", self._list_models, host)

    def _list_models(self, host: str) -> None:
        from app.core.api import probe_server
        from app.core.errors import AnswerError

        try:
            probe = probe_server(host, timeout_s=5.0)
        except AnswerError as exc:
            self.models_listed.emit(ModelList(host, [], error=exc.message))
            return
        self.models_listed.emit(
            ModelList(host, probe.models, version=probe.version, latency_ms=probe.latency_ms)
        )

    def apply_settings(self, new: Settings) -> None:
        """Save atomically and apply what can change without a restart."""
        self.settings = new
        self._lanes.submit("reader", self._save_settings, new)
        self.engine.apply_settings(new)

    def _save_settings(self, new: Settings) -> None:
        try:
            new.save(self.data.settings_path)
        except OSError as exc:
            self.error_occurred.emit(ErrorReport(f"Settings could not be saved: {exc}"))
            return
        self.settings_applied.emit(new)

    # -- stopping --------------------------------------------------------------------------
    def stop(self) -> None:
        """Cancel work, wait for the lanes in a helper thread, close the engine; emits stopped."""
        if self._stop_thread is not None:
            return
        self._ask_cancel.set()
        self.indexing.cancel()
        self._lanes.close()
        self._stop_thread = threading.Thread(target=self._finish, name="footnotes-stop")
        self._stop_thread.start()

    def wait_stopped(self, timeout: float | None = None) -> bool:
        """Stop (if not yet asked to) and wait; True if everything stopped in time."""
        if self._stop_thread is None:
            self.stop()
        assert self._stop_thread is not None
        self._stop_thread.join(timeout)
        return not self._stop_thread.is_alive()

    def _finish(self) -> None:
        started = time.monotonic()
        # the writer lane first: an engine process it is starting must exist before it stops
        self._lanes.shutdown("writer")
        self.engine.stop()  # finishes the write in hand; the index stays whole
        self._lanes.shutdown()
        self._pages.close()
        self._view.close()
        self.history.close()
        log.info("stopped in %.2f s", time.monotonic() - started)
        self.stopped.emit()
