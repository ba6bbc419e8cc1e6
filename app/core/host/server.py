"""The child side of ``app.core.host.client``: one Engine, its Watcher, the parent's requests.

Threads: the main thread receives requests; ``ops`` runs index writes in order (folders,
dropped files, pause and resume), ``calls`` answers searches with its own read-only manifest
connection, and the watcher has its writer thread. Progress and status go back over the pipe
as they happen. The end of the pipe (the parent quit or died) stops the child like ``stop``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.config import Settings
from app.core.host.messages import (
    AddFolder,
    ApplySettings,
    Call,
    CancelDrop,
    DropDone,
    Event,
    Failed,
    IndexFiles,
    IndexProgress,
    Opened,
    Pause,
    RemoveFolder,
    Reply,
    Request,
    Resume,
    Search,
    Stop,
    Warm,
    WatchChanged,
    describe,
)

if TYPE_CHECKING:
    from app.core.engine import Engine
    from app.core.index.indexer import Progress
    from app.core.index.manifest import Manifest
    from app.core.search.retrieval import SearchResult
    from app.core.search.scope import Scope
    from app.core.watch.watcher import Watcher, WatchStatus

log = logging.getLogger(__name__)
BACKGROUND_NICE = 10  # the window's process keeps the CPU when both want it
STOP_WAIT_S = 600.0  # an embedding batch in hand is allowed to finish


class HostServer:
    """Serves one parent until it says stop or goes away."""

    @staticmethod
    def main(
        conn: Connection, data_dir: str, settings: Settings, writer_name: str, write: bool
    ) -> None:
        """The child process's entry point: lower its priority, serve until told to stop."""
        # Ctrl+C in a terminal reaches the whole process group: the window's process quits on
        # it and tells this one to stop once the write in hand is done, so it is no interrupt
        # here (it printed a KeyboardInterrupt traceback from the middle of a receive)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if hasattr(os, "nice"):  # not on Windows
            with contextlib.suppress(OSError):
                os.nice(BACKGROUND_NICE)
        HostServer(conn, Path(data_dir), settings, writer_name, write).run()

    def __init__(
        self, conn: Connection, data_dir: Path, settings: Settings, writer_name: str, write: bool
    ) -> None:
        self.conn = conn
        self.data_dir = data_dir
        self.settings = settings
        self.writer_name = writer_name
        self.write = write
        self.engine: Engine | None = None
        self.writable = False
        self.watcher: Watcher | None = None
        self.paused = False
        self.drop_cancel = threading.Event()
        self._send_lock = threading.Lock()
        self._local = threading.local()
        self._readers: list[Manifest] = []
        self.ops = ThreadPoolExecutor(1, thread_name_prefix="host-ops")
        self.calls = ThreadPoolExecutor(1, thread_name_prefix="host-calls")

    # -- messaging -------------------------------------------------------------------------
    def send(self, message: Event | Reply) -> None:
        """Send an event or a reply to the parent (nothing if the pipe is gone)."""
        with self._send_lock, contextlib.suppress(OSError, ValueError):
            self.conn.send(message)

    def run(self) -> None:
        """Open the engine, then take requests until ``Stop`` or the end of the pipe."""
        if not self._open():
            return
        while True:
            try:
                message: Request | Call = self.conn.recv()
            except (EOFError, OSError):
                break
            if isinstance(message, Stop):
                break
            if isinstance(message, CancelDrop):
                self.drop_cancel.set()
                continue
            if isinstance(message, Call):
                self.calls.submit(self._answer, message)
            else:
                self.ops.submit(self._do, message)
        self._finish()

    def _answer(self, call: Call) -> None:
        """Run a request the parent waits for, and reply with its result or its failure."""
        try:
            self.send(Reply(call.id, self.handle(call.request)))
        except Exception as exc:
            log.exception("%s failed", type(call.request).__name__)
            self.send(Reply(call.id, error=describe(exc)))

    def _do(self, request: Request) -> None:
        """Run a request nobody waits for; a failure is reported as an event."""
        try:
            self.handle(request)
        except Exception as exc:
            log.exception("%s failed", type(request).__name__)
            self.send(Failed(describe(exc)))

    def handle(self, request: Request) -> Any:
        """Do what ``request`` asks; returns what a ``Call`` of it is answered with."""
        match request:
            case Search(question, k, mode, scope):
                return self.search(question, k, mode, scope)
            case Warm():
                return self.warm()
            case AddFolder(path):
                return self.add_folder(path)
            case RemoveFolder(path):
                return self.remove_folder(path)
            case IndexFiles(paths):
                return self.index_files(list(paths))
            case Pause():
                return self.pause()
            case Resume():
                return self.resume()
            case ApplySettings(settings):
                return self.apply_settings(settings)
        raise ValueError(f"The engine process cannot handle {type(request).__name__}.")

    # -- opening and closing ---------------------------------------------------------------
    def _open(self) -> bool:
        from app.core.engine import Engine
        from app.core.errors import LockedError
        from app.core.locking import read_only_message

        try:
            engine = Engine(self.data_dir, settings=self.settings)
        except Exception as exc:
            reason = f"Footnotes could not open its index: {describe(exc)}"
            self.send(Opened(False, False, reason))
            return False
        self.engine = engine
        message = ""
        if self.write:
            try:
                engine.acquire_writer(self.writer_name)
                engine.manifest.folders()  # creates the database on first run
                self.writable = True
            except LockedError as exc:
                message = read_only_message(exc.holder)
        self.send(Opened(True, self.writable, message))
        if self.writable:
            self._follow()
        return True

    def _finish(self) -> None:
        self.drop_cancel.set()
        self.ops.shutdown(wait=True, cancel_futures=True)
        stopped = self._unfollow()
        self.calls.shutdown(wait=True, cancel_futures=True)
        for reader in self._readers:
            reader.close()
        if self.engine is not None and stopped:  # never close under a running writer
            self.engine.close()

    # -- searching (calls thread) ----------------------------------------------------------
    def warm(self) -> None:
        """Load the embedding model and open the vector store before the first question."""
        assert self.engine is not None
        self.engine.catch_up(self._reader())  # the store opened now holds what is committed
        self.engine.embedder()
        self.engine.store()

    def search(
        self, question: str, k: int, mode: str = "hybrid", scope: Scope | None = None
    ) -> SearchResult:
        """Retrieve passages through the engine's one search entrance, on this thread's own
        read connection (it catches up with vectors another writer added)."""
        assert self.engine is not None
        return self.engine.search(question, k, mode, scope, reader=self._reader())

    def _reader(self) -> Manifest:
        manifest = getattr(self._local, "manifest", None)
        if manifest is None:
            from app.core.index.manifest import Manifest

            manifest = Manifest(self.engine.data.manifest_path, readonly=True)  # type: ignore[union-attr]
            self._local.manifest = manifest
            self._readers.append(manifest)
        return manifest

    # -- the watcher -----------------------------------------------------------------------
    def _follow(self) -> None:
        from app.core.watch.watcher import Watcher

        if self.engine is None or not self.writable or self.paused:
            return
        if self.watcher is not None and self.watcher.running:
            return
        self.watcher = Watcher(
            self.engine,
            on_progress=self._progress,
            on_status=self._status,
            writer_name=self.writer_name,
        )
        self.watcher.start()

    def _unfollow(self) -> bool:
        """Stop the watcher and wait for its write in hand; False if it would not finish."""
        watcher, self.watcher = self.watcher, None
        if watcher is None:
            return True
        watcher.stop(timeout=5.0)  # sets its stop event; observer threads get 5 s each
        deadline = time.monotonic() + STOP_WAIT_S
        while watcher.running and time.monotonic() < deadline:
            time.sleep(0.05)
        return not watcher.running

    def _progress(self, p: Progress) -> None:
        self.send(IndexProgress(p))

    def _status(self, status: WatchStatus) -> None:
        watcher = self.watcher
        polling = tuple(watcher.polling_folders) if watcher is not None else ()
        self.send(WatchChanged(status, watcher is not None, polling))

    # -- operations (ops thread, in order) -------------------------------------------------
    def add_folder(self, path: str) -> None:
        """Watch ``path`` (or only record it while paused: indexed on resume)."""
        assert self.engine is not None
        self._need_writer("no folder can be added")
        try:
            if self.watcher is not None and self.watcher.running:
                self.watcher.add_folder(path)
            else:
                self.engine.add_folder(path)  # indexed when indexing resumes
        except OSError as exc:
            raise OSError(f"Cannot watch {path}: {exc}") from exc

    def remove_folder(self, path: str) -> None:
        """Forget ``path`` and take its passages out of the index."""
        from app.core.ingest.scanning import normalize

        assert self.engine is not None
        self._need_writer("no folder can be removed")
        if self.watcher is not None and self.watcher.running:
            self.watcher.remove_folder(path)
        else:
            folder = normalize(path)
            self.engine.manifest.remove_folder(folder)
            self.engine.indexer().remove([folder])

    def index_files(self, paths: list[str]) -> None:
        """Index dropped files once; ends with a ``DropDone`` event."""
        from app.core.index.indexer import Cancelled

        assert self.engine is not None
        self._need_writer("files cannot be added")
        self.drop_cancel = cancel = threading.Event()
        indexer = self.engine.indexer()
        indexer.progress = self._progress
        try:
            report = indexer.update_paths(paths, cancel=cancel)
        except Cancelled:
            self.send(DropDone(cancelled=True))
        except Exception as exc:
            reason = f"Indexing the dropped files failed: {describe(exc)}"
            self.send(DropDone(error=reason))
        else:
            self.send(DropDone(report=report))
            self.engine.refresh_calibration()  # the support flag's measure, if it grew enough

    def pause(self) -> None:
        """Stop the watcher after its write in hand, and say so."""
        self.paused = True
        self._unfollow()
        self._status_stopped()

    def resume(self) -> None:
        """Start the watcher again."""
        self.paused = False
        self._follow()

    def apply_settings(self, new: Settings) -> None:
        """Use new settings as a whole; a change to what files are read restarts the watcher
        (files refused before, scans with OCR off, are then read again)."""
        engine = self.engine
        assert engine is not None
        old = engine.settings
        restart = self.writable and (
            old.ignore_patterns != new.ignore_patterns or old.ocr_enabled != new.ocr_enabled
        )
        following = restart and self.watcher is not None
        if restart:
            self._unfollow()
        self.settings = new
        engine.apply_settings(new)
        if following:
            self._follow()

    def _status_stopped(self) -> None:
        from app.core.watch.watcher import WatchStatus

        self.send(WatchChanged(WatchStatus("stopped", "Indexing is paused."), False))

    def _need_writer(self, what: str) -> None:
        if not self.writable:
            raise PermissionError(f"Indexing is off, so {what}.")
