"""Screenshots of the desktop app under Xvfb with a tray host, on a small real corpus.

    python bench/screenshots.py            # writes PNGs to bench/out/

Starts Xvfb and trayer (Debian packages xvfb, trayer) unless --no-xvfb is given, copies a
few notes and two SEC filings from ../shared/data/corpus into a temporary folder, runs the
stand-in Ollama server in echo mode (it answers by quoting sources 1 and 2, plus one claim
no source makes, so the support marks show), then drives the real app: add the folder, wait
for the index, ask, show the PDF source with its passage highlighted, hover a sentence,
open quick-ask, then ask an unrelated question (a new topic: a new thread, said in one line).
Saves main window (light and dark), the unsupported banner with the new-topic line, the same
at 1,280 x 800 (the answer's share of a laptop screen), the quick-ask window and the whole
screen (tray included).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, require_data

OUT = REPO_ROOT / "bench" / "out"
QUESTION = "How much did Ulta Beauty's comparable sales increase in the fourth quarter?"
OFF_TOPIC = "What is the boiling point of liquid nitrogen on Mars?"
NOTES = ["git", "vim", "python", "postgres"]


def start_display(width: int = 1600, height: int = 1000) -> list[subprocess.Popen[bytes]]:
    """Xvfb on a free display, and trayer as the system tray host; sets DISPLAY."""
    if shutil.which("Xvfb") is None:
        sys.exit("Xvfb is missing: apt-get install -y xvfb xauth trayer libxcb-cursor0")
    read, write = os.pipe()
    xvfb = subprocess.Popen(
        [
            "Xvfb",
            "-displayfd",
            str(write),
            "-screen",
            "0",
            f"{width}x{height}x24",
            "-nolisten",
            "tcp",
            "+extension",
            "RANDR",
        ],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    raw = b""
    while not raw.endswith(b"\n"):  # Xvfb writes the number, then a newline
        chunk = os.read(read, 16)
        if not chunk:
            sys.exit("Xvfb did not start")
        raw += chunk
    os.close(read)
    display = raw.decode().strip()
    os.environ["DISPLAY"] = f":{display}"
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    procs: list[subprocess.Popen[bytes]] = [xvfb]
    if shutil.which("trayer"):
        procs.append(
            subprocess.Popen(
                [
                    "trayer",
                    "--edge",
                    "top",
                    "--align",
                    "right",
                    "--widthtype",
                    "request",
                    "--height",
                    "28",
                    "--transparent",
                    "false",
                    "--tint",
                    "0x2b2d31",
                    "--SetDockType",
                    "true",
                    "--SetPartialStrut",
                    "true",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        time.sleep(1.0)  # let trayer claim the tray selection before Qt looks for it
    return procs


def make_corpus(root: Path) -> Path:
    corpus = require_data("corpus")
    docs = root / "My Documents"
    for topic in NOTES:
        src = corpus / "notes" / topic
        if src.is_dir():
            dest = docs / "notes" / topic
            dest.mkdir(parents=True)
            for f in sorted(src.glob("*.md"))[:25]:
                shutil.copy(f, dest / f.name)
    (docs / "filings").mkdir(parents=True)
    for name in ("ULTABEAUTY_2023Q4_EARNINGS.pdf", "PEPSICO_2023_8K_dated-2023-05-05.pdf"):
        shutil.copy(corpus / "filings" / name, docs / "filings" / name)
    return docs


def echo_server() -> Any:
    """The stand-in Ollama in echo mode, quoting sources 1 and 2 and adding one stray claim."""
    from tests.fake_ollama import FakeOllama

    source = re.compile(r"<source\b[^>]*>\n?(.*?)</source>", re.DOTALL)

    class Echo(FakeOllama):
        def answer_for(self, body: dict[str, Any]) -> str:
            user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
            found = [s.strip() for s in source.findall(user)]
            if not found:
                return "The sources do not contain the answer."
            parts = []
            for n, text in enumerate(found[:2], start=1):
                flat = " ".join(text.split())
                clean = [
                    x
                    for x in re.split(r"(?<=[.!?])\s+", flat)
                    if 8 <= len(x.split()) <= 45
                    and x[-1] in ".!?"
                    and not re.search(r"\d[.,]\d|\$", x)
                ]
                sentence = clean[0] if clean else " ".join(flat.split()[:14])
                parts.append(f"{sentence.rstrip('.!?')} [{n}].")
            parts.append("The company also opened its first store on the Moon in 1998 [1].")
            return " ".join(parts[:1]) + "\n\n" + " ".join(parts[1:])

    return Echo(echo=True, token_delay=0.02).start()


class Driver:
    """Runs the Qt event loop until a condition holds."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def until(self, what: str, predicate: Any, timeout: float = 300.0) -> None:
        from PySide6.QtCore import QEventLoop

        end = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > end:
                raise TimeoutError(f"timed out waiting for {what}")
            self.app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)

    def settle(self, seconds: float = 0.6) -> None:
        end = time.monotonic() + seconds
        self.until("settle", lambda: time.monotonic() > end)


