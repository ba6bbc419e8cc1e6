"""Keeps the engine child process running for the service: opens, restarts, warms, stops.

The process (``app.core.host.client.EngineHost``) is started in the ``writer`` lane and
warmed (the embedding model loaded) in the ``ask`` lane. Its events arrive on the host's
reader thread: ``Opened`` and ``Exited`` are handled here, then every event goes on to
``on_event`` (the service's indexing side reacts to them too).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.core.api import (
    ApplySettings,
    Event,
    Exited,
    Failed,
    Opened,
    Request,
    Search,
    Warm,
    describe,
    preload,
)
from app.ui.payloads import ErrorReport

if TYPE_CHECKING:
    from app.core.api import EngineHost, SearchResult
    from app.core.config import Settings
    from app.ui.background import Lanes, StateBox

STOP_WAIT_S = 600.0  # a batch being embedded on a slow machine is allowed to finish
READY_WAIT_S = 120.0  # how long a question waits for the engine to open
MAX_RESTARTS = 3  # an engine process that died is started again this often


class EngineProcess:
    """The service's one engine process, started again (a few times) if it dies."""

    def __init__(
        self,
        data_root: Path,
        settings: Callable[[], Settings],
        state: StateBox,
        lanes: Lanes,
        *,
        on_error: Callable[[ErrorReport], None],
        on_event: Callable[[Event], None],
    ) -> None:
        self.data_root = data_root
        self.settings = settings  # the service's current snapshot, read at each (re)start
        self.state = state
        self.lanes = lanes
        self.on_error = on_error
        self.on_event = on_event
        self.host: EngineHost | None = None
        self.ready = threading.Event()
        self.restarts = 0

    def start(self) -> None:
        """Start the process (writer lane) and load the embedding model (ask lane)."""
        self.lanes.submit("writer", self._open)
        self.lanes.submit("ask", self._warm_up)

    def _open(self) -> None:
        from app.core.api import EngineHost

        if self.lanes.closed:
            return
        host = EngineHost(self.data_root, self.settings(), on_message=self._on_message)
        self.host = host
        try:
            host.start()
        except Exception as exc:
            self.state.update(message=describe(exc))
            self.on_error(
                ErrorReport(f"Footnotes could not start its indexing process: {describe(exc)}")
            )

    def _warm_up(self) -> None:
        """Import what the first answer needs, and have the engine load its model.

        C extensions (pydantic-core in the ollama client) hold the GIL while they initialise:
        better now, while the window shows "loading", than in the middle of the first answer.
        """
        from app.core.errors import HostError
        from app.ui.markup import render_answer

        preload("Answer")  # the prompt and the Ollama client
        render_answer("**warm** [1]", 1)
        if not self.ready.wait(READY_WAIT_S) or self.host is None or self.lanes.closed:
            return
        try:
            self.host.call(Warm(), timeout=STOP_WAIT_S)
        except HostError as exc:
            if not self.lanes.closed:
                self.on_error(
                    ErrorReport(f"The embedding model could not be loaded: {exc.args[0]}")
                )
            return
        self.state.update(model_loaded=True)

    # -- requests --------------------------------------------------------------------------
    def wait_ready(self) -> bool:
        """Wait (a while) for the process to open; False if it did not."""
        return self.ready.wait(READY_WAIT_S) and self.host is not None

    def search(self, request: Search, cancel: threading.Event) -> SearchResult:
        """Search in the process; raises HostError (also when ``cancel`` is set meanwhile)."""
        from app.core.errors import HostError

        if self.host is None:
            raise HostError("The indexing process is not running.")
        return self.host.call(request, timeout=STOP_WAIT_S, cancel=cancel)

    def send(self, request: Request) -> None:
        """Send ``request`` to the process; raises HostError if there is none or it is gone."""
        from app.core.errors import HostError

        if self.host is None:
            raise HostError("The indexing process is not running.")
        self.host.send(request)

    def tell(self, request: Request) -> None:
        """Send ``request`` if a process is there to hear it (best effort)."""
        from app.core.errors import HostError

        with contextlib.suppress(HostError):
            self.send(request)

    def apply_settings(self, new: Settings) -> None:
        """Have the process use ``new`` from now on (a restarted one starts with it)."""
        self.tell(ApplySettings(new))

    def stop(self) -> None:
        """Let the process finish the write in hand and exit (the index stays whole)."""
        if self.host is not None:
            self.host.stop(STOP_WAIT_S)

    # -- events (the host's reader thread) -------------------------------------------------
    def _on_message(self, event: Event) -> None:
        if isinstance(event, Opened):
            if not self._opened(event):
                return
        elif isinstance(event, Failed):
            self.on_error(ErrorReport(event.message))
        elif isinstance(event, Exited):
            self._exited(event.code)
        self.on_event(event)

    def _opened(self, event: Opened) -> bool:
        """Record an opened engine; False if it failed to open."""
        if not event.ok:
            self.state.update(message=event.message)
            self.on_error(ErrorReport(event.message))
            return False
        self.ready.set()
        paused = self.state.value.paused
        self.state.update(
            engine_ready=True,
            writable=event.writable,
            message=event.message,
            paused=paused and event.writable,
        )
        if event.message:  # after the state, so the window shows both together
            self.on_error(ErrorReport(event.message))
        return True

    def _exited(self, code: int | None) -> None:
        if self.lanes.closed:
            return
        self.ready.clear()
        self.state.update(engine_ready=False, model_loaded=False, syncing=False, watching="")
        self.restarts += 1
        if self.restarts > MAX_RESTARTS:
            message = (
                f"The indexing process stopped unexpectedly (exit code {code}) "
                f"{MAX_RESTARTS} times; restart Footnotes."
            )
            self.state.update(message=message)
            self.on_error(ErrorReport(message))
            return
        self.on_error(
            ErrorReport(
                f"The indexing process stopped unexpectedly (exit code {code}); it is starting "
                "again, and your index is intact."
            )
        )
        self.start()
