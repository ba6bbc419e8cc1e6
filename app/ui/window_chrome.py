"""MainWindow's chrome: status bar, progress, drops, geometry, theme, dialogs, closing."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, Qt, Slot
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDragLeaveEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from app import __version__
from app.ui.drops import has_local_paths, split_drop
from app.ui.folders_panel import progress_text
from app.ui.menus import SHORTCUTS
from app.ui.payloads import ErrorReport, IndexSnapshot, ServiceState, SyncProgress
from app.ui.theme import apply_theme

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QProgressBar, QSplitter

    from app.ui.answer_view import AnswerView
    from app.ui.ask_session import AskOutcome, AskSession
    from app.ui.drops import DropOverlay
    from app.ui.folders_panel import FoldersPanel
    from app.ui.menus import Actions
    from app.ui.passage_view import PassageView
    from app.ui.service import Service
    from app.ui.sources_panel import SourcesPanel
    from app.ui.widgets import Banner, ErrorBar, QuestionBox

    _Window = QMainWindow
else:
    _Window = object

HISTORY_KEY = "ask/history"


class ChromeMixin(_Window):
    """Everything around the answer: service state, folders, window management."""

    _quitting = False
    _told_tray = False
    if TYPE_CHECKING:  # provided by MainWindow
        service: Service
        ui_settings: QSettings
        tray_available: bool
        actions_: Actions
        session: AskSession
        outcome: AskOutcome | None
        question: QuestionBox
        answer: AnswerView
        banner: Banner
        errors: ErrorBar
        sources: SourcesPanel
        passage: PassageView
        folders: FoldersPanel
        folders_dock: QDockWidget
        overlay: DropOverlay
        main_split: QSplitter
        left_split: QSplitter
        status_label: QLabel
        progress: QProgressBar
        progress_label: QLabel
        counts_label: QLabel
        folders_dropped: Any
        files_dropped: Any
        quick_ask_requested: Any
        settings_requested: Any
        quit_requested: Any

    # -- service state ---------------------------------------------------------------------
    @Slot(object)
    def on_state(self, state: ServiceState) -> None:
        self.folders.set_state(state)
        a = self.actions_
        a.pause.setText("Resume indexing" if state.paused else "Pause indexing")
        a.pause.setEnabled(state.writable and state.engine_ready)
        a.add_folder.setEnabled(state.writable and state.engine_ready)
        a.index_files.setEnabled(state.writable and state.engine_ready)
        if not state.syncing:
            self.progress.hide()
            self.progress_label.hide()
        if self.session.running:
            return
        if not state.engine_ready:
            text = state.message or "Opening the index…"
        elif not state.model_loaded:
            text = "Loading the embedding model… (you can type your question meanwhile)"
        elif state.paused:
            text = "Indexing is paused."
        else:
            text = state.message or "Ready."
        self.status_label.setText(text)

    @Slot(object)
    def on_progress(self, p: SyncProgress) -> None:
        self.folders.set_progress(p)
        if p.event not in ("planned", "indexed", "unchanged", "failed") or not p.total:
            return
        self.progress.setRange(0, p.total)
        self.progress.setValue(p.done)
        self.progress_label.setText(progress_text(p))
        self.progress.show()
        self.progress_label.show()

    @Slot(object)
    def on_snapshot(self, snapshot: IndexSnapshot) -> None:
        self.folders.set_snapshot(snapshot)
        failed = f"  ·  {len(snapshot.failures)} failed" if snapshot.failures else ""
        self.counts_label.setText(
            f"{snapshot.files:,} files  ·  {snapshot.passages:,} passages{failed}"
        )

    @Slot(object)
    def on_error(self, report: ErrorReport) -> None:
        self.errors.show_message(report.message)

    # -- folders ---------------------------------------------------------------------------
    @Slot()
    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Watch a folder")
        if folder:
            self.service.add_folder(folder)

    @Slot()
    def choose_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Index files")
        if files:
            self.service.index_paths(files)

    @Slot(list)
    def _on_folders_dropped(self, folders: list[str]) -> None:
        for folder in folders:
            self.service.add_folder(folder)

    @Slot()
    def toggle_pause(self) -> None:
        self.service.set_paused(not self.service.state.paused)

    @Slot()
    def toggle_folders(self) -> None:
        self.folders_dock.setVisible(not self.folders_dock.isVisible())

    @Slot(bool)
    def _on_dock_visibility(self, visible: bool) -> None:
        self.actions_.toggle_folders.setChecked(visible)

    # -- drag and drop ---------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if has_local_paths(event.mimeData()) and self.service.state.writable:
            event.acceptProposedAction()
            self.overlay.cover()
        else:
            event.ignore()

    def dragMoveEvent(self, event: Any) -> None:
        if has_local_paths(event.mimeData()):
            event.acceptProposedAction()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.overlay.hide()

    def dropEvent(self, event: QDropEvent) -> None:
        self.overlay.hide()
        folders, files = split_drop(event.mimeData())
        if not folders and not files:
            event.ignore()
            return
        event.acceptProposedAction()
        if folders:
            self.folders_dropped.emit(folders)
        if files:
            self.files_dropped.emit(files)
        what = []
        if folders:
            what.append(f"watching {len(folders)} folder{'s' if len(folders) > 1 else ''}")
        if files:
            what.append(f"indexing {len(files)} file{'s' if len(files) > 1 else ''}")
        self.statusBar().showMessage("Dropped: " + " and ".join(what) + ".", 5000)

    # -- window management -----------------------------------------------------------------
    @Slot()
    def focus_question(self) -> None:
        self.question.setFocus()
        self.question.selectAll()

    @Slot()
    def show_and_raise(self) -> None:
        self.show()
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.raise_()
        self.activateWindow()

    @Slot()
    def show_quick_ask(self) -> None:
        self.quick_ask_requested.emit()

    @Slot()
    def show_settings(self) -> None:
        self.settings_requested.emit()

    @Slot()
    def quit_app(self) -> None:
        self._quitting = True
        self.save_geometry()
        self.quit_requested.emit()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._quitting or not self.tray_available:
            self._quitting = True
            self.save_geometry()
            event.accept()
            self.quit_requested.emit()
            return
        self.save_geometry()
        event.ignore()
        self.hide()
        if not self._told_tray:
            self._told_tray = True
            self.statusBar().showMessage("Footnotes keeps running in the tray.", 5000)

    def save_geometry(self) -> None:
        s = self.ui_settings
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("window/main_split", self.main_split.saveState())
        s.setValue("window/left_split", self.left_split.saveState())
        s.setValue(HISTORY_KEY, self.question.history[-100:])
        s.sync()

    def _restore(self) -> None:
        s = self.ui_settings
        for key, restore in (
            ("window/geometry", self.restoreGeometry),
            ("window/state", self.restoreState),
            ("window/main_split", self.main_split.restoreState),
            ("window/left_split", self.left_split.restoreState),
        ):
            value = s.value(key)
            if isinstance(value, QByteArray):
                restore(value)
        if not isinstance(s.value("window/geometry"), QByteArray):
            screen = QApplication.primaryScreen()
            if screen is not None:
                room = screen.availableGeometry()
                self.resize(
                    min(1360, int(room.width() * 0.92)), min(880, int(room.height() * 0.92))
                )
        if not isinstance(s.value("window/main_split"), QByteArray):
            self.main_split.setSizes([560, 640])
            self.left_split.setSizes([460, 340])
        history = s.value(HISTORY_KEY) or []
        self.question.set_history(
            [str(q) for q in history] if isinstance(history, list) else [str(history)]
        )
        theme = str(s.value("ui/theme", "system"))
        for a in self.actions_.theme.actions():
            a.setChecked(a.data() == theme)

    @Slot(QAction)
    def on_theme_chosen(self, action: QAction) -> None:
        self.set_theme(str(action.data()))

    def set_theme(self, name: str) -> None:
        """Switch between the system, light and dark palettes, and remember the choice."""
        self.ui_settings.setValue("ui/theme", name)
        for a in self.actions_.theme.actions():
            a.setChecked(a.data() == name)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, name)
        self.answer.restyle()
        if self.outcome is not None and self.outcome.answer is not None:
            done = self.outcome.answer
            self.answer.finish(done.text, done.sentences, len(done.sources))
        if self.banner.supported is not None and self.outcome and self.outcome.result:
            s = self.outcome.result.support
            self.banner.show_verdict(s.supported, s.reason, s.score)
        self.passage.set_strong([])
        self.folders.refresh()

    @Slot()
    def show_shortcuts(self) -> None:
        rows = "".join(
            f"<tr><td><b>{html.escape(k)}</b>&nbsp;&nbsp;</td><td>{html.escape(v)}</td></tr>"
            for k, v in SHORTCUTS
        )
        QMessageBox.information(self, "Keyboard shortcuts", f"<table>{rows}</table>")

    @Slot()
    def show_about(self) -> None:
        QMessageBox.about(
            self,
            "About Footnotes",
            f"<h3>Footnotes {__version__}</h3><p>Answers from your own files, every claim "
            "pointing at the passage it came from. Everything stays on this computer.</p>"
            f"<p>Data directory:<br><code>{html.escape(str(self.service.data.root))}</code></p>"
            "<p>Licence: AGPL-3.0-or-later.</p>",
        )
