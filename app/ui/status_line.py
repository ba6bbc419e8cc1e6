"""The window's status bar: what the app is doing, indexing progress, and the index's size."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar

from app.core.wording import counted
from app.ui.folders_panel import bar_range, progress_text
from app.ui.payloads import IndexSnapshot, SyncProgress
from app.ui.widgets import plain_label

PROGRESS_EVENTS = ("planned", "indexed", "unchanged", "failed", "skipped", "embedded")
PAGE_EVENTS = ("ocr", "page")  # progress inside one long file


def time_left(seconds: float) -> str:
    """ "about 30 s left", "about 4 min left", "about 1 h 05 min left"."""
    if seconds < 60:
        return f"about {max(5, round(seconds / 5) * 5)} s left"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min left"
    return f"about {minutes // 60} h {minutes % 60:02d} min left"


def page_text(p: SyncProgress) -> str:
    """ "Indexing 3 of 10 files  ·  scan.pdf: page 40 of 200 — about 30 s left"."""
    total, done = bar_range(p)
    files = f"Indexing {done:,} of {total:,} files  ·  " if p.total else ""
    left = f" — {time_left(p.page_eta_s)}" if p.page_eta_s is not None else ""
    page = min(p.page, p.pages)
    return f"{files}{os.path.basename(p.path)}: page {page:,} of {p.pages:,}{left}"


class StatusLine:
    """Owns the status bar's widgets, so the window's parts say things without reaching in."""

    def __init__(self, bar: QStatusBar) -> None:
        self.bar = bar
        self.label: QLabel = plain_label("Opening the index…")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setMaximumHeight(14)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.progress_label: QLabel = plain_label()
        self.progress_label.hide()
        self.counts_label: QLabel = plain_label()
        self.counts_label.setObjectName("mutedLabel")
        bar.addWidget(self.label, 1)
        bar.addPermanentWidget(self.progress_label)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.counts_label)

    def say(self, text: str) -> None:
        """Replace the lasting message (left of the bar)."""
        self.label.setText(text)

    def flash(self, text: str, ms: int) -> None:
        """Show a passing message for ``ms`` milliseconds, over the lasting one."""
        self.bar.showMessage(text, ms)

    def show_progress(self, p: SyncProgress) -> None:
        """Show files done of files planned, when ``p`` is a step of a planned run, and the
        page being read inside a long file, with the time that file still needs."""
        if p.event in PAGE_EVENTS and p.pages:
            self.progress_label.setText(page_text(p))
            self.progress_label.show()
            return
        if p.event not in PROGRESS_EVENTS or not p.total:
            return
        total, done = bar_range(p)
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress_label.setText(progress_text(p))
        self.progress.show()
        self.progress_label.show()

    def hide_progress(self) -> None:
        """Hide the progress bar and its text (no sync is running)."""
        self.progress.hide()
        self.progress_label.hide()

    def show_counts(self, snapshot: IndexSnapshot) -> None:
        """Files and passages in the index, and how many files failed."""
        failed = f"  ·  {len(snapshot.failures)} failed" if snapshot.failures else ""
        waiting = f"  ·  {snapshot.waiting:,} without vectors yet" if snapshot.waiting else ""
        self.counts_label.setText(
            f"{counted(snapshot.files, 'file')}  ·  {counted(snapshot.passages, 'passage')}"
            f"{failed}{waiting}"
        )
