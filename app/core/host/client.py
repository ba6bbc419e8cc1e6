"""The engine in a child process: indexing, watching and search, away from a GUI's event loop.

    host = EngineHost(data_dir, settings, on_message=callback, writer_name="the Footnotes app")
    host.start()                          # the child opens the engine, takes the writer lock
    host.send(AddFolder(path))            # fire-and-forget requests, run in order
    result = host.call(Search(q, k))      # a request answered by the child (raises HostError)
    host.stop(timeout)                    # finishes the write in hand; True if it exited

Why a process: Chroma's upsert, SQLite's big transactions and unpickling parse results hold
Python's GIL for hundreds of milliseconds, which froze the window while indexing. Here they
hold the child's GIL instead. Searching runs in the child too, because a long-lived Chroma
client in another process never sees vectors added after it loaded its index.

The requests and events are the dataclasses of ``app.core.host.messages``. Events from the
child reach ``on_message(event)`` on a reader thread of the parent: ``Opened``,
``IndexProgress``, ``WatchChanged``, ``DropDone``, ``Failed``, and ``Exited`` when it ends.
Calls: ``Warm`` (load the model) and ``Search`` (answered with a SearchResult).
Children come from a fork server that has already imported the engine, sentence-transformers
and Chroma, so starting one takes well under a second. Where there is no fork server
(Windows), or when ``$FOOTNOTES_START_METHOD=spawn`` asks for it, children are spawned: a fresh
interpreter that imports all that itself, so starting takes a few seconds longer.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import logging
import multiprocessing as mp
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from app.core.config import Settings
from app.core.errors import HostError
from app.core.host.messages import Call, Event, Exited, Reply, Request, Search, Stop, Warm
from app.core.host.server import HostServer
from app.core.ingest.parsing import start_method

if TYPE_CHECKING:
    from app.core.search.retrieval import SearchResult

__all__ = ["EngineHost", "HostError"]

log = logging.getLogger(__name__)
# What the fork server imports once, before the first engine process forks from it: the
# engine's own modules. Not sentence-transformers (torch: ~5 s, needed only by the torch
# backend or a first-use export) nor chromadb (~1.2 s, first needed by a write or a search
# without a saved matrix): preloaded, they delayed the window's first answer by their import.
PRELOAD = [
    "app.core.host.server",
    "app.core.engine",
    "app.core.watch.watcher",
    "app.core.index.onnx_runner",
]
MessageFn = Callable[[Event], None]


_context_lock = threading.Lock()
_contexts: dict[str, Any] = {}


def context() -> Any:
    """The start context shared by every host of this process: a fork server (preloaded once)
    where the platform has one, else spawn (see ``start_method``)."""
    method = start_method("forkserver")
    with _context_lock:
        ctx = _contexts.get(method)
        if ctx is None:
            ctx = mp.get_context(method)
            if method == "forkserver":
                ctx.set_forkserver_preload(PRELOAD)
            _contexts[method] = ctx
        return ctx


class EngineHost:
    """The parent's handle on the engine process."""

    def __init__(
        self,
        data_dir: Path,
        settings: Settings,
        *,
        on_message: MessageFn,
        writer_name: str = "the Footnotes app",
        write: bool = True,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.settings = settings
        self.on_message = on_message
        self.writer_name = writer_name
        self.write = write
        self._conn: Connection | None = None
        self._proc: Any = None
        self._send_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[threading.Event, list[Reply]]] = {}
        self._pending_lock = threading.Lock()
        self._reader: threading.Thread | None = None
        self._join_lock = threading.Lock()
        self.start_method = ""  # how the child was started: forkserver, or spawn
        self._silenced = False  # stopped while the pipe stayed open: deliver nothing more

    @property
    def alive(self) -> bool:
        """True while the child process runs."""
        return self._proc is not None and self._proc.is_alive()

    def start(self) -> None:
        """Start the child (it opens the engine) and the thread that reads its messages."""
        ctx = context()
        self.start_method = ctx.get_start_method()
        parent, child = ctx.Pipe()
        self._proc = ctx.Process(
            # not a daemon: it starts the parser process; it stops when the pipe closes
            target=HostServer.main,
            name="footnotes-engine",
            args=(child, str(self.data_dir), self.settings, self.writer_name, self.write),
        )
        self._proc.start()
        child.close()
        self._conn = parent
        # Python waits for non-daemon children at exit: closing the pipe first tells the
        # child to finish its write in hand and exit, so an app that quits abruptly is not stuck
        atexit.register(self._close_pipe)
        self._reader = threading.Thread(
            target=self._read, name="footnotes-host-reader", daemon=True
        )
        self._reader.start()

    def send(self, request: Request) -> None:
        """Ask the child to do ``request``; raises HostError if it is gone."""
        if self._conn is None:
            raise HostError("The indexing process is not running.")
        try:
            with self._send_lock:
                self._conn.send(request)
        except (OSError, ValueError) as exc:
            raise HostError(f"The indexing process has stopped ({exc}).") from exc

    @overload
    def call(
        self, request: Search, *, timeout: float = ..., cancel: threading.Event | None = ...
    ) -> SearchResult: ...
    @overload
    def call(
        self, request: Warm, *, timeout: float = ..., cancel: threading.Event | None = ...
    ) -> None: ...
    def call(
        self,
        request: Search | Warm,
        *,
        timeout: float = 120.0,
        cancel: threading.Event | None = None,
    ) -> Any:
        """Ask the child for an answer and wait for it (``cancel`` stops the wait)."""
        if self._conn is None:
            raise HostError("The indexing process is not running.")
        call = Call(next(self._ids), request)
        done, box = threading.Event(), list[Reply]()
        with self._pending_lock:
            self._pending[call.id] = (done, box)
        try:
            with self._send_lock:
                self._conn.send(call)
            waited = 0.0
            while not done.wait(0.1):
                waited += 0.1
                if cancel is not None and cancel.is_set():
                    raise HostError("Cancelled.")
                if waited >= timeout:
                    raise HostError(f"The index did not answer within {timeout:.0f} s.")
                if not self.alive:
                    raise HostError("The indexing process has stopped.")
        except (OSError, ValueError) as exc:
            raise HostError(f"The indexing process has stopped ({exc}).") from exc
        finally:
            with self._pending_lock:
                self._pending.pop(call.id, None)
        reply = box[0]
        if reply.error:
            raise HostError(reply.error)
        return reply.result

    def stop(self, timeout: float = 600.0) -> bool:
        """Let the child finish the write in hand and exit; kill it after ``timeout``.

        Killing is safe (the index is consistent at every instant) but loses the batch in hand.
        """
        if self._proc is None:
            return True
        with contextlib.suppress(HostError):
            self.send(Stop())
        self._join(timeout)
        clean = not self._proc.is_alive()
        if not clean:
            log.warning("the engine process did not stop in %.0f s; killing it", timeout)
            self._proc.kill()
            self._join(10)
        if self._reader is not None:
            self._reader.join(5)
            if self._reader.is_alive():
                # Still blocked on the pipe (a process that inherited it holds it open).
                # Closing it under the blocked read could hand its number to the next file
                # opened; leave it, and let nothing it still reads reach the owner, who has
                # stopped listening.
                log.warning("the engine process's pipe is still open after it stopped")
                self._silenced = True
                return clean
        self._close_pipe()
        atexit.unregister(self._close_pipe)
        return clean

    def _join(self, timeout: float) -> None:
        # One joiner at a time: a fork-server child's exit status can be read only once, and
        # a second concurrent reader would get EOF and record exit code 255.
        with self._join_lock:
            self._proc.join(timeout)

    def _close_pipe(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _read(self) -> None:
        conn = self._conn
        assert conn is not None
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                break
            if isinstance(message, Reply):
                with self._pending_lock:
                    waiting = self._pending.get(message.id)
                if waiting is not None:
                    waiting[1].append(message)
                    waiting[0].set()
                continue
            self._deliver(message)
        if self._proc is not None:
            self._join(5)
        code = self._proc.exitcode if self._proc is not None else None
        self._deliver(Exited(code))

    def _deliver(self, event: Event) -> None:
        if self._silenced:
            return
        try:
            self.on_message(event)
        except Exception:  # a bug in the receiver must not stop the messages
            log.exception("handling %s from the engine process failed", type(event).__name__)
