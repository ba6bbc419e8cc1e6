"""``footnotes repair``: set damaged files aside and rebuild what the manifest can rebuild."""

from __future__ import annotations

import argparse

from app.cli.common import visible
from app.core.engine import Engine


def run(args: argparse.Namespace, engine: Engine) -> int:
    """One line per repair; a damaged manifest ends it with what to do (exit 1)."""
    for line in engine.repair():
        print(f"repaired {visible(line)}", flush=True)
    return 0
