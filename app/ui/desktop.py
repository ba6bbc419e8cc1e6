"""Open a file in the system viewer (at a page where the viewer allows), reveal it in a folder.

Launching runs on a short-lived thread: looking up the default PDF viewer starts a process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import quote

# Desktop ids of PDF viewers that accept a page number, and how to pass it.
PAGE_ARGS: dict[str, list[str]] = {
    "evince": ["evince", "-i", "{page}", "{path}"],
    "atril": ["atril", "-i", "{page}", "{path}"],
    "xreader": ["xreader", "-i", "{page}", "{path}"],
    "okular": ["okular", "-p", "{page}", "{path}"],
    "zathura": ["zathura", "-P", "{page}", "{path}"],
    "qpdfview": ["qpdfview", "--unique", "{path}#{page}"],
    "papers": ["papers", "-i", "{page}", "{path}"],
}


def default_pdf_viewer() -> str | None:
    """The desktop id of the default PDF application (Linux, via xdg-mime), lower-cased."""
    if not sys.platform.startswith("linux") or shutil.which("xdg-mime") is None:
        return None
    try:
        out = subprocess.run(
            ["xdg-mime", "query", "default", "application/pdf"],
            capture_output=True,
            text=True,
            timeout=2,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.strip().lower() or None


def open_command(path: str, page: int, viewer: str | None) -> list[str] | None:
    """The command that opens ``path`` at ``page`` with ``viewer``, if it knows how."""
    if page <= 0 or not path.lower().endswith(".pdf") or not viewer:
        return None
    for key, args in PAGE_ARGS.items():
        if key in viewer and shutil.which(args[0]):
            return [a.format(page=page, path=path) for a in args]
    return None


def system_open_command(path: str) -> list[str]:
    if sys.platform == "darwin":
        return ["open", path]
    return ["xdg-open", path]


def reveal_command(path: str) -> list[str]:
    """A command that shows ``path`` selected in the file manager (or opens its folder)."""
    if sys.platform == "darwin":
        return ["open", "-R", path]
    if sys.platform.startswith("win"):
        return ["explorer", f"/select,{path}"]
    uri = Path(path).as_uri() if os.path.isabs(path) else "file://" + quote(path)
    if shutil.which("dbus-send"):
        return [
            "dbus-send",
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.FileManager1",
            "--type=method_call",
            "/org/freedesktop/FileManager1",
            "org.freedesktop.FileManager1.ShowItems",
            f"array:string:{uri}",
            "string:",
        ]
    return ["xdg-open", os.path.dirname(path)]


def _spawn(command: list[str]) -> bool:
    try:
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return False
    return True


def open_file(path: str, page: int = 0) -> None:
    """Open ``path`` (at ``page`` when the default PDF viewer supports it)."""
    if sys.platform.startswith("win"):
        os.startfile(path)  # type: ignore[attr-defined]
        return

    def run() -> None:
        command = open_command(path, page, default_pdf_viewer())
        if command is None or not _spawn(command):
            _spawn(system_open_command(path))

    threading.Thread(target=run, name="footnotes-open", daemon=True).start()


def reveal(path: str) -> None:
    """Show ``path`` in the file manager; falls back to opening its folder."""

    def run() -> None:
        command = reveal_command(path)
        if command[0] == "dbus-send":
            try:
                done = subprocess.run(command, capture_output=True, timeout=5, check=False)
            except (OSError, subprocess.SubprocessError):
                done = None
            if done is not None and done.returncode == 0:
                return
            command = system_open_command(os.path.dirname(path))
        _spawn(command)

    threading.Thread(target=run, name="footnotes-reveal", daemon=True).start()
