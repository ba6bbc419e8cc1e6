"""Drag and drop: folders dropped are watched, files dropped are indexed once.

A drop is taken as a copy (or a link), never as a move: the file manager that started the
drag must not delete what was dropped, and Footnotes only ever reads it.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QEvent, QMimeData, QObject, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QLabel, QWidget

from app.ui.status_line import StatusLine
from app.ui.theme import colors


def split_drop(mime: QMimeData) -> tuple[list[str], list[str]]:
    """(folders, files) among the local paths of a drop; other URLs are ignored."""
    folders: list[str] = []
    files: list[str] = []
    if not mime.hasUrls():
        return folders, files
    for url in mime.urls():
        if not url.isLocalFile():
            continue
        path = url.toLocalFile()
        if os.path.isdir(path):
            folders.append(path)
        elif os.path.isfile(path):
            files.append(path)
    return folders, files


def has_local_paths(mime: QMimeData) -> bool:
    """True if a drag carries files or folders of this computer (not web links)."""
    return mime.hasUrls() and any(url.isLocalFile() for url in mime.urls())


def read_only_action(event: QDropEvent) -> Qt.DropAction | None:
    """The action to take a drag with: the proposed one if it is Copy or Link, else Copy or
    Link if the source allows it; None if it offers only Move (refused: we never move)."""
    copy, link = Qt.DropAction.CopyAction, Qt.DropAction.LinkAction
    proposed = event.proposedAction()
    if proposed in (copy, link):
        return proposed
    allowed = event.possibleActions()
    for action in (copy, link):
        if allowed & action:
            return action
    return None


def take_as_read_only(event: QDropEvent) -> bool:
    """Accept a drag as Copy or Link (never Move); False (and ignored) if it cannot be."""
    action = read_only_action(event)
    if action is None:
        event.ignore()
        return False
    event.setDropAction(action)
    event.accept()
    return True


class DropOverlay(QLabel):
    """A translucent sheet over the window while something is dragged over it."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setText("Drop folders to watch them, or files to index them")
        self.hide()

    def cover(self) -> None:
        """Show the sheet over the whole window, in the theme's link colour."""
        c = colors()
        self.setStyleSheet(
            f"background: rgba(40, 90, 200, 60); color: {c.link}; font-size: 20pt;"
            f" font-weight: 600; border: 3px dashed {c.link}; border-radius: 12px;"
        )
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect().adjusted(12, 12, -12, -12))
        self.raise_()
        self.show()


class DropHandler(QObject):
    """Watches drags over a window (an event filter): shows the overlay, reports what dropped."""

    folders_dropped = Signal(list)
    files_dropped = Signal(list)

    def __init__(self, window: QWidget, status: StatusLine, accepting: Callable[[], bool]) -> None:
        super().__init__(window)
        self.status = status
        self.accepting = accepting  # False while drops cannot be indexed (read-only)
        self.overlay = DropOverlay(window)
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(event, QDragEnterEvent):
            self._entered(event)
        elif isinstance(event, QDragMoveEvent):  # after enter: an enter is a move too
            if has_local_paths(event.mimeData()) and self.accepting():
                take_as_read_only(event)
            else:
                event.ignore()
        elif event.type() == QEvent.Type.DragLeave:
            self.overlay.hide()
        elif isinstance(event, QDropEvent):
            self._dropped(event)
        else:
            return False
        return True

    def _entered(self, event: QDragEnterEvent) -> None:
        if has_local_paths(event.mimeData()) and self.accepting() and take_as_read_only(event):
            self.overlay.cover()
        else:
            event.ignore()

    def _dropped(self, event: QDropEvent) -> None:
        self.overlay.hide()
        folders, files = split_drop(event.mimeData())
        if (not folders and not files) or not take_as_read_only(event):
            event.ignore()
            return
        if folders:
            self.folders_dropped.emit(folders)
        if files:
            self.files_dropped.emit(files)
        what = []
        if folders:
            what.append(f"watching {len(folders)} folder{'s' if len(folders) > 1 else ''}")
        if files:
            what.append(f"indexing {len(files)} file{'s' if len(files) > 1 else ''}")
        self.status.flash("Dropped: " + " and ".join(what) + ".", 5000)