def run(out: Path, work: Path) -> None:
    from PySide6.QtWidgets import QApplication

    from app.core.config import Settings
    from app.ui.main import build

    docs = make_corpus(work)
    fake = echo_server()
    data = OUT / "screenshot-data"  # kept between runs for the exported model, index reset
    for part in (
        "chroma",
        "manifest.sqlite3",
        "manifest.sqlite3-wal",
        "manifest.sqlite3-shm",
        "settings.json",
        "ui.ini",
    ):
        target = data / part
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink(missing_ok=True)
    app = QApplication([sys.argv[0]])
    drive = Driver(app)
    gui = build(data, settings=Settings(ollama_host=fake.url), app=app)
    w = gui.window
    w.move(0, 32)
    w.resize(1560, 930)
    w.show()
    gui.service.start()
    print(f"tray available: {gui.tray.available}")
    drive.until("the index to open", lambda: gui.service.state.engine_ready)
    gui.service.add_folder(str(docs))
    drive.until(
        "the folder to be indexed",
        lambda: bool(
            w.folders.snapshot.folders
            and w.folders.snapshot.folders[0].indexed > 50
            and not gui.service.state.syncing
            and gui.service.state.model_loaded
        ),
        timeout=900,
    )
    print(f"indexed: {w.folders.snapshot.files} files, {w.folders.snapshot.passages} passages")

    w.question.setText(QUESTION)
    w.ask_current()
    drive.until("the answer", lambda: w.outcome is not None and w.outcome.done)
    rows = w.sources.model_.rows
    pdf = next((r.n for r in rows if r.hit.path.endswith(".pdf")), 1)
    w.show_source(pdf)
    drive.until(
        "the page",
        lambda: w.passage.pdf.canvas.image is not None and bool(w.passage.pdf.canvas.passage),
    )
    marks = w.answer.marks
    supported = next(
        (i for i, m in enumerate(marks) if m.support_spans and m.support_spans[0][0] == pdf), 0
    )
    w.answer.click_sentence(supported)
    drive.settle(1.5)
    w.grab().save(str(out / "main-light.png"))

    quick = gui.show_quick_ask()
    quick.move(1020, 300)
    quick.question.setText("When did Ulta Beauty report its fourth quarter results?")
    quick.ask(quick.question.text())
    drive.until("the quick answer", lambda: not quick.session.running)
    drive.settle(1.0)
    quick.grab().save(str(out / "quick-ask.png"))
    screen = app.primaryScreen()
    screen.grabWindow(0).save(str(out / "desktop.png"))
    quick.hide()

    w.theme.set_theme("dark")
    drive.settle(1.0)
    w.grab().save(str(out / "main-dark.png"))
    w.theme.set_theme("light")

    w.question.setText(OFF_TOPIC)
    w.ask_current()
    drive.until("the off-topic answer", lambda: w.outcome is not None and w.outcome.done)
    drive.settle(1.0)
    w.grab().save(str(out / "unsupported.png"))
    w.resize(1280, 800)
    drive.settle(1.0)
    w.grab().save(str(out / "main-1280.png"))
    share = w.welcome.area.width() / w.width()
    print(f"at 1280 x 800 the answer pane is {w.welcome.area.width()} px ({share:.0%})")

    gui.quit_app_when_stopped = False
    gui.quit()
    drive.until("the app to stop", lambda: not gui.service._stop_thread.is_alive(), 120)
    fake.stop()


def shoot(doc: str, run_shots: Callable[[Path, Path], None]) -> int:
    """The command line of a screenshot script: ``--out``, ``--no-xvfb``; runs ``run_shots(out,
    work)`` on a virtual display (or the current one) with a temporary work folder."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--no-xvfb", action="store_true", help="use the current DISPLAY")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    procs = [] if args.no_xvfb else start_display()
    try:
        with tempfile.TemporaryDirectory(prefix="footnotes-shots-") as work:
            run_shots(args.out, Path(work))
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(10)
    for png in sorted(args.out.glob("*.png")):
        print(png)
    return 0


def main() -> int:
    return shoot(__doc__, run)


if __name__ == "__main__":
    sys.exit(main())
