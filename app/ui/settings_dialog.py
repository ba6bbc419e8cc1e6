"""Settings: Ollama host and model (listed from the server), grounding and embedding models..."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QSettings, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core.api import ModelInfo, host_problem, pick_chat_model, plain_http_warning
from app.core.config import DEFAULT_MODEL, Settings
from app.ui.grounding_field import GroundingField
from app.ui.history import HistoryCleared
from app.ui.model_pull import PullDialog
from app.ui.payloads import ModelList
from app.ui.service import Service
from app.ui.theme import colors
from app.ui.widgets import plain_label

MODES = [
    ("flag", "Answer, but flag it as unsupported"),
    ("refuse", "Don't ask the model; show the closest passages"),
]


class SettingsDialog(QDialog):
    """Edits a copy of the settings; Save hands it to the service (atomic save, live apply)."""

    theme_chosen = Signal(str)

    def __init__(
        self, service: Service, ui_settings: QSettings, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")  # Qt adds " — Footnotes", the display name
        self.setObjectName("settingsDialog")
        self.service = service
        self.ui_settings = ui_settings
        s = service.settings
        self.host = QLineEdit(s.ollama_host)
        self.check_button = QPushButton("Check")
        self.check_button.clicked.connect(self.check_host)
        self.host_status = plain_label("Checking…")
        self.host_status.setWordWrap(True)
        self.host_warning = plain_label("")
        self.host_warning.setWordWrap(True)
        self.host_warning.setStyleSheet(f"color:{colors().warn_fg};")
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setCurrentText(s.ollama_model)
        self.pull_button = QPushButton("Get model")
        self.pull_button.setToolTip("Download this model through Ollama, with progress")
        self.pull_button.clicked.connect(self.pull_model)
        self.pull_button.hide()
        self.status_level = "checking"  # ok (green), missing (amber), down (red)
        self.grounding = GroundingField(s.grounding_model, s.ollama_host)
        self.grounding.pulled.connect(self._on_pulled)
        self.embedding = QComboBox()
        self.embedding.setEditable(True)
        self.embedding.addItems(sorted({DEFAULT_MODEL, s.embedding_model}))
        self.embedding.setCurrentText(s.embedding_model)
        self.embedding_note = plain_label(
            "A different embedding model re-embeds every passage; it applies after a restart."
        )
        self.embedding_note.setObjectName("mutedLabel")
        self.embedding_note.setWordWrap(True)
        self.mode = QComboBox()
        for key, text in MODES:
            self.mode.addItem(text, key)
        self.mode.setCurrentIndex(max(0, self.mode.findData(s.unsupported_mode)))
        self.top_k = QSpinBox()
        self.top_k.setRange(1, 50)
        self.top_k.setValue(s.top_k)
        self.ignore = QPlainTextEdit("\n".join(s.ignore_patterns))
        self.ignore.setPlaceholderText("one pattern a line, e.g. *.log or node_modules")
        self.ignore.setMinimumHeight(110)
        self.ocr = QCheckBox("Read scanned PDF pages and images (OCR, on this computer)")
        self.ocr.setChecked(s.ocr_enabled)
        self.ocr.setToolTip(
            'Off: scanned files are listed as "scanned, OCR off" instead of being read.'
        )
        self.history = QCheckBox("Keep a history of questions and answers (threads)")
        self.history.setChecked(s.history_enabled)
        self.history.setToolTip(
            "Off: each question stands alone and nothing is kept. The history stays in the "
            "data directory, on this computer."
        )
        self.rewrite = QCheckBox("Ask the model what a follow-up refers to before searching")
        self.rewrite.setChecked(s.rewrite_followups)
        self.rewrite.setToolTip(
            "Off: a follow-up is searched with the earlier question's key words added."
        )
        self.clear_history_button = QPushButton("Clear history…")
        self.clear_history_button.clicked.connect(self.clear_history)
        self.history_note = plain_label("")
        self.history_note.setObjectName("mutedLabel")
        service.history.history_cleared.connect(self._on_history_cleared)
        self.theme = QComboBox()
        for name in ("system", "light", "dark"):
            self.theme.addItem(name.capitalize(), name)
        self.theme.setCurrentIndex(
            max(0, self.theme.findData(str(ui_settings.value("ui/theme", "system"))))
        )
        self.data_dir = plain_label(str(service.data.root))
        self.data_dir.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        open_dir = QPushButton("Open")
        open_dir.clicked.connect(self._open_data_dir)

        host_row = QHBoxLayout()
        host_row.addWidget(self.host, 1)
        host_row.addWidget(self.check_button)
        dir_row = QHBoxLayout()
        dir_row.addWidget(self.data_dir, 1)
        dir_row.addWidget(open_dir)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Ollama host", host_row)
        form.addRow("", self.host_status)
        form.addRow("", self.host_warning)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(self.pull_button)
        form.addRow("Answer model", model_row)
        form.addRow("Sentence checker", self.grounding)
        form.addRow("Embedding model", self.embedding)
        form.addRow("", self.embedding_note)
        form.addRow("When unsupported", self.mode)
        form.addRow("Passages per question", self.top_k)
        form.addRow("Ignore patterns", self.ignore)
        form.addRow("Scans", self.ocr)
        history_row = QHBoxLayout()
        history_row.addWidget(self.history, 1)
        history_row.addWidget(self.clear_history_button)
        form.addRow("History", history_row)
        form.addRow("", self.rewrite)
        form.addRow("", self.history_note)
        form.addRow("Theme", self.theme)
        form.addRow("Data directory", dir_row)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.invalid = plain_label("")  # why Save did not save, until the values are fixed
        self.invalid.setWordWrap(True)
        self.invalid.setStyleSheet(f"color:{colors().banner_fg}; font-weight:600;")
        self.invalid.hide()
        self._refused = False  # Save was refused: edits re-check what stood in its way
        box = QVBoxLayout(self)
        box.addLayout(form)
        box.addWidget(self.invalid)
        box.addWidget(buttons)
        self.resize(620, 600)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(600)
        self._debounce.timeout.connect(self.check_host)
        self.host.textEdited.connect(self._on_host_edited)
        self.host.textChanged.connect(self._recheck_invalid)
        self.model.currentTextChanged.connect(self._recheck_invalid)
        self.embedding.currentTextChanged.connect(self._recheck_invalid)
        self.ignore.textChanged.connect(self._recheck_invalid)
        service.models_listed.connect(self._on_models)
        self._update_warning()
        self.check_host()

    @Slot()
    def check_host(self) -> None:
        """Ask the host typed for its models, unless it cannot be an address at all."""
        why = host_problem(self.host.text().strip())
        if why:  # said as a sentence here, never as the URL parser's exception
            self.status_level = "down"
            self.host_status.setText(f"This is not an address Ollama can have: {why}.")
            self.host_status.setStyleSheet(f"color:{colors().unsupported_line};")
            return
        self.status_level = "checking"
        self.host_status.setText("Checking Ollama…")
        self.host_status.setStyleSheet(f"color:{colors().muted_fg};")
        self.service.list_models(self.host.text().strip())

    @Slot(str)
    def _on_host_edited(self, _text: str) -> None:
        self._update_warning()
        self._debounce.start()

    def _update_warning(self) -> None:
        warning = plain_http_warning(self.host.text().strip())
        self.host_warning.setText(warning or "")
        self.host_warning.setVisible(bool(warning))

    @Slot(object)
    def _on_models(self, listed: ModelList) -> None:
        if listed.host != self.host.text().strip():
            return  # an answer about a host that was since edited
        c = colors()
        current = self.model.currentText()
        self.model.clear()
        self.pull_button.hide()
        self.grounding.show_models(listed.host, None if listed.error else listed.models)
        if listed.error:
            self.status_level = "down"
            self.host_status.setText(listed.error)  # a sentence: "Ollama is not running at …"
            self.host_status.setStyleSheet(f"color:{c.unsupported_line};")
            self.model.setCurrentText(current)
            return
        self.model.addItems(listed.models)
        version = f" {listed.version}" if listed.version else ""
        count = len(listed.models)
        latency = f"  ·  {listed.latency_ms:.0f} ms away" if listed.latency_ms is not None else ""
        self.host_status.setText(
            f"Ollama{version} is running  ·  {count} model{'s' if count != 1 else ''} "
            f"installed{latency}"
        )
        self.status_level = "ok"
        self.host_status.setStyleSheet(f"color:{c.ok_fg};")
        if (
            current
            and self.model.findText(current) < 0
            and not any(m.split(":")[0] == current for m in listed.models)
        ):
            self.model.insertItem(0, current)
            self._say_missing(current, listed.models)
        index = next(
            (
                i
                for i in range(self.model.count())
                if self.model.itemText(i) in (current, f"{current}:latest")
            ),
            0,
        )
        self.model.setCurrentIndex(index)

    def _say_missing(self, model: str, installed: list[str]) -> None:
        """Amber: the server runs but the model is not there; say what answers meanwhile."""
        # Names alone tell embedding models apart here; at answer time /api/show decides.
        fallback = pick_chat_model([ModelInfo(name) for name in installed], model)
        meanwhile = (
            f"answers use “{fallback}” until you get it"
            if fallback
            else "no installed model can answer until you get it"
        )
        self.status_level = "missing"
        self.host_status.setText(
            self.host_status.text() + f"  ·  “{model}” is not installed: {meanwhile} "
            f"(Get it, or run ollama pull {model})"
        )
        self.host_status.setStyleSheet(f"color:{colors().warn_fg};")
        self.pull_button.setText(f"Get {model}")
        self.pull_button.show()

    @Slot()
    def pull_model(self) -> PullDialog:
        """Download the chosen model through Ollama, with progress; list the models again after."""
        dialog = PullDialog(self.host.text().strip(), self.model.currentText().strip(), self)
        dialog.pulled.connect(self._on_pulled)
        dialog.start()
        return dialog

    @Slot(str)
    def _on_pulled(self, _model: str) -> None:
        self.check_host()

    def confirm_clear(self) -> bool:
        answer = QMessageBox.question(
            self,
            "Clear history",
            "Remove every thread, with its questions, answers and sources? This cannot be undone.",
        )
        return answer == QMessageBox.StandardButton.Yes

    @Slot()
    def clear_history(self) -> None:
        """Remove every thread (after confirmation); the note says how many went."""
        if self.confirm_clear():
            self.service.history.clear()

    @Slot(object)
    def _on_history_cleared(self, cleared: HistoryCleared) -> None:
        if cleared.error:
            self.history_note.setText(f"History not cleared: {cleared.error}")
        else:
            n = cleared.count
            self.history_note.setText(f"Cleared {n} thread{'s' if n != 1 else ''}.")

    def edited(self) -> Settings:
        """The settings as edited in the dialog."""
        patterns = [p.strip() for p in self.ignore.toPlainText().splitlines() if p.strip()]
        return dataclasses.replace(
            self.service.settings,
            ollama_host=self.host.text().strip() or self.service.settings.ollama_host,
            ollama_model=self.model.currentText().strip() or self.service.settings.ollama_model,
            grounding_model=self.grounding.model(),
            embedding_model=self.embedding.currentText().strip() or DEFAULT_MODEL,
            unsupported_mode=str(self.mode.currentData()),
            top_k=self.top_k.value(),
            ignore_patterns=patterns,
            ocr_enabled=self.ocr.isChecked(),
            history_enabled=self.history.isChecked(),
            rewrite_followups=self.rewrite.isChecked(),
        )

    def problems(self, edited: Settings) -> list[str]:
        """What keeps the edited values from being saved: the rules settings.json is read
        with, and an Ollama address that cannot be one."""
        found = [str(p).removeprefix("settings.json: ") for p in Settings.from_dict(
            edited.to_dict()).problems]  # fmt: skip
        why = host_problem(edited.ollama_host)
        return ([f"the Ollama host is not an address ({why})"] if why else []) + found

    def accept(self) -> None:
        edited = self.edited()
        problems = self.problems(edited)
        if problems:  # said in the dialog, which stays open with the values as typed
            self._refused = True  # from now on each edit says whether it still stands
            self._say_invalid(problems)
            return
        self.invalid.hide()
        self.service.apply_settings(edited)
        theme = str(self.theme.currentData())
        if theme != str(self.ui_settings.value("ui/theme", "system")):
            self.theme_chosen.emit(theme)
        super().accept()

    def _say_invalid(self, problems: list[str]) -> None:
        """Why Save did not save, as one sentence; hidden once nothing stands in the way."""
        if not problems:
            self.invalid.hide()
            return
        self.invalid.setText("Not saved: " + "; ".join(problems) + ".")
        self.invalid.show()

    @Slot()
    def _recheck_invalid(self) -> None:
        """After an edit, say again what keeps Save from saving (or nothing, once fixed)."""
        if self._refused:
            self._say_invalid(self.problems(self.edited()))

    @Slot()
    def _open_data_dir(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.service.data.root)))
