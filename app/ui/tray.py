"""The tray icon and its menu: Quick ask, Pause/Resume indexing, Open Footnotes, Quit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from app.ui.folders_panel import progress_text
from app.ui.payloads import ServiceState, SyncProgress
from app.ui.theme import app_icon
from app.ui.widgets import tooltip

if TYPE_CHECKING:
    from app.ui.menus import Actions


class Tray(QObject):
    """Builds the menu always (the window offers the same actions); shows an icon if it can."""

    quick_ask_requested = Signal()

    def __init__(self, actions: Actions, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.menu = QMenu()
        self.menu.addAction(actions.quick_ask)
        self.menu.addAction(actions.pause)
        self.menu.addAction(actions.show_window)
        self.menu.addSeparator()
        self.menu.addAction(actions.quit)
        self.available = QSystemTrayIcon.isSystemTrayAvailable()
        self.icon: QSystemTrayIcon | None = None
        if self.available:
            self.icon = QSystemTrayIcon(app_icon(), self)
            self.icon.setContextMenu(self.menu)
            self.icon.setToolTip("Footnotes")
            self.icon.activated.connect(self._on_activated)
            self.icon.show()

    def action_texts(self) -> list[str]:
        """The menu's entries, separators left out (for tests and scripts)."""
        return [a.text() for a in self.menu.actions() if not a.isSeparator()]

    def trigger(self, text: str) -> None:
        """Trigger the menu entry whose text starts with ``text`` (used by tests and scripts)."""
        for a in self.menu.actions():
            if a.text().startswith(text):
                a.trigger()
                return
        raise KeyError(text)

    @Slot(object)
    def on_state(self, state: ServiceState) -> None:
        """The icon's tooltip says whether indexing is paused, or what the service is doing."""
        if self.icon is None:
            return
        if state.paused:
            self.icon.setToolTip(tray_tooltip("indexing paused"))
        elif not state.syncing:
            self.icon.setToolTip(tray_tooltip(state.message or "ready"))

    @Slot(object)
    def on_progress(self, p: SyncProgress) -> None:
        """The icon's tooltip shows indexing progress."""
        if self.icon is not None and p.total:
            self.icon.setToolTip(tray_tooltip(progress_text(p)))

    @Slot(QSystemTrayIcon.ActivationReason)
    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.quick_ask_requested.emit()

    def hide(self) -> None:
        """Take the icon off the tray (quitting)."""
        if self.icon is not None:
            self.icon.hide()


def tray_tooltip(text: str) -> str:
    """The icon's tooltip: ``text`` shown literally (it may hold a file's name, and a tray host
    renders tooltips as rich text)."""
    return tooltip(f"Footnotes — {text}")
