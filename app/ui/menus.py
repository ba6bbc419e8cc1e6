"""The window's actions (shared with the tray menu), menus and keyboard shortcuts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QActionGroup, QKeySequence

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow


@dataclass
class Actions:
    """Every command the user can give, each a QAction with its shortcut."""

    ask: QAction
    stop: QAction
    quick_ask: QAction
    focus_question: QAction
    add_folder: QAction
    index_files: QAction
    pause: QAction
    settings: QAction
    show_window: QAction
    quit: QAction
    open_source: QAction
    reveal_source: QAction
    next_source: QAction
    previous_source: QAction
    zoom_in: QAction
    zoom_out: QAction
    toggle_folders: QAction
    theme: QActionGroup
    shortcuts: QAction
    about: QAction


def build_actions(w: MainWindow) -> Actions:
    def act(
        text: str, shortcut: str | QKeySequence.StandardKey | None, slot: object, tip: str = ""
    ) -> QAction:
        a = QAction(text, w)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setStatusTip(tip)
        a.triggered.connect(slot)
        w.addAction(a)
        return a

    theme = QActionGroup(w)
    for name in ("System", "Light", "Dark"):
        a = QAction(name, theme)
        a.setCheckable(True)
        a.setData(name.lower())
    theme.triggered.connect(w.on_theme_chosen)
    pause = act("Pause indexing", "Ctrl+P", w.toggle_pause, "Stop indexing until resumed")
    return Actions(
        ask=act("Ask", None, w.ask_current, "Ask the question in the box (Enter)"),
        stop=act("Stop answering", None, w.cancel_ask, "Stop the answer in progress (Esc)"),
        quick_ask=act(
            "Quick ask…", "Ctrl+Shift+K", w.show_quick_ask, "A small window that stays on top"
        ),
        focus_question=act("Focus question", "Ctrl+L", w.focus_question),
        add_folder=act(
            "Add folder…",
            QKeySequence.StandardKey.Open,
            w.choose_folder,
            "Watch a folder and index everything in it",
        ),
        index_files=act(
            "Index files…",
            "Ctrl+Shift+O",
            w.choose_files,
            "Index single files (they are not watched)",
        ),
        pause=pause,
        settings=act("Settings…", "Ctrl+,", w.show_settings),
        show_window=act("Open Footnotes", None, w.show_and_raise),
        quit=act("Quit", QKeySequence.StandardKey.Quit, w.quit_app),
        open_source=act(
            "Open source file",
            "Ctrl+Return",
            w.open_current_source,
            "Open the selected source in its application",
        ),
        reveal_source=act("Show source in folder", "Ctrl+Shift+R", w.reveal_current_source),
        next_source=act("Next source", "Alt+Down", w.next_source),
        previous_source=act("Previous source", "Alt+Up", w.previous_source),
        zoom_in=act("Zoom in page", QKeySequence.StandardKey.ZoomIn, w.zoom_in),
        zoom_out=act("Zoom out page", QKeySequence.StandardKey.ZoomOut, w.zoom_out),
        toggle_folders=act("Folders panel", "Ctrl+Shift+F", w.toggle_folders),
        theme=theme,
        shortcuts=act("Keyboard shortcuts", "F1", w.show_shortcuts),
        about=act("About Footnotes", None, w.show_about),
    )


def build_menus(w: MainWindow, a: Actions) -> None:
    bar = w.menuBar()
    file = bar.addMenu("&File")
    for x in (a.add_folder, a.index_files, a.pause):
        file.addAction(x)
    file.addSeparator()
    file.addAction(a.settings)
    file.addSeparator()
    file.addAction(a.quit)
    ask = bar.addMenu("&Ask")
    for x in (a.focus_question, a.ask, a.stop, a.quick_ask):
        ask.addAction(x)
    ask.addSeparator()
    for x in (a.next_source, a.previous_source, a.open_source, a.reveal_source):
        ask.addAction(x)
    view = bar.addMenu("&View")
    a.toggle_folders.setCheckable(True)
    a.toggle_folders.setChecked(True)
    view.addAction(a.toggle_folders)
    view.addAction(a.zoom_in)
    view.addAction(a.zoom_out)
    themes = view.addMenu("Theme")
    for x in a.theme.actions():
        themes.addAction(x)
    help_menu = bar.addMenu("&Help")
    help_menu.addAction(a.shortcuts)
    help_menu.addAction(a.about)


SHORTCUTS = [
    ("Enter", "Ask the question"),
    ("Esc", "Stop the answer"),
    ("Up / Down (in the question box)", "Earlier questions"),
    ("Ctrl+L", "Go to the question box"),
    ("Ctrl+1 … Ctrl+9", "Show source 1 … 9"),
    ("Alt+Up / Alt+Down", "Previous / next source"),
    ("Ctrl+Return", "Open the source file"),
    ("Ctrl+Shift+R", "Show the source in its folder"),
    ("Ctrl++ / Ctrl+-", "Zoom the page"),
    ("Page Up / Page Down (on a page)", "Previous / next page"),
    ("Ctrl+Shift+K", "Quick ask"),
    ("Ctrl+O", "Add a folder"),
    ("Ctrl+Shift+O", "Index files"),
    ("Ctrl+P", "Pause or resume indexing"),
    ("Ctrl+,", "Settings"),
    ("Ctrl+Shift+F", "Show or hide the folders panel"),
    ("Ctrl+Q", "Quit"),
]
