"""Helpers shared by the benchmark scripts: where the evaluation data is, tables, memory."""

from __future__ import annotations

import json
import os
import resource
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # so `python bench/x.py` imports `app` without an install
    sys.path.insert(0, str(REPO_ROOT))


def shared_data_dir() -> Path:
    """``$FOOTNOTES_SHARED_DATA``, else ``<repo>/../shared/data``."""
    raw = os.environ.get("FOOTNOTES_SHARED_DATA")
    return Path(raw).expanduser().resolve() if raw else (REPO_ROOT.parent / "shared" / "data")


def require_data(*parts: str) -> Path:
    """Path inside the shared data folder; exit 0 with a clear message when it is missing."""
    path = shared_data_dir().joinpath(*parts)
    if not path.exists():
        print(
            f"SKIP: {path} not found. Benchmarks read the evaluation data from ../shared/data "
            "beside the checkout; set FOOTNOTES_SHARED_DATA to its location to run this one."
        )
        sys.exit(0)
    return path


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Each non-empty line of a JSON-lines file as a dict."""
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A plain aligned text table: first column left, the rest right; floats get 3 decimals."""

    def cell(value: object) -> str:
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    cells = [[cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        first, *rest = zip(row, widths, strict=True)
        print("  ".join([first[0].ljust(first[1]), *(v.rjust(w) for v, w in rest)]))
