"""The child side of ``engine_host``: one Engine, its Watcher, and the requests of the parent.

Threads: the main thread receives requests; ``ops`` runs index writes in order (folders,
dropped files, pause and resume), ``calls`` answers searches with its own read-only manifest
connection, and the watcher has its writer thread. Progress and status go back over the pipe
as they happen. The end of the pipe (the parent quit or died) stops the child like ``stop``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.config import Settings

if TYPE_CHECKING:
    from app.core.engine import Engine
    from app.core.index.indexer import Progress
    from app.core.index.manifest import Manifest
    from app.core.watch.watcher import Watcher, WatchStatus

log = logging.getLogger(__name__)
BACKGROUND_NICE = 10  # the window's process keeps the CPU when both want it
STOP_WAIT_S = 600.0  # an embedding batch in hand is allowed to finish


@dataclass(frozen=True)
class DropDone:
    """The end of indexing dropped files: a report, or cancelled, or an error."""

    report: Any = None  # IndexReport
    cancelled: bool = False
    error: str = ""


class HostServer:
    """Serves one parent until it says stop or goes away."""

    @staticmethod
    def main(
        conn: Connection, data_dir: str, settings: Settings, writer_name: str, write: bool
    ) -> None:
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
        self._seen = -1  # the manifest's data_version when the vector store was opened
        self.ops = ThreadPoolExecutor(1, thread_name_prefix="host-ops")
        self.calls = ThreadPoolExecutor(1, thread_name_prefix="host-calls")

    # -- messaging -------------------------------------------------------------------------
    def send(self, kind: str, payload: Any = None) -> None:
        with self._send_lock, contextlib.suppress(OSError, ValueError):
            self.conn.send((kind, payload))

    def run(self) -> None:
        if not self._open():
            return
        handlers: dict[str, Callable[..., Any]] = {
            "search": self.search,
            "warm": self.warm,
            "add_folder": self.add_folder,
            "remove_folder": self.remove_folder,
            "index": self.index_files,
            "pause": self.pause,
            "resume": self.resume,
            "settings": self.apply_settings,
        }
        while True:
            try:
                kind, req, op, args = self.conn.recv()
            except (EOFError, OSError):
                break
            if op == "stop":
                break
            if op == "cancel_drop":
                self.drop_cancel.set()
                continue
            pool = self.calls if kind == "call" else self.ops
            pool.submit(self._guard, kind, req, handlers[op], args)
        self._finish()

    def _guard(self, kind: str, req: int, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        result, error = None, ""
        try:
            result = fn(*args)
        except Exception as exc:
            log.exception("%s failed", getattr(fn, "__name__", fn))
            error = describe(exc)
            if kind != "call":
                self.send("error", error)
        if kind == "call":
            self.send("reply", (req, result, error))

    # -- opening and closing ---------------------------------------------------------------
    def _open(self) -> bool:
        from app.core.engine import Engine
        from app.core.locking import LockedError

        try:
            engine = Engine(self.data_dir, settings=self.settings)
        except Exception as exc:
            reason = f"Footnotes could not open its index: {describe(exc)}"
            self.send("opened", (False, False, reason))
            return False
        self.engine = engine
        message = ""
        if self.write:
            try:
                engine.acquire_writer(self.writer_name)
                engine.manifest.folders()  # creates the database on first run
                self.writable = True
            except LockedError as exc:
                message = f"{exc} Asking and searching still work; indexing is off."
        self.send("opened", (True, self.writable, message))
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
        self._seen = self._data_version()
        self.engine.embedder()
        self.engine.store()

    def search(self, question: str, k: int, mode: str = "hybrid") -> Any:
        from app.core.search.retrieval import Retriever

        engine = self.engine
        assert engine is not None
        if not self.writable:  # another process writes: see the vectors it added since
            version = self._data_version()
            if version != self._seen:
                engine.refresh_store()
                self._seen = version
        reader = self._reader()
        return Retriever(reader, engine.embedder, engine.store).search(question, k, mode)

    def _data_version(self) -> int:
        """Changes whenever another connection commits to the manifest (SQLite's counter)."""
        return int(self._reader().conn.execute("PRAGMA data_version").fetchone()[0])

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
        self.send("progress", p)

    def _status(self, status: WatchStatus) -> None:
        watcher = self.watcher
        polling = list(watcher.polling_folders) if watcher is not None else []
        self.send("status", (status, watcher is not None, polling))

    # -- operations (ops thread, in order) -------------------------------------------------
    def add_folder(self, path: str) -> None:
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
        from app.core.index.indexer import Cancelled

        assert self.engine is not None
        self._need_writer("files cannot be added")
        self.drop_cancel = cancel = threading.Event()
        indexer = self.engine.indexer()
        indexer.progress = self._progress
        try:
            report = indexer.update_paths(paths, cancel=cancel)
        except Cancelled:
            self.send("dropped", DropDone(cancelled=True))
        except Exception as exc:
            reason = f"Indexing the dropped files failed: {describe(exc)}"
            self.send("dropped", DropDone(error=reason))
        else:
            self.send("dropped", DropDone(report=report))

    def pause(self) -> None:
        self.paused = True
        self._unfollow()
        self._status_stopped()

    def resume(self) -> None:
        self.paused = False
        self._follow()

    def apply_settings(self, new: Settings) -> None:
        from app.core.ingest.scanning import IgnoreRules

        engine = self.engine
        assert engine is not None
        old, engine.settings = engine.settings, new
        if self.writable and old.ignore_patterns != new.ignore_patterns:
            following = self.watcher is not None
            self._unfollow()
            engine.indexer().ignore = IgnoreRules(new.ignore_patterns)
            if following:
                self._follow()

    def _status_stopped(self) -> None:
        from app.core.watch.watcher import WatchStatus

        self.send("status", (WatchStatus("stopped", "Indexing is paused."), False, []))

    def _need_writer(self, what: str) -> None:
        if not self.writable:
            raise PermissionError(f"Indexing is off, so {what}.")


def describe(exc: BaseException) -> str:
    """An exception as a sentence."""
    text = str(exc) or type(exc).__name__
    return text if text.endswith((".", "!", "?")) else text + "."
