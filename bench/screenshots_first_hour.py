"""Screenshots of the first hour under Xvfb: the first start (empty, and with Ollama missing)
and the Folders panel accounting for skipped files.

    python bench/screenshots_first_hour.py     # writes PNGs to bench/out/

No data set is needed: the folder shown is generated (notes, a compressed text, a README
without an extension, images with OCR off, an unknown binary).
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from screenshots import Driver, shoot


def write_folder(root: Path) -> Path:
    """A small folder of the kinds a first hour meets, some of which are skipped."""
    docs = root / "Documents"
    (docs / "notes").mkdir(parents=True)
    (docs / "notes" / "tomatoes.md").write_text(
        "# Tomatoes\n\nTomatoes need six hours of direct sun and deep watering twice a week.\n"
    )
    (docs / "notes" / "compost.md").write_text(
        "# Compost\n\nTurn the heap every two weeks so it stays warm.\n"
    )
    (docs / "README").write_text("Garden notes, kept since 2019. See notes/ for each crop.\n")
    with gzip.open(docs / "NEWS.gz", "wt") as f:
        f.write("Version 2: the compost notes gained a section on leaf mould.\n")
    from PIL import Image

    for name, colour in (("plot.png", "green"), ("seedlings.png", "olive"), ("harvest.png", "red")):
        Image.new("RGB", (64, 48), colour).save(docs / name)  # photos: OCR is off
    (docs / "backup.bin").write_bytes(bytes(range(256)) * 40)
    return docs


def run(out: Path, work: Path) -> None:
    from PySide6.QtWidgets import QApplication

    from app.core.config import Settings
    from app.ui.main import build
    from tests.fake_ollama import FakeOllama

    app = QApplication([sys.argv[0]])
    drive = Driver(app)

    def shot(data: Path, host: str, name: str, folder: Path | None = None) -> None:
        gui = build(data, settings=Settings(ollama_host=host, ocr_enabled=False), app=app)
        gui.quit_app_when_stopped = False
        w = gui.window
        w.move(0, 32)
        w.resize(1280, 800)
        w.show()
        gui.service.start()
        drive.until("the index to open", lambda: gui.service.state.engine_ready, 300)
        panel = w.welcome.panel
        drive.until("Ollama's check", lambda: "Checking" not in panel.ollama.text.text(), 60)
        if folder is not None:
            gui.service.add_folder(str(folder))
            drive.until(
                "the folder to be indexed",
                lambda: (
                    bool(w.folders.snapshot.folders)
                    and w.folders.snapshot.folders[0].indexed > 0
                    and not gui.service.state.syncing
                ),
                600,
            )
            w.docks.folders.show()
            w.docks.folders.raise_()
        drive.settle(1.5)
        w.grab().save(str(out / name))
        gui.quit()
        drive.until("the app to stop", lambda: not gui.service._stop_thread.is_alive(), 120)
        w.close()

    shot(work / "empty", "http://127.0.0.1:9", "first-start-no-ollama.png")
    with FakeOllama(reply="…", models=["llama3.2:latest"]) as fake:
        shot(work / "fresh", fake.url, "first-start.png")
        shot(work / "skipped", fake.url, "skipped-files.png", write_folder(work))


def main() -> int:
    return shoot(__doc__, run)


if __name__ == "__main__":
    sys.exit(main())
