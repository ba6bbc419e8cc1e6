"""Light and dark palettes, the colours of highlights and banners, and the style sheet."""

from __future__ import annotations

import site
import sys
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

RESOURCES = Path(__file__).resolve().parents[2] / "resources"  # a clone, a PyInstaller build
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)


def installed_share() -> list[Path]:
    """Where a pip install put the data files of pyproject.toml (``<prefix>/share``)."""
    return [Path(sys.prefix) / "share", Path(site.getuserbase()) / "share"]


THEMES = ("system", "light", "dark")


@dataclass(frozen=True)
class Colors:
    """Colours the views use on top of the palette; chosen for contrast on each background."""

    dark: bool
    passage_bg: str
    strong_bg: str
    strong_border: str
    unsupported_bg: str
    unsupported_line: str
    banner_bg: str
    banner_fg: str
    banner_border: str
    ok_fg: str
    warn_fg: str
    muted_fg: str
    link: str
    score_bar: str
    score_track: str
    error_bg: str
    error_fg: str
    hover_bg: str
    card_bg: str
    border: str


LIGHT = Colors(
    dark=False,
    passage_bg="#fff1a8",
    strong_bg="#ffb74d",
    strong_border="#e65100",
    unsupported_bg="#fde3e1",
    unsupported_line="#c62828",
    banner_bg="#fdecea",
    banner_fg="#8e1b14",
    banner_border="#e57373",
    ok_fg="#1b5e20",
    warn_fg="#8a5300",
    muted_fg="#5f6368",
    link="#1a56c4",
    score_bar="#3f7fd9",
    score_track="#e3e7ee",
    error_bg="#fff4e5",
    error_fg="#663c00",
    hover_bg="#e8f0fe",
    card_bg="#ffffff",
    border="#d0d4da",
)

DARK = Colors(
    dark=True,
    passage_bg="#5c4d12",
    strong_bg="#a0600a",
    strong_border="#ffb74d",
    unsupported_bg="#4a2222",
    unsupported_line="#ff8a80",
    banner_bg="#4a1d1a",
    banner_fg="#ffdad6",
    banner_border="#c0504a",
    ok_fg="#8fd694",
    warn_fg="#ffcc80",
    muted_fg="#a4a9b0",
    link="#8ab4f8",
    score_bar="#6ea3f0",
    score_track="#3a3f47",
    error_bg="#4a3a1a",
    error_fg="#ffe0b2",
    hover_bg="#2f3b52",
    card_bg="#2b2d31",
    border="#4a4d52",
)

_current = LIGHT


def colors() -> Colors:
    """The colours of the theme in use."""
    return _current


def _dark_palette() -> QPalette:
    p = QPalette()
    window, base, text = QColor("#232427"), QColor("#1b1c1f"), QColor("#e8e8ea")
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: QColor("#26282c"),
        QPalette.ColorRole.ToolTipBase: QColor("#2f3136"),
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: QColor("#8b9097"),
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: QColor("#2d2f33"),
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.BrightText: QColor("#ff6b6b"),
        QPalette.ColorRole.Highlight: QColor("#3d6fb6"),
        QPalette.ColorRole.HighlightedText: QColor("#ffffff"),
        QPalette.ColorRole.Link: QColor(DARK.link),
        QPalette.ColorRole.LinkVisited: QColor("#c58af9"),
        QPalette.ColorRole.Mid: QColor("#3a3c41"),
        QPalette.ColorRole.Dark: QColor("#151618"),
        QPalette.ColorRole.Midlight: QColor("#34363b"),
        QPalette.ColorRole.Light: QColor("#44474d"),
        QPalette.ColorRole.Shadow: QColor("#000000"),
    }
    for role, color in roles.items():
        p.setColor(role, color)
    disabled = QColor("#7a7e85")
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return p


def _light_palette() -> QPalette:
    p = QApplication.style().standardPalette()
    p.setColor(QPalette.ColorRole.Window, QColor("#f3f4f6"))
    p.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    p.setColor(QPalette.ColorRole.AlternateBase, QColor("#f7f8fa"))
    p.setColor(QPalette.ColorRole.Highlight, QColor("#2f6fdb"))
    p.setColor(QPalette.ColorRole.Link, QColor(LIGHT.link))
    p.setColor(QPalette.ColorRole.PlaceholderText, QColor("#80868b"))
    return p


def system_prefers_dark() -> bool:
    """Whether the platform asks for a dark colour scheme."""
    hints = QGuiApplication.styleHints()
    return bool(hints.colorScheme() == Qt.ColorScheme.Dark)


def apply_theme(app: QApplication, name: str = "system") -> Colors:
    """Fusion style with a light or dark palette, and the style sheet filled with its colours."""
    global _current
    dark = system_prefers_dark() if name not in ("light", "dark") else name == "dark"
    app.setStyle(QStyleFactory.create("Fusion"))
    _current = DARK if dark else LIGHT
    app.setPalette(_dark_palette() if dark else _light_palette())
    app.setStyleSheet(style_sheet(_current))
    return _current


def style_sheet(c: Colors) -> str:
    """resources/style.qss with ``@name`` replaced by the theme's colours."""
    places = [RESOURCES, *(share / "footnotes" for share in installed_share())]
    path = next((p / "style.qss" for p in places if (p / "style.qss").is_file()), None)
    try:
        qss = path.read_text(encoding="utf-8") if path is not None else ""
    except OSError:
        return ""
    names = sorted(c.__dataclass_fields__, key=len, reverse=True)
    for name in names:
        value = getattr(c, name)
        if isinstance(value, str):
            qss = qss.replace(f"@{name}", value)
    return qss


def app_icon() -> QIcon:
    """The Footnotes icon from resources/icons (PNG renders of footnotes.svg)."""
    icon = QIcon()
    folder = RESOURCES / "icons"
    for size in ICON_SIZES:
        hicolor = f"icons/hicolor/{size}x{size}/apps/footnotes.png"
        for png in (folder / f"footnotes-{size}.png", *(s / hicolor for s in installed_share())):
            if png.is_file():
                icon.addFile(str(png))
                break
    if icon.isNull() and (folder / "footnotes.svg").exists():
        icon.addFile(str(folder / "footnotes.svg"))
    return icon
