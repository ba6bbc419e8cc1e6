"""Open a file in the system viewer (at a page where the viewer allows), reveal it in a folder.

Launching runs on a short-lived thread: looking up the default PDF viewer starts a process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

# PDF viewers that accept a page number (1-based), and how to pass it; the key is matched
# against the desktop id of the default PDF application (org.gnome.Evince.desktop, …).
PAGE_ARGS: dict[str, list[str]] = {
    "evince": ["evince", "--page-index={page}", "{path}"],
    "okular": ["okular", "--page", "{page}", "{path}"],
    "zathura": ["zathura", "--page={page}", "{path}"],
    "atril": ["atril", "--page-index={page}", "{path}"],
    "xreader": ["xreader", "--page-index={page}", "{path}"],
    "papers": ["papers", "--page-index={page}", "{path}"],
    "qpdfview": ["qpdfview", "--unique", "{path}#{page}"],
}


@dataclass(frozen=True)
class Launch:
    """How a file will be opened (None: it cannot be) and the sentence that says so."""

    command: list[str] | None
    said: str


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
    """The command that opens ``path`` at ``page``: with the default PDF application
    ``viewer`` if it takes a page; when there is no default to ask (no xdg-mime), with the
    first installed viewer that does; else None (the system opener is used)."""
    if page <= 0 or not path.lower().endswith(".pdf"):
        return None
    if viewer:
        keys = [key for key in PAGE_ARGS if key in viewer]
    elif sys.platform.startswith("linux"):
        keys = list(PAGE_ARGS)
    else:
        keys = []
    for key in keys:
        args = PAGE_ARGS[key]
        if shutil.which(args[0]):
            return [a.format(page=page, path=path) for a in args]
    return None


def plan_open(path: str, page: int, viewer: str | None) -> Launch:
    """What opening ``path`` at ``page`` will run, and what the status line says about it."""
    name = os.path.basename(path)
    command = open_command(path, page, viewer)
    if command is not None:
        return Launch(command, f"Opened {name} at page {page} in {command[0]}.")
    opener = system_open_command(path)
    where = f" The passage is on page {page}." if page > 0 else ""
    if shutil.which(opener[0]) is None:
        return Launch(
            None,
            f"Cannot open {name}: no application to open it was found ({opener[0]} is not "
            f"installed; install a PDF viewer such as Evince, Okular or Zathura).{where}",
        )
    if page > 0 and path.lower().endswith(".pdf"):
        return Launch(
            opener,
            f"Opened {name} in the default application, which cannot be told a page.{where}",
        )
    return Launch(opener, f"Opened {name}.")


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


def open_file(path: str, page: int = 0, said: Callable[[str], None] | None = None) -> None:
    """Open ``path`` (at ``page`` when the PDF viewer takes one); ``said`` hears, from
    another thread, the sentence for the status line (which viewer, or why none)."""
    tell = said or (lambda text: None)
    if sys.platform.startswith("win"):
        try:
            os.startfile(path)  # type: ignore[attr-defined]
        except OSError as exc:
            tell(f"Cannot open {os.path.basename(path)}: {exc.strerror or exc}.")
        return

    def run() -> None:
        plan = plan_open(path, page, default_pdf_viewer())
        if plan.command is not None and not _spawn(plan.command):
            failed = f"Cannot open {os.path.basename(path)}: {plan.command[0]} did not start."
            plan = plan_open(path, 0, None)  # the system's opener instead
            if plan.command is None or not _spawn(plan.command):
                plan = Launch(None, failed)
        tell(plan.said)

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
