"""The service the windows talk to: runs the engine process and background lanes.

The engine (index writes, the watcher, the embedding model, search) runs in a child process
(``app.core.host.client``), so its long GIL-holding calls never stall the window. Lanes here
(one thread each, jobs in order): ``writer`` starts the engine process, ``ask`` searches
(through the engine process) and streams the answer from Ollama, ``view`` renders PDF pages
and passage text with PyMuPDF, ``reader`` reads status snapshots from SQLite and saves
settings, ``probe`` checks Ollama. Results come back as signals carrying one dataclass;
requests are stamped with a token so a window can drop results a newer request made stale.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import itertools
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from app.core.config import DataDir, Settings
from app.core.host.server import BACKGROUND_NICE
from app.ui.indexing import IndexingMixin
from app.ui.page_loader import PageLoader
from app.ui.payloads import (
    AnswerDone,
    AnswerPiece,
    AskRequest,
    ErrorReport,
    ModelList,
    SearchDone,
    ServiceState,
)

if TYPE_CHECKING:
    from app.core.host.client import EngineHost
    from app.core.index.manifest import Manifest
    from app.core.types import Hit

log = logging.getLogger(__name__)
STOP_WAIT_S = 600.0  # a batch being embedded on a slow machine is allowed to finish
MAX_RESTARTS = 3  # an engine process that died is started again this often


class Service(QObject, IndexingMixin):
    """Runs the engine process; every slow call runs in a lane and reports back by signal."""

    state_changed = Signal(object)  # ServiceState
    search_finished = Signal(object)  # SearchDone
    answer_piece_arrived = Signal(object)  # AnswerPiece
    answer_finished = Signal(object)  # AnswerDone
    sync_progressed = Signal(object)  # SyncProgress
    sync_finished = Signal(object)  # SyncDone
    index_changed = Signal(object)  # IndexSnapshot
    models_listed = Signal(object)  # ModelList
    page_rendered = Signal(object)  # PageImage
    passage_loaded = Signal(object)  # PassageText
    settings_applied = Signal(object)  # Settings
    error_occurred = Signal(object)  # ErrorReport
    stopped = Signal()

    def __init__(
        self,
        data_dir: Path,
        *,
        settings: Settings | None = None,
        ollama_host: str | None = None,
        chroma_url: str | None = None,
        parent: QObject | None = None,
    ) -> None:
        QObject.__init__(self, parent)
        self.data = DataDir(Path(data_dir)).ensure()
        self.settings = settings or self.data.load_settings()
        if ollama_host:
            self.settings.ollama_host = ollama_host
        if chroma_url:
            self.settings.chroma_url = chroma_url
        self.host: EngineHost | None = None
        self._restarts = 0
        self._ready = threading.Event()
        self._state = ServiceState()
        self._state_lock = threading.Lock()
        self._tokens = itertools.count(1)
        self._ask_cancel = threading.Event()
        self._ask_token = 0
        self._local = threading.local()
        self._readers: list[Manifest] = []
        self._pages = PageLoader()
        self._lanes = {
            name: ThreadPoolExecutor(
                1, thread_name_prefix=f"footnotes-{name}", initializer=background_priority
            )
            for name in ("writer", "ask", "view", "reader", "probe")
        }
        self._stopping = False
        self._stop_thread: threading.Thread | None = None

    # -- state -----------------------------------------------------------------------------
    @property
    def state(self) -> ServiceState:
        return self._state

    def _update(self, **changes: Any) -> None:
        with self._state_lock:
            self._state = dataclasses.replace(self._state, **changes)
            state = self._state
        self.state_changed.emit(state)

    def _submit(self, lane: str, fn: Callable[..., None], *args: Any) -> Future[None] | None:
        if self._stopping:
            return None
        return self._lanes[lane].submit(self._guard, fn, *args)

    def _guard(self, fn: Callable[..., None], *args: Any) -> None:
        try:
            fn(*args)
        except Exception as exc:  # a bug or an unexpected fault: show it, keep the lane alive
            log.exception("background job failed")
            self.error_occurred.emit(ErrorReport(_describe(exc), repr(exc)))

    # -- start -----------------------------------------------------------------------------
    def start(self) -> None:
        """Open the engine and load the embedding model in the background, then sync."""
        self._submit("writer", self._open_engine)
        self._submit("ask", self._warm_up)
        self._submit("view", self._warm_view)

    def _open_engine(self) -> None:
        from app.core.host.client import EngineHost

        if self._stopping:
            return
        host = EngineHost(self.data.root, self.settings, on_message=self._on_host_message)
        self.host = host
        try:
            host.start()
        except Exception as exc:
            self._update(message=_describe(exc))
            self.error_occurred.emit(
                ErrorReport(f"Footnotes could not start its indexing process: {_describe(exc)}")
            )

    def _on_host_message(self, kind: str, payload: Any) -> None:
        if self._on_indexing_message(kind, payload):
            return
        if kind == "opened":
            ok, writable, message = payload
            if not ok:
                self._update(message=message)
                self.error_occurred.emit(ErrorReport(message))
                return
            self._ready.set()
            self._update(
                engine_ready=True,
                writable=writable,
                message=message,
                paused=self.state.paused and writable,
            )
            if message:  # after the state, so the window shows both together
                self.error_occurred.emit(ErrorReport(message))
            if self.state.paused:
                self._to_writer("pause", refusal="")
            self.refresh_snapshot()
        elif kind == "error":
            self.error_occurred.emit(ErrorReport(payload))
        elif kind == "exited":
            self._on_host_exited(payload)

    def _on_host_exited(self, code: int | None) -> None:
        if self._stopping:
            return
        self._ready.clear()
        self._update(engine_ready=False, model_loaded=False, syncing=False, watching="")
        self._restarts += 1
        if self._restarts > MAX_RESTARTS:
            message = (
                f"The indexing process stopped unexpectedly (exit code {code}) "
                f"{MAX_RESTARTS} times; restart Footnotes."
            )
            self._update(message=message)
            self.error_occurred.emit(ErrorReport(message))
            return
        self.error_occurred.emit(
            ErrorReport(
                f"The indexing process stopped unexpectedly (exit code {code}); it is starting "
                "again, and your index is intact."
            )
        )
        self._submit("writer", self._open_engine)
        self._submit("ask", self._warm_up)

    def _warm_up(self) -> None:
        """Import what the first answer needs, and have the engine load its model.

        C extensions (pydantic-core in the ollama client) hold the GIL while they initialise:
        better now, while the window shows "loading", than in the middle of the first answer.
        """
        from app.core.host.client import HostError
        from app.ui.markup import render_answer

        importlib.import_module("app.core.answer.answering")
        render_answer("**warm** [1]", 1)
        if not self._ready.wait(120) or self.host is None or self._stopping:
            return
        try:
            self.host.call("warm", timeout=STOP_WAIT_S)
        except HostError as exc:
            if not self._stopping:
                self.error_occurred.emit(
                    ErrorReport(f"The embedding model could not be loaded: {exc.args[0]}")
                )
            return
        self._update(model_loaded=True)

    def _warm_view(self) -> None:
        for module in ("pymupdf", "app.core.ingest.loaders"):  # pymupdf takes about 2 s
            importlib.import_module(module)

    def reader(self) -> Manifest:
        """This lane's read-only connection to the manifest (SQLite WAL: never blocks writes)."""
        manifest = getattr(self._local, "manifest", None)
        if manifest is None:
            from app.core.index.manifest import Manifest

            manifest = Manifest(self.data.manifest_path, readonly=True)
            self._local.manifest = manifest
            self._readers.append(manifest)
        return manifest

    # -- asking ----------------------------------------------------------------------------
    def ask(self, question: str) -> int:
        """Start answering ``question`` (cancelling any earlier one); returns its token."""
        self._ask_cancel.set()
        cancel = threading.Event()
        self._ask_cancel = cancel
        s = self.settings
        request = AskRequest(
            next(self._tokens),
            question.strip(),
            s.top_k,
            s.ollama_host,
            s.ollama_model,
            s.unsupported_mode,
            s.request_timeout_s,
        )
        self._ask_token = request.token
        self._submit("ask", self._answer, request, cancel)
        return request.token

    def cancel_ask(self, token: int | None = None) -> None:
        """Stop the answer in progress (only if it is still ``token``'s, when given)."""
        if token is None or token == self._ask_token:
            self._ask_cancel.set()

    def _answer(self, req: AskRequest, cancel: threading.Event) -> None:
        if cancel.is_set():
            self.answer_finished.emit(AnswerDone(req.token, cancelled=True))
            return
        if not self._ready.wait(120) or self.host is None:
            self.answer_finished.emit(AnswerDone(req.token, error="The index is not open."))
            return
        from app.core.answer.answering import answer_question
        from app.core.host.client import HostError

        try:
            result = self.host.call(
                "search", req.question, req.k, timeout=STOP_WAIT_S, cancel=cancel
            )
        except HostError as exc:
            self.answer_finished.emit(
                AnswerDone(req.token, error=exc.args[0], cancelled=cancel.is_set())
            )
            return
        self.search_finished.emit(SearchDone(req.token, result))
        if cancel.is_set():
            self.answer_finished.emit(AnswerDone(req.token, cancelled=True))
            return
        if not result.hits:
            note = "Nothing in your indexed files matches this question."
            if not self.reader().folders():
                note = "Your index is empty: add a folder (File ▸ Add folder, or drop one here)."
            self.answer_finished.emit(AnswerDone(req.token, note=note))
            return
        if req.unsupported_mode == "refuse" and not result.support.supported:
            note = (
                "Not answered: your files do not support an answer, so the model was not "
                "asked (Settings ▸ When unsupported). The closest passages are listed."
            )
            self.answer_finished.emit(AnswerDone(req.token, note=note))
            return

        def on_token(piece: str) -> None:
            self.answer_piece_arrived.emit(AnswerPiece(req.token, piece))

        answer = answer_question(
            req.question,
            result.hits,
            host=req.host,
            model=req.model,
            timeout_s=req.timeout_s,
            cancel=cancel,
            on_token=on_token,
        )
        from app.ui.markup import marked_html

        rendered = marked_html(answer.text, answer.sentences, len(answer.sources))
        self.answer_finished.emit(
            AnswerDone(
                req.token, answer, error=answer.error, cancelled=answer.cancelled, html=rendered
            )
        )

    # -- viewing ---------------------------------------------------------------------------
    def new_token(self) -> int:
        return next(self._tokens)

    def render_page(self, token: int, path: str, page: int, zoom: float) -> None:
        self._submit("view", self._render, token, path, page, zoom)

    def _render(self, token: int, path: str, page: int, zoom: float) -> None:
        self.page_rendered.emit(self._pages.render(token, path, page, zoom))

    def load_passage(self, token: int, hit: Hit) -> None:
        self._submit("view", self._passage, token, hit)

    def _passage(self, token: int, hit: Hit) -> None:
        self.passage_loaded.emit(self._pages.passage(token, hit))

    # -- settings --------------------------------------------------------------------------
    def list_models(self, host: str) -> None:
        self._submit("probe", self._list_models, host)

    def _list_models(self, host: str) -> None:
        from app.core.answer.answering import AnswerError
        from app.core.answer.ollama_client import probe_server

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
        self._submit("reader", self._save_settings, new)
        if self.host is not None:
            from app.core.host.client import HostError

            with contextlib.suppress(HostError):  # a restarted engine reads the saved file
                self.host.send("settings", new)

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
        self._cancel_indexing()
        self._stopping = True
        self._stop_thread = threading.Thread(target=self._finish, name="footnotes-stop")
        self._stop_thread.start()

    def wait_stopped(self, timeout: float | None = None) -> bool:
        if self._stop_thread is None:
            self.stop()
        assert self._stop_thread is not None
        self._stop_thread.join(timeout)
        return not self._stop_thread.is_alive()

    def _finish(self) -> None:
        started = time.monotonic()
        # the writer lane first: an engine process it is starting must exist before it stops
        self._lanes["writer"].shutdown(wait=True, cancel_futures=True)
        if self.host is not None:
            self.host.stop(STOP_WAIT_S)  # finishes the write in hand; the index stays whole
        for lane in self._lanes.values():
            lane.shutdown(wait=True, cancel_futures=True)
        self._pages.close()
        for manifest in self._readers:
            manifest.close()
        log.info("stopped in %.2f s", time.monotonic() - started)
        self.stopped.emit()


def background_priority() -> None:
    """Run this thread, and the threads and processes it starts, at a lower CPU priority.

    Linux keeps a nice value per thread and new threads inherit it, so page rendering and
    answer rendering yield the CPU to the GUI thread. The engine process lowers its own
    priority the same way (``host_server.BACKGROUND_NICE``).
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if text.endswith((".", "!", "?")) else text + "."
