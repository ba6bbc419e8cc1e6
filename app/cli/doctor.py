"""``footnotes doctor``: is Ollama running, which model answers, is the index healthy, disk free?"""

from __future__ import annotations

import argparse

from app.cli.common import HandledError, visible
from app.core.api import Footnotes


def run(args: argparse.Namespace, fn: Footnotes) -> int:
    """One line per check, ``ok``, ``warning`` or ``problem``; exit 1 if anything is wrong
    (a warning is not)."""
    findings = fn.doctor()
    for finding, text in findings:
        print(f"{finding:8} {visible(text)}", flush=True)
    bad = sum(finding == "problem" for finding, _ in findings)
    if bad:
        raise HandledError(f"doctor found {bad} problem{'s' if bad > 1 else ''}")
    return 0
