"""The panels at the window's side: Folders and History, tabbed, each shown or hidden by its
menu action (which stays checked while its panel is visible).

They keep the width they were given: their text is elided or wrapped to it (full on hover),
never widening them, so a long status cannot squeeze the answer. A first start gives them
``PANEL_WIDTH``; after that the window remembers the width the person dragged them to.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget

PANEL_WIDTH = 290  # at 1,280 px the answer keeps about half of the window
PANEL_MIN_WIDTH = 220


class SideDocks(QObject):
    """Owns the two dock widgets and the show/hide logic of their actions."""

    def __init__(self, window: QMainWindow, folders: QWidget, history: QWidget) -> None:
        super().__init__(window)
        self.folders = self._dock(window, "Folders", "foldersDock", folders)
        self.history = self._dock(window, "History", "historyDock", history)
        window.tabifyDockWidget(self.folders, self.history)  # tabs: Folders | History
        self.folders.raise_()
        for dock in (self.folders, self.history):
            dock.setMinimumWidth(PANEL_MIN_WIDTH)
        window.resizeDocks([self.folders], [PANEL_WIDTH], Qt.Orientation.Horizontal)

    @staticmethod
    def _dock(window: QMainWindow, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, window)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        return dock

    def connect_actions(self, folders: QAction, history: QAction) -> None:
        """Keep each action checked while its panel is visible, and make it toggle the panel."""
        self.folders.visibilityChanged.connect(folders.setChecked)
        self.history.visibilityChanged.connect(history.setChecked)
        folders.triggered.connect(self.toggle_folders)
        history.triggered.connect(self.toggle_history)

    @Slot()
    def toggle_folders(self) -> None:
        """Bring the folders panel to the front, or hide it when it is in front."""
        self._toggle(self.folders)

    @Slot()
    def toggle_history(self) -> None:
        """Bring the history panel to the front, or hide it when it is in front."""
        self._toggle(self.history)

    @staticmethod
    def _toggle(dock: QDockWidget) -> None:
        """Hide a panel the person sees; show and raise one hidden or behind the other tab."""
        if in_front(dock):
            dock.hide()
        else:
            dock.show()
            dock.raise_()


def in_front(dock: QDockWidget) -> bool:
    """True when the panel can be seen: shown, and not a tab behind the other one (Qt counts
    a tab behind as visible; only its visible region tells it apart)."""
    return dock.isVisible() and not dock.visibleRegion().isEmpty()
