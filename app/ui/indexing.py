"""The service's indexing side: requests go to the engine process, its events become signals.

Every index write happens in the engine process (``app.core.host.client``): its watcher
follows the folders, and folder changes, dropped files and pauses are sent to it in order.
Its events arrive on the host's reader thread and are reported through ``IndexingReports``
(the service's signals); the folder snapshot is read in the ``reader`` lane.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.core.api import (
    AddFolder,
    CancelDrop,
    DropDone,
    Event,
    IndexFiles,
    IndexProgress,
    IndexSummary,
    Opened,
    Pause,
    RemoveFolder,
    Request,
    Resume,
    WatchChanged,
    peek,
)
from app.ui.payloads import ErrorReport, FolderInfo, IndexSnapshot, SyncDone, SyncProgress

if TYPE_CHECKING:
    from app.core.api import IndexView, Progress, WatchStatus
    from app.ui.background import Lanes, StateBox
    from app.ui.engine_process import EngineProcess

BUSY_STATES = ("starting", "syncing", "updating")
RETRY_KEPT = ("unavailable", "polling", "error")  # said during a wait for a retry, which goes on
SNAPSHOT_EVERY_S = 1.5
FILE_EVENTS = ("indexed", "unchanged", "failed", "skipped")  # one file of the run is done


class EtaClock:
    """Estimates the time left from files done so far in the current run."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.total = 0

    def plan(self, total: int) -> None:
        """A run of ``total`` files starts now."""
        self.started, self.total = time.monotonic(), total

    def eta(self, done: int) -> float | None:
        """Seconds left after ``done`` files, or None while too early to tell."""
        elapsed = time.monotonic() - self.started
        if done < 2 or elapsed < 1.0 or self.total <= done:
            return None
        return (self.total - done) * elapsed / done


class PageClock:
    """Estimates the time left in one long file from the rate of its pages so far."""

    def __init__(self) -> None:
        self.path = ""
        self.started = 0.0
        self.first = 0

    def eta(self, path: str, page: int, pages: int) -> float | None:
        """Seconds left when page ``page`` of ``pages`` is being read, or None while too
        early to tell (under a second, or no page finished since this file began)."""
        done = page - 1
        now = time.monotonic()
        if path != self.path or done < self.first:
            self.path, self.started, self.first = path, now, done
            return None
        elapsed, progressed = now - self.started, done - self.first
        if elapsed < 1.0 or progressed < 1 or pages <= done:
            return None
        return (pages - done) * elapsed / progressed


def read_snapshot(
    summary: IndexSummary, status_of: Callable[[str, str | None], str]
) -> IndexSnapshot:
    """The folders panel's snapshot of what the index holds (``status_of(folder, problem)``
    words each folder's state)."""
    folders = [
        FolderInfo(
            path=f.path,
            files=f.files,
            indexed=f.indexed,
            failed=f.failed,
            passages=f.passages,
            status=status_of(f.path, f.problem),
            exists=f.problem is None,
            problem=f.problem or "",
        )
        for f in summary.folders
    ]
    return IndexSnapshot(
        folders,
        summary.files,
        summary.passages,
        summary.failures,
        summary.waiting,
        summary.skipped,
        summary.warnings,
    )


def first_snapshot(manifest_path: Path) -> IndexSnapshot | None:
    """What the index on disk holds before the engine has started (the window's first frame
    lists the watched folders at once); None without an index or one not readable now."""
    summary = peek(manifest_path)
    if summary is None:
        return None
    return read_snapshot(summary, lambda folder, problem: "unavailable" if problem else "waiting")


@dataclass(frozen=True)
class IndexingReports:
    """Where indexing news goes: the ``emit`` of the service's signals (any thread)."""

    progressed: Callable[[SyncProgress], None]
    finished: Callable[[SyncDone], None]
    snapshot: Callable[[IndexSnapshot], None]
    error: Callable[[ErrorReport], None]


