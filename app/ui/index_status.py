"""Indexing in the window: its state on the folders panel, status bar and actions, and the
user's requests (add a folder, index files, pause) passed on to the service."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QFileDialog, QWidget

from app.ui.ask_session import AskSession
from app.ui.folders_panel import FoldersPanel, all_read
from app.ui.indexing import first_snapshot
from app.ui.menus import Actions
from app.ui.payloads import IndexSnapshot, ServiceState, SyncProgress
from app.ui.status_line import StatusLine

if TYPE_CHECKING:
    from app.ui.service import Service


def failures_headline(snapshot: IndexSnapshot | None, state: ServiceState) -> str:
    """The folders panel's line above the failures, saying only what is true now: nothing
    before the index is read (``snapshot`` None), no "every file was indexed" with no files
    or mid-sync."""
    if snapshot is None:
        return ""
    n = len(snapshot.failures)
    if n:
        failed = f"{n:,} file{'s' if n != 1 else ''} could not be indexed"
        return failed + " so far" if state.syncing else failed
    if not state.engine_ready:
        return ""
    if state.syncing:
        return "Indexing… no file has failed so far"
    if not snapshot.files:
        return "No files are indexed yet"
    return all_read(snapshot)


class IndexingView(QObject):
    """Presents the service's indexing state and turns the user's indexing requests into calls."""

    def __init__(
        self,
        service: Service,
        folders: FoldersPanel,
        actions: Actions,
        status: StatusLine,
        session: AskSession,
        dialog_parent: QWidget,
    ) -> None:
        super().__init__(dialog_parent)
        self.service = service
        self.folders = folders
        self.actions = actions
        self.status = status
        self.session = session
        self.dialog_parent = dialog_parent
        self.snapshot: IndexSnapshot | None = None  # None until the index has been read
        first = first_snapshot(service.data.manifest_path)
        if first is not None:  # the watched folders from the first frame, not the engine's
            folders.set_snapshot(first)
        service.state_changed.connect(self.on_state)
        service.sync_progressed.connect(self.on_progress)
        service.index_changed.connect(self.on_snapshot)
        self._headline()
        folders.add_requested.connect(self.choose_folder)
        folders.remove_requested.connect(service.remove_folder)
        actions.add_folder.triggered.connect(self.choose_folder)
        actions.index_files.triggered.connect(self.choose_files)
        actions.pause.triggered.connect(self.toggle_pause)

    # -- the service's reports -------------------------------------------------------------
    @Slot(object)
    def on_state(self, state: ServiceState) -> None:
        """What can be done now, and (unless a question is being answered) what is going on."""
        self.folders.set_state(state)
        self._headline()
        a = self.actions
        a.pause.setText("Resume indexing" if state.paused else "Pause indexing")
        a.pause.setEnabled(state.writable and state.engine_ready)
        a.add_folder.setEnabled(state.writable and state.engine_ready)
        a.index_files.setEnabled(state.writable and state.engine_ready)
        if not state.syncing:
            self.status.hide_progress()
        self._say(state)

    def _say(self, state: ServiceState) -> None:
        """What is going on, in the status line (unless a question is being answered)."""
        if self.session.running:
            return
        if not state.engine_ready:
            text = state.message or "Opening the index…"
        elif state.retry:  # the store is away (the model may be loaded or not): say so
            text = state.retry
        elif not state.model_loaded:
            text = "Loading the embedding model… (you can type your question meanwhile)"
        elif state.paused:
            text = "Indexing is paused."
        elif state.syncing:
            text = state.message or "Indexing…"
        elif self.snapshot is not None and not self.snapshot.files:
            text = "Ready. No files are indexed yet: add a folder, or drop files on the window."
        else:
            text = state.message or "Ready."
        self.status.say(text)

    @Slot(object)
    def on_progress(self, p: SyncProgress) -> None:
        """Progress to the folders panel and the status bar."""
        self.folders.set_progress(p)
        self.status.show_progress(p)

    @Slot(object)
    def on_snapshot(self, snapshot: IndexSnapshot) -> None:
        """Folders and counts to the folders panel and the status bar."""
        was_empty = self.snapshot is not None and not self.snapshot.files
        self.snapshot = snapshot
        self.folders.set_snapshot(snapshot)
        self._headline()
        self.status.show_counts(snapshot)
        if was_empty != (not snapshot.files):  # "no files yet" became true, or stopped being
            self._say(self.folders.state)

    def _headline(self) -> None:
        text = failures_headline(self.snapshot, self.folders.state)
        self.folders.failures_title.setText(text)
        self.folders.failures_title.setVisible(bool(text))

    # -- the user's requests ---------------------------------------------------------------
    @Slot()
    def choose_folder(self) -> None:
        """Ask for a folder to watch (Ctrl+O, or the panel's Add button), starting from the
        home folder (not wherever the app was started from)."""
        folder = QFileDialog.getExistingDirectory(
            self.dialog_parent, "Watch a folder", str(Path.home())
        )
        if folder:
            self.service.add_folder(folder)

    @Slot()
    def choose_files(self) -> None:
        """Ask for files to index once (Ctrl+Shift+O)."""
        files, _ = QFileDialog.getOpenFileNames(self.dialog_parent, "Index files")
        if files:
            self.service.index_paths(files)

    @Slot(list)
    def add_folders(self, folders: list[str]) -> None:
        """Watch each of these folders (dropped on the window)."""
        for folder in folders:
            self.service.add_folder(folder)

    @Slot(list)
    def index_files(self, files: list[str]) -> None:
        """Index these files once (dropped on the window)."""
        self.service.index_paths(files)

    @Slot()
    def toggle_pause(self) -> None:
        """Pause indexing, or resume it (Ctrl+P, or the tray)."""
        self.service.set_paused(not self.service.state.paused)
