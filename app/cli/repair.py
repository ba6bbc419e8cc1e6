"""``footnotes repair``: set damaged files aside and rebuild them: the manifest from the files,
the rest from the manifest."""

from __future__ import annotations

import argparse

from app.cli.common import ProgressBar, visible
from app.core.api import Footnotes


def run(args: argparse.Namespace, fn: Footnotes) -> int:
    """One line per repair (a manifest rebuilt from the files shows a progress bar); one that
    cannot be done ends it with what to do (exit 1)."""
    bar = ProgressBar(True)
    try:
        lines = fn.repair(progress=bar)
    finally:
        bar.close()
    for line in lines:
        print(f"repaired {visible(line)}", flush=True)
    return 0
