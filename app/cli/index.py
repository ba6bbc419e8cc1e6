"""``footnotes index PATH...``: bring the index up to date for these files and folders, once."""

from __future__ import annotations

import argparse
import sys

from app.cli.common import ProgressBar, print_json, visible
from app.core.api import Cancelled, Footnotes, normalize
from app.core.wording import counted, skip_sentence, skipped_headline


def run(args: argparse.Namespace, fn: Footnotes) -> int:
    bar = ProgressBar(not args.json)
    try:
        report = fn.index(args.paths, progress=bar)
    except Cancelled:
        raise KeyboardInterrupt from None
    finally:
        bar.close()
    if args.json:
        print_json(report.to_json())
    else:
        files = counted(report.files_seen + report.files_skipped, "file")
        passages = counted(report.chunks_total, "passage")
        skipped = f", {report.files_skipped:,} skipped" if report.files_skipped else ""
        print(
            f"{files}: {report.files_indexed:,} indexed, "
            f"{report.unchanged_only:,} unchanged, {report.files_removed:,} removed, "
            f"{report.files_failed:,} failed{skipped}; {passages} "
            f"({report.chunks_embedded:,} embedded, {report.chunks_reused:,} reused) "
            f"in {report.seconds:.1f} s"
        )
        why = skipped_headline(report.skipped_summary())
        if why:
            print(f"  {why}")
        if report.pages_ocr:
            print(f"  {counted(report.pages_ocr, 'scanned page')} read by OCR")
        for path, reason in report.failures:
            print(f"  failed: {visible(path)}: {visible(reason)}")
        for path, reason in report.unavailable:
            where = f"{visible(path)}: {visible(reason)}"
            print(f"  unavailable: {where}; its passages stay in the index")
    for path in report.not_found:
        print(
            f"footnotes: {visible(path)}: not found (nothing there, nothing indexed from it)",
            file=sys.stderr,
        )
    named = {normalize(p) for p in args.paths}
    refused = [f for f in report.skipped if f.path in named]  # a file asked for by name
    for f in refused:
        why = visible(f"{f.path}: skipped: {skip_sentence(f.reason, f.path)}")
        print(f"footnotes: {why}", file=sys.stderr)
    return 1 if report.not_found or refused else 0
