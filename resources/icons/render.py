"""Render footnotes.svg to the PNG sizes the app and the desktop entry use.

    python resources/icons/render.py

Writes footnotes-N.png (read by app/ui/theme.py) and hicolor/NxN/apps/footnotes.png, the
freedesktop icon-theme layout that packaging/install.sh copies under share/icons/.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 24, 32, 48, 64, 128, 256)


def main() -> int:
    app = QGuiApplication(sys.argv[:1])
    here = Path(__file__).resolve().parent
    renderer = QSvgRenderer(str(here / "footnotes.svg"))
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        image.save(str(here / f"footnotes-{size}.png"))
        themed = here / "hicolor" / f"{size}x{size}" / "apps" / "footnotes.png"
        themed.parent.mkdir(parents=True, exist_ok=True)
        image.save(str(themed))
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
