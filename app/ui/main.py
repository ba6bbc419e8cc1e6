"""Start the desktop app: window first, engine and embedding model in the background."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QTimer, Slot
from PySide6.QtWidgets import QApplication

from app.core.config import DataDir, Settings, resolve_data_dir
from app.ui.main_window import MainWindow
from app.ui.payloads import ErrorReport
from app.ui.quick_ask import QuickAskWindow
from app.ui.service import Service
from app.ui.settings_dialog import SettingsDialog
from app.ui.theme import app_icon, apply_theme
from app.ui.tray import Tray

UI_SETTINGS = "ui.ini"  # window geometry, history, theme: inside the data directory


def ui_settings(data_dir: Path) -> QSettings:
    """Qt settings stored in the data directory (nothing written outside it)."""
    return QSettings(str(Path(data_dir) / UI_SETTINGS), QSettings.Format.IniFormat)


class Gui(QObject):
    """The running app's parts, wired together."""

    def __init__(
        self,
        app: QApplication,
        service: Service,
        window: MainWindow,
        tray: Tray,
        settings: QSettings,
    ) -> None:
        super().__init__()
        self.app, self.service, self.window, self.tray = app, service, window, tray
        self.settings = settings
        self.quick: QuickAskWindow | None = None
        self.dialogs: list[SettingsDialog] = []
        self.quit_app_when_stopped = True  # tests drive several Guis in one QApplication
        w, s, t = window, service, tray
        w.tray_available = t.available
        w.quick_ask_requested.connect(self.show_quick_ask)
        w.settings_requested.connect(self.show_settings)
        w.quit_requested.connect(self.quit)
        t.quick_ask_requested.connect(self.show_quick_ask)
        s.state_changed.connect(t.on_state)
        s.sync_progressed.connect(t.on_progress)
        s.stopped.connect(self._on_stopped)

    @Slot()
    def show_quick_ask(self) -> QuickAskWindow:
        """Show the quick-ask window (made on first use)."""
        if self.quick is None:
            self.quick = QuickAskWindow(self.service)
            self.quick.source_activated.connect(self._on_quick_source)
        self.quick.popup()
        return self.quick

    @Slot()
    def show_settings(self) -> SettingsDialog:
        """Open a settings dialog (modeless: the window stays usable)."""
        dialog = SettingsDialog(self.service, self.settings, self.window)
        dialog.theme_chosen.connect(self.window.theme.set_theme)
        dialog.finished.connect(self._forget_dialog)
        self.dialogs.append(dialog)
        dialog.open()
        return dialog

    @Slot()
    def _forget_dialog(self) -> None:
        self.dialogs = [d for d in self.dialogs if d.isVisible()]

    @Slot(object, int)
    def _on_quick_source(self, outcome: object, n: int) -> None:
        self.window.adopt(outcome, n)  # type: ignore[arg-type]

    @Slot()
    def quit(self) -> None:
        """Hide everything, cancel background work, and quit once the index is consistent."""
        if self.window.isVisible():
            self.window.memory.save()
        self.window.hide()
        if self.quick is not None:
            self.quick.hide()
        self.tray.hide()
        self.service.stop()

    @Slot()
    def heartbeat(self) -> None:
        """Nothing: a timer calls it so Python runs its signal handlers between Qt events."""

    @Slot()
    def _on_stopped(self) -> None:
        if self.quit_app_when_stopped:
            self.app.quit()


def build(
    data_dir: Path,
    *,
    settings: Settings | None = None,
    ollama_host: str | None = None,
    chroma_url: str | None = None,
    app: QApplication | None = None,
) -> Gui:
    """Create the service and windows (nothing slow: the engine opens on ``service.start()``).

    ``ollama_host`` and ``chroma_url`` (the command line's) override the stored settings.
    """
    qapp = app or QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(qapp, QApplication)
    qapp.setApplicationName("Footnotes")
    qapp.setApplicationDisplayName("Footnotes")
    qapp.setDesktopFileName("footnotes")
    qapp.setWindowIcon(app_icon())
    qapp.setQuitOnLastWindowClosed(False)
    data = DataDir(Path(data_dir)).ensure()
    chosen = (settings or data.load_settings()).with_overrides(
        ollama_host=ollama_host, chroma_url=chroma_url
    )
    service = Service(data.root, settings=chosen)
    stored = ui_settings(service.data.root)
    apply_theme(qapp, str(stored.value("ui/theme", "system")))
    window = MainWindow(service, stored)
    if chosen.problems:  # settings.json keys that were not used: say which, in the window
        lines = "\n".join(f"• {p}" for p in chosen.problems)
        window.on_error(ErrorReport(f"Some settings were not used; defaults apply:\n{lines}"))
    tray = Tray(window.actions_, window)
    return Gui(qapp, service, window, tray, stored)


def run_gui(args: argparse.Namespace) -> int:
    """``footnotes`` with no command: the desktop app."""
    data_dir = resolve_data_dir(getattr(args, "data_dir", None))
    gui = build(
        data_dir,
        ollama_host=getattr(args, "ollama_host", None),
        chroma_url=getattr(args, "chroma_url", None),
    )
    gui.window.show()
    QTimer.singleShot(0, gui.service.start)  # after the first paint
    for sig in (signal.SIGINT, signal.SIGTERM):  # finish the write in hand, then exit
        signal.signal(sig, lambda *_: QTimer.singleShot(0, gui.quit))
    heartbeat = QTimer()  # lets Python see signals while Qt's loop runs
    heartbeat.timeout.connect(gui.heartbeat)
    heartbeat.start(250)
    code = gui.app.exec()
    gui.service.wait_stopped(60)
    return code