class Indexing:
    """Watched folders, dropped files, pause and resume, and the folders' snapshot."""

    def __init__(
        self,
        engine: EngineProcess,
        state: StateBox,
        lanes: Lanes,
        view: IndexView,
        reports: IndexingReports,
    ) -> None:
        self.engine = engine
        self.state = state
        self.lanes = lanes
        self.view = view
        self.reports = reports
        self._eta: EtaClock | None = None
        self._pages = PageClock()
        self._new_texts = 0  # texts the run's files added: a vectors stage follows the reading
        self._embed_eta: EtaClock | None = None
        self._embedded = 0
        self._last_snapshot = 0.0
        self._snapshot_pending = False
        self._watch_busy = False
        self._following = False
        self._polling: frozenset[str] = frozenset()

    # -- requests (GUI thread) --------------------------------------------------------------
    def add_folder(self, path: str) -> None:
        """Watch ``path`` from now on and index it."""
        self._to_writer(AddFolder(path), refusal="no folder can be added")

    def remove_folder(self, path: str) -> None:
        """Stop watching ``path``; its passages leave the index."""
        self._to_writer(RemoveFolder(path), refusal="no folder can be removed")

    def index_paths(self, paths: list[str]) -> None:
        """Index these files once (dropped on the window); they are not watched."""
        if self._to_writer(IndexFiles(tuple(paths)), refusal="files cannot be added"):
            self.state.update(syncing=True)

    def set_paused(self, paused: bool) -> None:
        """Pause (stop the watcher, cancelling the sync in hand) or resume indexing."""
        if paused == self.state.value.paused:
            return
        self.state.update(paused=paused)
        if paused:
            self.cancel()
        self._to_writer(Pause() if paused else Resume(), refusal="")

    def cancel(self) -> None:
        """Stop indexing dropped files (the watcher's write in hand finishes)."""
        self.engine.tell(CancelDrop())

    def refresh_snapshot(self) -> None:
        """Read the folders' snapshot again in the reader lane (once, however often asked)."""
        if not self._snapshot_pending:
            self._snapshot_pending = True
            self.lanes.submit("reader", self._snapshot)

    def _to_writer(self, request: Request, *, refusal: str) -> bool:
        from app.core.errors import HostError

        if self.engine.host is None or not self.state.value.writable:
            if refusal:
                self.reports.error(ErrorReport(f"Indexing is off, so {refusal}."))
            return False
        try:
            self.engine.send(request)
        except HostError as exc:
            self.reports.error(ErrorReport(exc.args[0]))
            return False
        return True

    # -- events from the engine process (its reader thread) --------------------------------
    def on_event(self, event: Event) -> None:
        """React to the engine process: it opened, indexed a file, its watcher changed."""
        if isinstance(event, IndexProgress):
            self._on_progress(event.progress)
        elif isinstance(event, WatchChanged):
            self._following = event.following
            self._polling = frozenset(event.polling)
            self._on_watch_status(event.status)
        elif isinstance(event, DropDone):
            self._on_dropped(event)
        elif isinstance(event, Opened) and event.ok:
            if self.state.value.paused:
                self._to_writer(Pause(), refusal="")
            self.refresh_snapshot()

    def _on_watch_status(self, status: WatchStatus) -> None:
        busy = status.state in BUSY_STATES
        self._watch_busy = busy
        watching: str
        if status.state in ("watching", "polling"):
            watching = status.state
        else:  # busy keeps the last word; stopped (paused) clears it
            watching = self.state.value.watching if self._following else ""
        retry = self.state.value.retry if status.state in RETRY_KEPT else ""
        self.state.update(
            syncing=busy,
            watching=watching,
            message=status.message,
            folder=status.folder if busy else "",
            retry=status.message if status.state == "retrying" else retry,
        )
        if status.state == "error":
            self.reports.error(ErrorReport(status.message))
        if not busy:
            self.reports.finished(SyncDone())
        self.refresh_snapshot()

    def _on_progress(self, p: Progress) -> None:
        if p.event == "embedded":
            self._on_embedded(p)
            return
        eta = self._eta or EtaClock()
        self._eta = eta
        if p.event == "planned":
            eta.plan(p.total)
            self._new_texts = 0
            if p.total:
                self.state.update(syncing=True)
        elif p.event == "indexed":
            self._new_texts += p.chunks_embedded
        page, pages, page_eta = 0, 0, None
        if p.event in ("ocr", "page") and p.pages:
            page, pages = p.page, p.pages
            page_eta = self._pages.eta(p.path, page, pages)
        self.reports.progressed(
            SyncProgress(
                p.done,
                p.total or eta.total,
                p.path,
                p.event,
                eta.eta(p.done),
                p.detail,
                page,
                pages,
                page_eta,
            )
        )
        finished = p.event in FILE_EVENTS and p.done >= p.total > 0
        if finished and self._new_texts:  # every file is searchable; its vectors come next
            self.refresh_snapshot()
        elif finished or (p.event == "planned" and not p.total):
            # the run's last file (or nothing to do): the watcher may not report idle for it,
            # so what it said of the work ("Updating 1 path…") ends with the work
            self.state.update(syncing=False, message="", folder="")
            self.reports.finished(SyncDone())
            self.refresh_snapshot()
        else:
            overdue = time.monotonic() - self._last_snapshot > SNAPSHOT_EVERY_S
            if overdue or p.event in ("removed", "moved"):
                self.refresh_snapshot()

    def _on_embedded(self, p: Progress) -> None:
        """The vectors stage: passages done of those waiting, with its own time estimate."""
        if self._embed_eta is None or p.done < self._embedded:  # a new stage began
            self._embed_eta = EtaClock()
            self._embed_eta.plan(p.total)
        self._embedded = p.done
        self.reports.progressed(
            SyncProgress(p.done, p.total, "", "embedded", self._embed_eta.eta(p.done))
        )
        if p.done >= p.total:
            self._embed_eta, self._new_texts = None, 0
            self.state.update(syncing=False, message="", folder="")
            self.reports.finished(SyncDone())
            self.refresh_snapshot()
        elif time.monotonic() - self._last_snapshot > SNAPSHOT_EVERY_S:
            self.refresh_snapshot()

    def _on_dropped(self, done: DropDone) -> None:
        if done.error:
            self.reports.error(ErrorReport(done.error))
            self.reports.finished(SyncDone(error=done.error))
        elif done.cancelled:
            self.reports.finished(SyncDone(cancelled=True))
        elif done.report is not None:
            r = done.report
            self.reports.finished(
                SyncDone(r.files_indexed, r.files_failed, r.files_removed, r.seconds)
            )
        self.state.update(syncing=self._watch_busy)
        self.refresh_snapshot()

    # -- snapshot (reader lane) -------------------------------------------------------------
    def _snapshot(self) -> None:
        self._snapshot_pending = False
        self._last_snapshot = time.monotonic()
        if not self.state.value.engine_ready or not self.view.exists():
            return
        self.reports.snapshot(read_snapshot(self.view.summary(), self._folder_status))

    def _folder_status(self, folder: str, problem: str | None) -> str:
        state = self.state.value
        if problem is not None:
            return "unavailable"
        if not state.writable:
            return "read-only"
        if state.paused:
            return "paused"
        if folder in self._polling:
            return "polling"
        return "watching" if self._following else "waiting"
