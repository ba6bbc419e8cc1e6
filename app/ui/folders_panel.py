"""Watched folders with counts and status, add/remove, progress with ETA, files that failed
and files skipped (by reason and type)."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.api import is_within
from app.core.wording import counted, skipped_headline
from app.ui.payloads import IndexSnapshot, ServiceState, SyncProgress
from app.ui.sources_panel import short_folder
from app.ui.theme import colors
from app.ui.widgets import ElidedLabel, plain_label, shown_path, tooltip

MAX_FAILURES_SHOWN = 1000
# Steps of a run the bar shows: files read (and skipped), pages inside a long file, vectors.
BAR_EVENTS = ("planned", "indexed", "unchanged", "failed", "skipped", "ocr", "page", "embedded")
STATUS_COLUMN_MAX = 150  # the status column's widest (a longer status is elided, in full on hover)
STATUS_TEXT = {
    "watching": ("● watching", "ok_fg"),
    "polling": ("● polling (no change notices)", "warn_fg"),
    "unavailable": ("● unavailable", "warn_fg"),
    "paused": ("❚❚ paused", "muted_fg"),
    "read-only": ("● read-only", "muted_fg"),
    "waiting": ("● starting…", "muted_fg"),
}


def removal_question(folder: str, passages: int) -> str:
    """What the window asks before a folder leaves the index (its files stay on disk)."""
    name = os.path.basename(folder.rstrip(os.sep)) or folder
    noun = "passage" if passages == 1 else "passages"
    return (
        f"Remove '{name}' and its {passages:,} {noun} from the index? "
        "The files stay where they are."
    )


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return "less than a minute left"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min left"
    return f"about {minutes // 60} h {minutes % 60:02d} min left"


def bar_range(p: SyncProgress) -> tuple[int, int]:
    """(maximum, value) for a progress bar: never past its end, never a negative total."""
    total = max(p.total, 0)
    return total, min(max(p.done, 0), total)


def all_read(snapshot: IndexSnapshot) -> str:
    """The headline when no file failed: "every file was indexed" only when none was skipped
    either (the line under it counts the skipped ones)."""
    return "✓  No file failed" if snapshot.skipped else "✓  Every file was indexed"


def progress_text(p: SyncProgress) -> str:
    """What a step of a run says, from its numbers: files, pages of a long file, vectors."""
    if not p.total:
        return "Checking for changes…"
    eta = format_eta(p.eta_s)
    total, done = bar_range(p)
    if p.event == "embedded":  # every file is searchable by its words already
        return (
            f"Computing vectors: {done:,} of {total:,} new passages  ·  searchable by "
            "words already" + (f"  ·  {eta}" if eta else "")
        )
    if p.event in ("ocr", "page") and p.pages:  # a long file: which page is being read
        name = os.path.basename(p.path)
        what = "OCR page" if p.event == "ocr" else "page"
        page = min(p.page, p.pages)
        return f"Indexing {done:,} of {total:,} files  ·  {name}: {what} {page:,} of {p.pages:,}"
    return f"Indexing {done:,} of {total:,} files" + (f"  ·  {eta}" if eta else "")


class FoldersPanel(QWidget):
    """The folders side panel; presents IndexSnapshot and progress, asks for changes."""

    add_requested = Signal()
    remove_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("foldersPanel")
        self.snapshot = IndexSnapshot([])
        self.state = ServiceState()
        self.progress: SyncProgress | None = None
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Folder", "Files", "Status"])
        self.tree.setRootIsDecorated(False)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setMaximumSectionSize(STATUS_COLUMN_MAX)
        header.setStretchLastSection(False)
        # a long name or status is elided, never widening the panel (the tooltip has it all)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.itemSelectionChanged.connect(self._on_selection)
        self.add_button = QPushButton("Add folder…")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setEnabled(False)
        self.add_button.clicked.connect(self.add_requested)
        self.remove_button.clicked.connect(self._remove)
        self.bar = QProgressBar()
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(6)
        self.bar_label = ElidedLabel(mode=Qt.TextElideMode.ElideRight)  # "Computing vectors…"
        self.bar_label.setObjectName("mutedLabel")
        self.bar.hide()
        self.bar_label.hide()
        self.retry_label = plain_label()  # writes wait for a retry (the store is away)
        self.retry_label.setObjectName("retryLabel")
        self.retry_label.setWordWrap(True)
        self.retry_label.hide()
        self.summary = plain_label("No folders yet: add one, or drop it on the window.")
        self.summary.setObjectName("mutedLabel")
        self.summary.setWordWrap(True)
        self.skipped_label = plain_label()  # "42 skipped: 30 unknown binary (…), 12 …"
        self.skipped_label.setObjectName("skippedLabel")
        self.skipped_label.setWordWrap(True)
        self.skipped_label.hide()
        self.warned_label = plain_label()  # "2 files indexed with a warning: empty.txt, …"
        self.warned_label.setObjectName("warnedLabel")
        self.warned_label.setWordWrap(True)
        self.warned_label.hide()
        self.failures_title = plain_label("Files that could not be indexed")
        self.failures_title.setObjectName("sectionTitle")
        self.failures = QListWidget()
        self.failures.setObjectName("failureList")
        self.failures.setWordWrap(True)
        self.failures.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.failures.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        box = QVBoxLayout(self)
        box.setContentsMargins(8, 8, 8, 8)
        box.addWidget(self.tree, 3)
        box.addLayout(buttons)
        box.addWidget(self.bar)
        box.addWidget(self.bar_label)
        box.addWidget(self.retry_label)
        box.addWidget(self.summary)
        box.addWidget(self.skipped_label)
        box.addWidget(self.warned_label)
        box.addSpacing(6)
        box.addWidget(self.failures_title)
        box.addWidget(self.failures, 2)
        box.addStretch(0)
        self.failures.hide()

    # -- presenting ------------------------------------------------------------------------
    def set_snapshot(self, snapshot: IndexSnapshot) -> None:
        old, self.snapshot = self.snapshot, snapshot
        if [f.path for f in old.folders] != [f.path for f in snapshot.folders]:
            selected = self.selected_folder()
            self.tree.clear()
            for info in snapshot.folders:
                item = QTreeWidgetItem([os.path.basename(info.path) or info.path, "", ""])
                item.setData(0, Qt.ItemDataRole.UserRole, info.path)
                item.setToolTip(0, tooltip(info.path))
                self.tree.addTopLevelItem(item)
                if info.path == selected:
                    item.setSelected(True)
        self._refresh_rows()
        if old.failures != snapshot.failures:  # thousands of failures: rebuild only on change
            self.failures.setUpdatesEnabled(False)
            self.failures.clear()
            for raw, reason in snapshot.failures[:MAX_FAILURES_SHOWN]:
                path = shown_path(raw)
                entry = QListWidgetItem(f"{os.path.basename(path)}\n{shown_path(reason)}")
                entry.setData(Qt.ItemDataRole.UserRole, path)
                entry.setToolTip(tooltip(f"{path}\n{reason}"))
                self.failures.addItem(entry)
            hidden = len(snapshot.failures) - MAX_FAILURES_SHOWN
            if hidden > 0:
                self.failures.addItem(f"… and {hidden:,} more (footnotes status lists them all)")
            self.failures.setUpdatesEnabled(True)
        n = len(snapshot.failures)
        self.failures_title.setText(
            f"{n} file{'s' if n != 1 else ''} could not be indexed" if n else all_read(snapshot)
        )
        self.failures.setVisible(bool(n))
        if snapshot.folders:
            self.summary.setText(
                f"{counted(snapshot.files, 'file')}  ·  "
                f"{counted(snapshot.passages, 'passage')} in the index"
            )
        else:
            self.summary.setText("No folders yet: add one, or drop it on the window.")
        self._show_skipped(snapshot)
        self._show_warned(snapshot)

    def _show_warned(self, snapshot: IndexSnapshot) -> None:
        """Name the files indexed with a warning (a guessed encoding, no text at all): found
        or not, a person should hear of them; each with its warning on hover."""
        n = len(snapshot.warnings) if snapshot.folders else 0
        names = ", ".join(os.path.basename(shown_path(p)) for p, _ in snapshot.warnings[:3])
        more = ", …" if n > 3 else ""
        self.warned_label.setText(
            f"⚠  {n:,} file{'s' if n != 1 else ''} indexed with a warning: {names}{more}"
            if n
            else ""
        )
        lines = [f"{shown_path(p)}: {w}" for p, w in snapshot.warnings[:MAX_FAILURES_SHOWN]]
        self.warned_label.setToolTip(tooltip("\n".join(lines)) if n else "")
        self.warned_label.setVisible(bool(n))

    def _show_skipped(self, snapshot: IndexSnapshot) -> None:
        """Say what was left out on purpose, by reason and type, with examples on hover."""
        text = skipped_headline(snapshot.skipped) if snapshot.folders else ""
        self.skipped_label.setText(text)
        lines = [
            f"{g['label']}, e.g. " + ", ".join(os.path.basename(str(e)) for e in g["examples"])
            for g in snapshot.skipped
        ]
        self.skipped_label.setToolTip(tooltip("\n".join(lines)) if text else "")
        self.skipped_label.setVisible(bool(text))

    def set_state(self, state: ServiceState) -> None:
        self.state = state
        writable = state.writable and state.engine_ready
        self.add_button.setEnabled(writable)
        self.remove_button.setEnabled(writable and self.selected_folder() is not None)
        if not state.syncing:
            self.bar.hide()
            self.bar_label.hide()
            self.progress = None
        self.retry_label.setText(f"⚠ {state.retry}" if state.retry else "")
        self.retry_label.setVisible(bool(state.retry))
        self._refresh_rows()

    def set_progress(self, p: SyncProgress) -> None:
        """Show a step of the run: its files, a long file's pages, or the vectors stage."""
        if p.event not in BAR_EVENTS:
            return
        self.progress = p
        total, done = bar_range(p)
        self.bar.setRange(0, total)
        self.bar.setValue(done)
        self.bar_label.setText(progress_text(p))
        self.bar.setVisible(True)
        self.bar_label.setVisible(True)
        self._refresh_rows()

    def refresh(self) -> None:
        """Repaint with the current theme's colours."""
        self._refresh_rows()

    def _refresh_rows(self) -> None:
        c = colors()
        self.retry_label.setStyleSheet(f"color: {c.warn_fg}")
        infos = {f.path: f for f in self.snapshot.folders}
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item is None:
                continue
            info = infos.get(item.data(0, Qt.ItemDataRole.UserRole))
            if info is None:
                continue
            files = f"{info.indexed:,}" + (f" (+{info.failed} failed)" if info.failed else "")
            item.setText(1, files)
            text, color = STATUS_TEXT.get(info.status, (info.status, "muted_fg"))
            note = unavailable_note(info.path, info.problem)
            if self._syncing(info.path):
                p = self.progress
                counts = "…"
                if p is not None and p.total:
                    total, done = bar_range(p)
                    counts = f" {done:,} of {total:,}"
                verb = "computing vectors" if p is not None and p.event == "embedded" else "syncing"
                text, color = f"● {verb}{counts}", "link"
            item.setText(2, text)
            item.setToolTip(2, tooltip("\n".join(x for x in (text, note) if x)))
            item.setForeground(2, QColor(getattr(c, color)))

    def _syncing(self, folder: str) -> bool:
        if not self.state.syncing:
            return False
        if self.state.folder:
            return self.state.folder == folder
        p = self.progress
        return p is None or not p.path or is_within(p.path, folder)

    def status_of(self, folder: str) -> str:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item is not None and item.data(0, Qt.ItemDataRole.UserRole) == folder:
                return item.text(2)
        return ""

    def folder_paths(self) -> list[str]:
        return [f.path for f in self.snapshot.folders]

    def selected_folder(self) -> str | None:
        items = self.tree.selectedItems()
        return items[0].data(0, Qt.ItemDataRole.UserRole) if items else None

    @Slot()
    def _on_selection(self) -> None:
        self.remove_button.setEnabled(
            self.state.writable and self.state.engine_ready and self.selected_folder() is not None
        )

    def passages_of(self, folder: str) -> int:
        """Passages in the index from ``folder``, as the last snapshot counted them."""
        return next((f.passages for f in self.snapshot.folders if f.path == folder), 0)

    def confirm_remove(self, folder: str) -> bool:
        """Ask before a folder and its passages leave the index; True to remove."""
        box = QMessageBox(self)
        box.setObjectName("confirmRemove")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Remove folder")
        box.setTextFormat(Qt.TextFormat.PlainText)  # a folder's name is never markup
        box.setText(removal_question(folder, self.passages_of(folder)))
        remove = box.addButton("Remove", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(box.addButton(QMessageBox.StandardButton.Cancel))
        box.exec()
        return box.clickedButton() is remove

    @Slot()
    def _remove(self) -> None:
        folder = self.selected_folder()
        if folder is not None and self.confirm_remove(folder):
            self.remove_requested.emit(folder)


def unavailable_note(folder: str, problem: str) -> str:
    """The status cell's tooltip: why a folder cannot be read, and that nothing is lost."""
    if not problem:
        return ""
    return (
        f"{folder} cannot be read: {problem}. Its passages stay in the index and it is "
        "checked again when it is back; Remove takes them out."
    )


__all__ = ["FoldersPanel", "format_eta", "progress_text", "removal_question", "short_folder"]
