"""What searching one open index keeps between questions: file names, term counts, calibration.

Each is derived from the index and cheap to check but slow to rebuild, so it lives as long as
the connection it was read from: the engine keeps one :class:`IndexCache` per open manifest
connection and hands it to every search over that connection (no module-level state).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.core.search.calibration import Calibration, CalibrationFile
from app.core.search.named import NamedFiles
from app.core.search.pages import FilePages
from app.core.search.termstats import LexicalStats

if TYPE_CHECKING:
    from app.core.index.manifest import Manifest


class IndexCache:
    """The derived state of one manifest connection that searches reuse."""

    def __init__(self, manifest: Manifest, calibration_root: Path | None = None) -> None:
        self.manifest = manifest
        self.named = NamedFiles(manifest)  # file names, re-read when the files change
        self.stats = LexicalStats(manifest.conn)  # term counts, cleared when the index grows
        self.pages = FilePages(manifest)  # the passages of the filings read again lately
        self._calibration = None if calibration_root is None else CalibrationFile(calibration_root)

    def calibration(self) -> Calibration | None:
        """The index's own calibration of the support flag, if it has one (and a data dir)."""
        return None if self._calibration is None else self._calibration.current()
