"""Drag and drop: folders dropped are watched, files dropped are indexed once."""

from __future__ import annotations

import os

from PySide6.QtCore import QMimeData, Qt
from PySide6.QtWidgets import QLabel, QWidget

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
    return mime.hasUrls() and any(url.isLocalFile() for url in mime.urls())


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
