"""``footnotes index PATH...``: bring the index up to date for these files and folders, once."""

from __future__ import annotations

import argparse
import sys

from app.cli.common import ProgressBar, print_json
from app.core.engine import Engine
from app.core.index.indexer import Cancelled


def run(args: argparse.Namespace, engine: Engine) -> int:
    bar = ProgressBar(not args.json)
    try:
        report = engine.index(args.paths, progress=bar)
    except Cancelled:
        raise KeyboardInterrupt from None
    finally:
        bar.close()
    if args.json:
        print_json(report.to_json())
    else:
        unchanged = report.files_unchanged - report.failed_unchanged  # each file counted once
        print(
            f"{report.files_seen} files: {report.files_indexed} indexed, "
            f"{unchanged} unchanged, {report.files_removed} removed, "
            f"{report.files_failed} failed; {report.chunks_total} passages "
            f"({report.chunks_embedded} embedded, {report.chunks_reused} reused) "
            f"in {report.seconds:.1f} s"
        )
        if report.pages_ocr:
            print(f"  {report.pages_ocr} scanned pages read by OCR")
        for path, reason in report.failures:
            print(f"  failed: {path}: {reason}")
        for path, reason in report.unavailable:
            print(f"  unavailable: {path}: {reason}; its passages stay in the index")
    for path in report.not_found:
        print(
            f"footnotes: {path}: not found (nothing there, nothing indexed from it)",
            file=sys.stderr,
        )
    return 1 if report.not_found else 0
