"""Pulling an Ollama model from the window: a worker thread, and a dialog with its progress.

Offered when no chat model is installed (the error bar's button) and from Settings when the
chosen model is missing. The download goes through Ollama's pull API, so it lands where
``ollama pull`` would put it; Cancel shuts the connection and Ollama stops.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDialog, QProgressBar, QPushButton, QVBoxLayout, QWidget

from app.core.api import PullProgress, pull_model
from app.core.errors import AnswerError
from app.ui.widgets import plain_label


@dataclass(frozen=True)
class PullDone:
    """A pull ended: installed, cancelled, or failed with a sentence saying why."""

    model: str
    ok: bool
    cancelled: bool = False
    error: str | None = None


@dataclass(frozen=True)
class PullState:
    """Progress summed over the layers seen so far, for a progress bar."""

    status: str
    completed: int
    total: int

    @property
    def fraction(self) -> float | None:
        return min(1.0, self.completed / self.total) if self.total else None


class ModelPuller(QObject):
    """Runs one pull in a worker thread; progress and the end come back as signals."""

    progressed = Signal(object)  # PullState
    finished = Signal(object)  # PullDone

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._layers: dict[str, tuple[int, int]] = {}

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, host: str | None, model: str) -> None:
        """Start pulling ``model`` (does nothing while a pull is running)."""
        if self.running:
            return
        self._cancel = threading.Event()
        self._layers = {}
        self._thread = threading.Thread(
            target=self._run, args=(host, model, self._cancel), name="ollama-pull", daemon=True
        )
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the worker thread to end; True if it did."""
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.running

    def _run(self, host: str | None, model: str, cancel: threading.Event) -> None:
        try:
            ok = pull_model(host, model, on_progress=self._on_progress, cancel=cancel)
        except AnswerError as exc:
            self.finished.emit(PullDone(model, False, error=exc.message))
            return
        self.finished.emit(PullDone(model, ok, cancelled=not ok))

    def _on_progress(self, p: PullProgress) -> None:
        if p.digest and p.total:
            self._layers[p.digest] = (p.completed or 0, p.total)
        done = sum(c for c, _ in self._layers.values())
        total = sum(t for _, t in self._layers.values())
        self.progressed.emit(PullState(p.status, done, total))


def _size(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


class PullDialog(QDialog):
    """Pulls one model with a progress bar and a Cancel button; ``pulled`` when installed."""

    pulled = Signal(str)

    def __init__(self, host: str | None, model: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Get a model")  # Qt adds " — Footnotes", the display name
        self.setObjectName("pullDialog")
        self.host, self.model = host, model
        self.done_: PullDone | None = None
        self.heading = plain_label(f"Downloading the model “{model}” through Ollama…")
        self.heading.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy until the first sizes arrive
        self.detail = plain_label("Starting…")
        self.detail.setObjectName("mutedLabel")
        self.detail.setWordWrap(True)
        self.button = QPushButton("Cancel")
        self.button.clicked.connect(self._on_button)
        box = QVBoxLayout(self)
        box.addWidget(self.heading)
        box.addWidget(self.bar)
        box.addWidget(self.detail)
        box.addWidget(self.button, 0, Qt.AlignmentFlag.AlignRight)
        self.resize(460, 150)
        self.puller = ModelPuller(self)
        self.puller.progressed.connect(self._on_progress)
        self.puller.finished.connect(self._on_finished)

    def start(self) -> None:
        """Show the dialog and start the download."""
        self.show()
        self.puller.start(self.host, self.model)

    @Slot(object)
    def _on_progress(self, state: PullState) -> None:
        fraction = state.fraction
        if fraction is None:
            self.detail.setText(state.status.capitalize())
            return
        self.bar.setRange(0, 1000)
        self.bar.setValue(int(fraction * 1000))
        self.detail.setText(f"{_size(state.completed)} of {_size(state.total)}")

    @Slot(object)
    def _on_finished(self, done: PullDone) -> None:
        self.done_ = done
        self.button.setText("Close")
        if done.ok:
            self.bar.setRange(0, 1000)
            self.bar.setValue(1000)
            self.detail.setText(f"“{done.model}” is installed: ask your question again.")
            self.pulled.emit(done.model)
        elif done.cancelled:
            self.detail.setText("Cancelled: nothing was installed.")
        else:
            self.bar.setRange(0, 1000)
            self.bar.setValue(0)
            self.detail.setText(done.error or "The download failed.")

    @Slot()
    def _on_button(self) -> None:
        if self.puller.running:
            self.puller.cancel()
        else:
            self.accept()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.puller.cancel()
        super().closeEvent(event)

    def reject(self) -> None:
        """Esc or closing the window cancels a download in progress."""
        self.puller.cancel()
        super().reject()
