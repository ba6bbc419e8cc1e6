"""The Settings row that names a grounding model: the Ollama model that checks each sentence.

Empty, the built-in checks judge an answer's sentences. Named (``bespoke-minicheck``), each
claim sentence is sent to that model with its passage and its Yes or No decides the mark
(``app/core/verdict/grounding.py``). The row lists the host's models to choose from, says
plainly when the named one is not installed (the built-in checks judge meanwhile, as the
verdict itself says), and offers to get it with the same progress dialog as the answer model.
"""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from app.ui.model_pull import PullDialog
from app.ui.theme import colors
from app.ui.widgets import plain_label

SUGGESTED = "bespoke-minicheck"  # 4.7 GB; at the top of the LLM-AggreFact leaderboard
NONE_SHOWN = "None: the built-in checks"
ABOUT = (
    "A model trained to check a claim against a document (for example {suggested}) judges "
    "each answer sentence instead of the built-in checks; it is asked once per sentence, so "
    "verdicts come later."
)


def installed(model: str, models: list[str]) -> bool:
    """Whether ``model`` is among ``models`` as Ollama names them (``name`` is ``name:latest``)."""
    return model in models or f"{model}:latest" in models


class GroundingField(QWidget):
    """An editable list of the host's models, empty for none, with a note and a Get button."""

    pulled = Signal(str)  # a model was got through the Get button: list the models again

    def __init__(self, model: str, host: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host  # where Get pulls from: the dialog's host as last checked
        self.models: list[str] | None = None  # the host's, once listed
        self.combo = QComboBox()
        self.combo.setEditable(True)
        self.combo.setObjectName("groundingModel")
        self.combo.setCurrentText(model)
        line = self.combo.lineEdit()
        assert line is not None  # editable
        line.setPlaceholderText(NONE_SHOWN)
        self.combo.setToolTip(
            "An Ollama model that judges each answer sentence against its passage; "
            "empty: the built-in checks."
        )
        self.get_button = QPushButton("Get model")
        self.get_button.setToolTip("Download this model through Ollama, with progress")
        self.get_button.clicked.connect(self.pull)
        self.get_button.hide()
        self.note = plain_label(ABOUT.format(suggested=SUGGESTED))
        self.note.setObjectName("mutedLabel")
        self.note.setWordWrap(True)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.combo, 1)
        row.addWidget(self.get_button)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(row)
        box.addWidget(self.note)
        self.combo.currentTextChanged.connect(self._say)

    def model(self) -> str:
        """The model named, or "" for the built-in checks."""
        return self.combo.currentText().strip()

    def show_models(self, host: str, models: list[str] | None) -> None:
        """The host's models to choose from (None: the host could not be asked)."""
        current = self.combo.currentText()
        self.host, self.models = host, models
        self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItem("")  # none: the built-in checks (shown by the placeholder)
        self.combo.addItems(models or [])
        self.combo.setCurrentText(current)
        self.combo.blockSignals(False)
        self._say()

    @Slot()
    def _say(self) -> None:
        """The note under the list: what the field does, or that the model named is missing."""
        model = self.model()
        missing = bool(model) and self.models is not None and not installed(model, self.models)
        self.get_button.setVisible(missing)
        if not missing:
            self.note.setText(ABOUT.format(suggested=SUGGESTED))
            self.note.setStyleSheet("")  # muted again, as its object name styles it
            return
        self.get_button.setText(f"Get {model}")
        self.note.setText(
            f"“{model}” is not installed: the built-in checks judge the sentences until you get "
            f"it (Get it, or run ollama pull {model})."
        )
        self.note.setStyleSheet(f"color:{colors().warn_fg};")

    @Slot()
    def pull(self) -> PullDialog:
        """Download the model named, with progress; ``pulled`` once it is installed."""
        dialog = PullDialog(self.host, self.model(), self)
        dialog.pulled.connect(self.pulled)
        dialog.start()
        return dialog
