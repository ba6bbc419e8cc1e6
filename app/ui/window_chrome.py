"""Around the window's content: its theme, its remembered geometry and history, its dialogs."""

from __future__ import annotations

import html

from PySide6.QtCore import QByteArray, QObject, QSettings, Signal, Slot
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox, QSplitter, QWidget

from app import __version__
from app.ui.menus import SHORTCUTS
from app.ui.theme import apply_theme
from app.ui.widgets import QuestionBox

HISTORY_KEY = "ask/history"
THEME_KEY = "ui/theme"


class ThemeChooser(QObject):
    """The System/Light/Dark choice: applies the palette, remembers it, ticks its menu entry."""

    theme_changed = Signal(str)  # after the palette changed: views restyle what they drew

    def __init__(self, choices: QActionGroup, ui_settings: QSettings) -> None:
        super().__init__(choices)
        self.choices = choices
        self.ui_settings = ui_settings
        self._tick(str(ui_settings.value(THEME_KEY, "system")))
        choices.triggered.connect(self.on_chosen)

    @Slot(QAction)
    def on_chosen(self, action: QAction) -> None:
        """A theme entry of the View menu was chosen."""
        self.set_theme(str(action.data()))

    @Slot(str)
    def set_theme(self, name: str) -> None:
        """Switch between the system, light and dark palettes, and remember the choice."""
        self.ui_settings.setValue(THEME_KEY, name)
        self._tick(name)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, name)
        self.theme_changed.emit(name)

    def _tick(self, name: str) -> None:
        for a in self.choices.actions():
            a.setChecked(a.data() == name)


class WindowMemory:
    """Saves and restores the window's geometry, its splitters and the question history."""

    def __init__(
        self,
        window: QMainWindow,
        splitters: dict[str, QSplitter],
        question: QuestionBox,
        ui_settings: QSettings,
    ) -> None:
        self.window = window
        self.splitters = splitters  # key under "window/" -> splitter, e.g. "main_split"
        self.question = question
        self.ui_settings = ui_settings

    def save(self) -> None:
        """Write geometry, splitters and the last 100 questions to the data directory's ui.ini."""
        s = self.ui_settings
        s.setValue("window/geometry", self.window.saveGeometry())
        s.setValue("window/state", self.window.saveState())
        for key, splitter in self.splitters.items():
            s.setValue(f"window/{key}", splitter.saveState())
        s.setValue(HISTORY_KEY, self.question.history[-100:])
        s.sync()

    def restore(self, default_sizes: dict[str, list[int]]) -> None:
        """Restore what was saved; a first start fits the screen and uses ``default_sizes``."""
        s = self.ui_settings
        restorers = [
            ("window/geometry", self.window.restoreGeometry),
            ("window/state", self.window.restoreState),
        ] + [(f"window/{key}", sp.restoreState) for key, sp in self.splitters.items()]
        for key, restore in restorers:
            value = s.value(key)
            if isinstance(value, QByteArray):
                restore(value)
        if not isinstance(s.value("window/geometry"), QByteArray):
            screen = QApplication.primaryScreen()
            if screen is not None:
                room = screen.availableGeometry()
                self.window.resize(
                    min(1360, int(room.width() * 0.92)), min(880, int(room.height() * 0.92))
                )
        first = next(iter(self.splitters))
        if not isinstance(s.value(f"window/{first}"), QByteArray):
            for key, sizes in default_sizes.items():
                self.splitters[key].setSizes(sizes)
        history = s.value(HISTORY_KEY) or []
        self.question.set_history(
            [str(q) for q in history] if isinstance(history, list) else [str(history)]
        )


class HelpDialogs(QObject):
    """The keyboard shortcuts table and the About box."""

    def __init__(self, parent: QWidget, data_root: str) -> None:
        super().__init__(parent)
        self.parent_widget = parent
        self.data_root = data_root

    @Slot()
    def show_shortcuts(self) -> None:
        """A table of the keyboard shortcuts (F1)."""
        rows = "".join(
            f"<tr><td><b>{html.escape(k)}</b>&nbsp;&nbsp;</td><td>{html.escape(v)}</td></tr>"
            for k, v in SHORTCUTS
        )
        QMessageBox.information(self.parent_widget, "Keyboard shortcuts", f"<table>{rows}</table>")

    @Slot()
    def show_about(self) -> None:
        """Version, what the app does, where its data is, and its licence."""
        QMessageBox.about(
            self.parent_widget,
            "About Footnotes",
            f"<h3>Footnotes {__version__}</h3><p>Answers from your own files, every claim "
            "pointing at the passage it came from. Everything stays on this computer.</p>"
            f"<p>Data directory:<br><code>{html.escape(self.data_root)}</code></p>"
            "<p>Licence: AGPL-3.0-or-later.</p>",
        )
