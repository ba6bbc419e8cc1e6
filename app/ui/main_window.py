"""The main window: question, answer, sources and the passage in its file; folders at the side."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDockWidget,
    QHBoxLayout,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.ui import desktop
from app.ui.answer_view import AnswerView
from app.ui.ask_session import AskOutcome, AskSession, source_usage, unsupported_count
from app.ui.drops import DropOverlay
from app.ui.folders_panel import FoldersPanel
from app.ui.menus import build_actions, build_menus
from app.ui.passage_view import PassageView
from app.ui.sources_panel import SourcesPanel
from app.ui.theme import app_icon
from app.ui.widgets import Banner, ErrorBar, QuestionBox, plain_label
from app.ui.window_chrome import ChromeMixin

if TYPE_CHECKING:
    from app.ui.service import Service


class MainWindow(ChromeMixin, QMainWindow):
    """Presents the service: asks, streams answers, shows sources; owns no index state."""

    quick_ask_requested = Signal()
    settings_requested = Signal()
    quit_requested = Signal()
    folders_dropped = Signal(list)
    files_dropped = Signal(list)

    def __init__(self, service: Service, ui_settings: QSettings) -> None:
        super().__init__()
        self.service = service
        self.ui_settings = ui_settings
        self.tray_available = False
        self.setWindowTitle("Footnotes")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.session = AskSession(service, self)
        self.outcome: AskOutcome | None = None
        self._build()
        self.actions_ = build_actions(self)
        build_menus(self, self.actions_)
        for n in range(1, 10):
            a = QAction(self)
            a.setShortcut(f"Ctrl+{n}")
            a.setData(n)
            a.triggered.connect(self._on_source_shortcut)
            self.addAction(a)
        self._connect()
        self._restore()

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.question = QuestionBox()
        self.question.setPlaceholderText("Ask your files a question…   (Enter to ask, Esc to stop)")
        self.ask_button = QPushButton("Ask")
        self.ask_button.setObjectName("askButton")
        self.ask_button.setDefault(True)
        self.ask_button.clicked.connect(self._on_ask_button)
        self.errors = ErrorBar()
        self.banner = Banner()
        self.answer = AnswerView()
        self.sources = SourcesPanel()
        self.passage = PassageView(self.service)
        self.folders = FoldersPanel()
        self.overlay = DropOverlay(self)

        top = QHBoxLayout()
        top.addWidget(self.question, 1)
        top.addWidget(self.ask_button)
        sources_box = QWidget()
        sb = QVBoxLayout(sources_box)
        sb.setContentsMargins(0, 4, 0, 0)
        sb.setSpacing(4)
        self.sources_title = plain_label("Sources")
        self.sources_title.setObjectName("sectionTitle")
        sb.addWidget(self.sources_title)
        sb.addWidget(self.sources, 1)
        self.left_split = QSplitter(Qt.Orientation.Vertical)
        self.left_split.addWidget(self.answer)
        self.left_split.addWidget(sources_box)
        self.left_split.setStretchFactor(0, 3)
        self.left_split.setStretchFactor(1, 2)
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.addWidget(self.left_split)
        self.main_split.addWidget(self.passage)
        self.main_split.setStretchFactor(0, 1)
        self.main_split.setStretchFactor(1, 1)
        central = QWidget()
        box = QVBoxLayout(central)
        box.setContentsMargins(10, 10, 10, 6)
        box.setSpacing(8)
        box.addLayout(top)
        box.addWidget(self.errors)
        box.addWidget(self.banner)
        box.addWidget(self.main_split, 1)
        self.setCentralWidget(central)

        self.folders_dock = QDockWidget("Folders", self)
        self.folders_dock.setObjectName("foldersDock")
        self.folders_dock.setWidget(self.folders)
        self.folders_dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.folders_dock)
        self.folders_dock.setMinimumWidth(250)
        self.resizeDocks([self.folders_dock], [330], Qt.Orientation.Horizontal)

        self.status_label = plain_label("Opening the index…")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setMaximumHeight(14)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.progress_label = plain_label()
        self.progress_label.hide()
        self.counts_label = plain_label()
        self.counts_label.setObjectName("mutedLabel")
        bar = self.statusBar()
        bar.addWidget(self.status_label, 1)
        bar.addPermanentWidget(self.progress_label)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.counts_label)
        self.resize(1360, 860)

    def _connect(self) -> None:
        s = self.service
        s.state_changed.connect(self.on_state)
        s.sync_progressed.connect(self.on_progress)
        s.index_changed.connect(self.on_snapshot)
        s.error_occurred.connect(self.on_error)
        self.session.searched.connect(self.on_searched)
        self.session.piece_arrived.connect(self.answer.append)
        self.session.finished.connect(self.on_finished)
        self.question.ask_requested.connect(self.ask)
        self.question.cancel_requested.connect(self.cancel_ask)
        self.answer.citation_clicked.connect(self.show_source)
        self.answer.sentence_hovered.connect(self.on_sentence_hovered)
        self.answer.sentence_clicked.connect(self.on_sentence_clicked)
        self.sources.source_selected.connect(self._on_source_selected)
        self.sources.open_requested.connect(self._open_source_n)
        self.passage.open_requested.connect(self._open_file)
        self.passage.reveal_requested.connect(self._reveal_file)
        self.folders.add_requested.connect(self.choose_folder)
        self.folders.remove_requested.connect(self.service.remove_folder)
        self.folders_dock.visibilityChanged.connect(self._on_dock_visibility)
        self.folders_dropped.connect(self._on_folders_dropped)
        self.files_dropped.connect(self.service.index_paths)

    # -- asking ----------------------------------------------------------------------------
    @Slot()
    def ask_current(self) -> None:
        text = self.question.text().strip()
        if text:
            self.question.remember(text)
            self.ask(text)

    @Slot(str)
    def ask(self, question: str) -> None:
        self.errors.hide()
        self.banner.clear()
        self.sources.set_hits([])
        self.passage.clear()
        self.answer.begin(0)
        self.outcome = None
        self.session.ask(question)
        self.ask_button.setText("Stop")
        self.status_label.setText(
            "Searching your files…"
            if self.service.state.model_loaded
            else "Searching… (the embedding model is still loading)"
        )

    @Slot()
    def cancel_ask(self) -> None:
        self.session.cancel()

    @Slot()
    def _on_ask_button(self) -> None:
        if self.session.running:
            self.cancel_ask()
        else:
            self.ask_current()

    @Slot(object)
    def on_searched(self, outcome: AskOutcome) -> None:
        self.outcome = outcome
        result = outcome.result
        if result is None:
            return
        self.sources.set_hits(result.hits)
        self.answer.set_sources(len(result.hits))
        self.sources_title.setText(f"Sources  ·  {len(result.hits)} passages")
        if result.hits:
            s = result.support
            self.banner.show_verdict(s.supported, s.reason, s.score)
            self.sources.select(1)
        self.status_label.setText("Answering…")

    @Slot(object)
    def on_finished(self, outcome: AskOutcome) -> None:
        self.outcome = outcome
        self.ask_button.setText("Ask")
        self.status_label.setText("Ready.")
        if outcome.answer is not None:
            a = outcome.answer
            self.answer.finish(a.text, a.sentences, len(a.sources), outcome.html)
            self.sources.model_.set_usage(*source_usage(a))
            weak = unsupported_count(a)
            if weak and self.banner.supported is not None:
                total = sum(1 for m in a.sentences if m.kind != "meta")
                self.status_label.setText(
                    f"{weak} of {total} sentences are not backed by the passages "
                    "(marked with a red wavy line)."
                )
        if outcome.error:
            self.answer.show_message(outcome.error_message() or "", error=True)
            self.errors.show_message(outcome.error)
        elif outcome.note:
            self.answer.show_message(outcome.note)
        elif outcome.cancelled:
            self.answer.show_message("Stopped.")

    # -- sources and sentences -------------------------------------------------------------
    @Slot(int)
    def show_source(self, n: int) -> None:
        """Select source ``n`` and show its passage (a citation link, a shortcut, quick-ask)."""
        hit = self.sources.model_.hit(n)
        if hit is None:
            return
        if self.sources.current() == n:
            self.passage.show_source(n, hit)
        else:
            self.sources.select(n)

    @Slot(int)
    def _on_source_selected(self, n: int) -> None:
        hit = self.sources.model_.hit(n)
        if hit is not None:
            self.passage.show_source(n, hit)

    def _spans_for(self, index: int, n: int) -> list[tuple[int, int]]:
        marks = self.answer.marks
        if not 0 <= index < len(marks):
            return []
        return [(s, e) for (src, s, e) in marks[index].support_spans if src == n]

    @Slot(int)
    def on_sentence_hovered(self, index: int) -> None:
        if index < 0:
            self.passage.set_strong([])
            return
        n = self.passage.n
        spans = self._spans_for(index, n)
        self.passage.set_strong(spans)
        mark = self.answer.marks[index] if index < len(self.answer.marks) else None
        if mark is not None and not spans and mark.support_spans:
            other = mark.support_spans[0][0]
            self.statusBar().showMessage(
                f"This sentence rests on source [{other}]: click it to show that passage.", 4000
            )

    @Slot(int)
    def on_sentence_clicked(self, index: int) -> None:
        marks = self.answer.marks
        if not 0 <= index < len(marks):
            return
        mark = marks[index]
        if not mark.support_spans:
            if mark.kind != "meta":
                self.statusBar().showMessage(
                    "No passage in your files supports this sentence.", 5000
                )
            return
        n = mark.support_spans[0][0]
        if self.passage.n != n:
            self.show_source(n)
        self.passage.set_strong(self._spans_for(index, n))

    @Slot()
    def _on_source_shortcut(self) -> None:
        action = self.sender()
        if isinstance(action, QAction):
            self.show_source(int(action.data()))

    @Slot()
    def next_source(self) -> None:
        self.show_source(self.sources.current() + 1)

    @Slot()
    def previous_source(self) -> None:
        self.show_source(max(1, self.sources.current() - 1))

    @Slot()
    def open_current_source(self) -> None:
        self._open_source_n(self.sources.current())

    @Slot()
    def reveal_current_source(self) -> None:
        hit = self.sources.model_.hit(self.sources.current())
        if hit is not None:
            self._reveal_file(hit.path)

    @Slot(int)
    def _open_source_n(self, n: int) -> None:
        hit = self.sources.model_.hit(n)
        if hit is not None:
            self._open_file(hit.path, hit.page or 0)

    def _is_source(self, path: str) -> bool:
        """Only files that are sources of the shown answer (so: in the index) are opened."""
        return any(row.hit.path == path for row in self.sources.model_.rows)

    @Slot(str, int)
    def _open_file(self, path: str, page: int) -> None:
        if self._is_source(path):
            desktop.open_file(path, page)

    @Slot(str)
    def _reveal_file(self, path: str) -> None:
        if self._is_source(path):
            desktop.reveal(path)

    @Slot()
    def zoom_in(self) -> None:
        self.passage.pdf.zoom_in()

    @Slot()
    def zoom_out(self) -> None:
        self.passage.pdf.zoom_out()

    def adopt(self, outcome: AskOutcome, n: int) -> None:
        """Show an outcome asked elsewhere (quick-ask) and select its source ``n``."""
        self.show_and_raise()
        self.question.setText(outcome.question)
        self.banner.clear()
        self.answer.begin(0)
        self.session.outcome = None
        self.on_searched(outcome)
        if outcome.done:
            self.on_finished(outcome)
        else:
            self.answer.append(outcome.text)
            self.answer.stop()
        self.show_source(n)
