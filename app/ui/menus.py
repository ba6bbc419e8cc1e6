"""The window's actions (shared with the tray menu), menus and keyboard shortcuts.

Actions are built here with their texts, shortcuts and tips only; whoever owns the behaviour
connects their ``triggered`` signals, so this module knows nothing of the window.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenuBar, QWidget

Shortcut = str | QKeySequence.StandardKey | None
THEMES = ("System", "Light", "Dark")


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
    new_thread: QAction
    toggle_history: QAction
    export_thread: QAction
    copy_answer: QAction
    theme: QActionGroup
    shortcuts: QAction
    about: QAction
    sources: list[QAction] = field(default_factory=list)  # Ctrl+1 … Ctrl+9, data: the number


def build_actions(owner: QWidget) -> Actions:
    """Create the actions on ``owner``, so their shortcuts work while it has the focus."""

    def act(text: str, shortcut: Shortcut = None, tip: str = "") -> QAction:
        a = QAction(text, owner)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setStatusTip(tip)
        owner.addAction(a)
        return a

    theme = QActionGroup(owner)
    for name in THEMES:
        a = QAction(name, theme)
        a.setCheckable(True)
        a.setData(name.lower())
    toggle_folders = act("Folders panel", "Ctrl+Shift+F")
    toggle_folders.setCheckable(True)
    toggle_folders.setChecked(True)
    toggle_history = act("History panel", "Ctrl+H")
    toggle_history.setCheckable(True)
    toggle_history.setChecked(True)
    sources = []
    for n in range(1, 10):
        a = QAction(owner)
        a.setShortcut(f"Ctrl+{n}")
        a.setData(n)
        owner.addAction(a)
        sources.append(a)
    return Actions(
        ask=act("Ask", None, "Ask the question in the box (Enter)"),
        stop=act("Stop answering", None, "Stop the answer in progress (Esc)"),
        quick_ask=act("Quick ask…", "Ctrl+Shift+K", "A small window that stays on top"),
        focus_question=act("Focus question", "Ctrl+L"),
        add_folder=act(
            "Add folder…",
            QKeySequence.StandardKey.Open,
            "Watch a folder and index everything in it",
        ),
        index_files=act(
            "Index files…", "Ctrl+Shift+O", "Index single files (they are not watched)"
        ),
        pause=act("Pause indexing", "Ctrl+P", "Stop indexing until resumed"),
        settings=act("Settings…", "Ctrl+,"),
        show_window=act("Open Footnotes"),
        quit=act("Quit", QKeySequence.StandardKey.Quit),
        open_source=act(
            "Open source file", "Ctrl+Return", "Open the selected source in its application"
        ),
        reveal_source=act("Show source in folder", "Ctrl+Shift+R"),
        next_source=act("Next source", "Alt+Down"),
        previous_source=act("Previous source", "Alt+Up"),
        zoom_in=act("Zoom in page", QKeySequence.StandardKey.ZoomIn),
        zoom_out=act("Zoom out page", QKeySequence.StandardKey.ZoomOut),
        toggle_folders=toggle_folders,
        new_thread=act("New thread", QKeySequence.StandardKey.New, "Ask without earlier context"),
        toggle_history=toggle_history,
        export_thread=act(
            "Export thread as Markdown…", "Ctrl+E", "The open thread, with footnotes to sources"
        ),
        copy_answer=act(
            "Copy answer with sources", "Ctrl+Shift+C", "The answer as Markdown with footnotes"
        ),
        theme=theme,
        shortcuts=act("Keyboard shortcuts", "F1"),
        about=act("About Footnotes"),
        sources=sources,
    )


def build_menus(bar: QMenuBar, a: Actions) -> None:
    """The menu bar: File, Ask, View, Help."""
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
    for x in (a.new_thread, a.export_thread, a.copy_answer):
        ask.addAction(x)
    ask.addSeparator()
    for x in (a.next_source, a.previous_source, a.open_source, a.reveal_source):
        ask.addAction(x)
    view = bar.addMenu("&View")
    view.addAction(a.toggle_folders)
    view.addAction(a.toggle_history)
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
    ("F8", "Go to the next sentence no passage backs"),
    ("Alt+Up / Alt+Down", "Previous / next source"),
    ("Ctrl+Return", "Open the source file"),
    ("Ctrl+Shift+R", "Show the source in its folder"),
    ("Ctrl++ / Ctrl+-", "Zoom the page"),
    ("Page Up / Page Down (on a page)", "Previous / next page"),
    ("Ctrl+Shift+K", "Quick ask"),
    ("Ctrl+N", "New thread (the next question starts afresh)"),
    ("Ctrl+E", "Export the open thread as Markdown"),
    ("Ctrl+Shift+C", "Copy the answer with its sources"),
    ("Ctrl+H", "Show or hide the history panel"),
    ("Ctrl+O", "Add a folder"),
    ("Ctrl+Shift+O", "Index files"),
    ("Ctrl+P", "Pause or resume indexing"),
    ("Ctrl+,", "Settings"),
    ("Ctrl+Shift+F", "Show or hide the folders panel"),
    ("Ctrl+Q", "Quit"),
]
