"""Parts of an index that calibrate the support flag apart: its top-level folders.

One index can hold very different collections: short notes, long manuals, a folder of
near-identical filings. A question whose passage is missing finds a close neighbour among
filings far more easily than among notes, so one threshold for the whole index is too strict
for one part and too lenient for another. A region is a folder one level below the watched
folder (or below the folder all indexed files share, for an index made with ``footnotes
index <path>``); files directly in that folder form a region of their own. Regions too small
to measure share the index-wide threshold.
"""

from __future__ import annotations

__all__ = ["MAX_REGIONS", "folder_of", "regions"]

import os
from collections import Counter
from collections.abc import Sequence

from app.core.index.manifest import Manifest

MAX_REGIONS = 6  # the largest regions are measured (each asks its own drawn questions)


def regions(manifest: Manifest, min_passages: int) -> list[tuple[str, int]]:
    """The folders measured apart, largest first, with their passage counts: at most
    ``MAX_REGIONS``, each with at least ``min_passages``; none unless two qualify."""
    files = {p: r.chunks for p, r in manifest.files_under().items() if r.chunks}
    if not files:
        return []
    bases = manifest.folders() or [_common_folder(list(files))]
    counts: Counter[str] = Counter()
    for path, n in files.items():
        counts[_region(path, bases)] += n
    big = [(folder, n) for folder, n in counts.most_common(MAX_REGIONS) if n >= min_passages]
    return big if len(big) >= 2 else []


def folder_of(path: str, folders: Sequence[str]) -> str | None:
    """The region (of ``folders``) that holds ``path``: the deepest one that contains it."""
    best: str | None = None
    for folder in folders:
        if path.startswith(folder.rstrip(os.sep) + os.sep) and (
            best is None or len(folder) > len(best)
        ):
            best = folder
    return best


def _region(path: str, bases: Sequence[str]) -> str:
    base = folder_of(path, bases) or os.path.dirname(path)
    rest = path[len(base.rstrip(os.sep)) + 1 :]
    top, sep, _ = rest.partition(os.sep)
    return os.path.join(base, top) if sep else base


def _common_folder(paths: Sequence[str]) -> str:
    try:
        return os.path.commonpath([os.path.dirname(p) for p in paths])
    except ValueError:  # paths on different drives (Windows)
        return os.path.dirname(paths[0])
