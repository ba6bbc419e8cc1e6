"""``footnotes status``: counts, every file that failed with its reason, every file
indexed with a warning (a text encoding guessed, no text at all), and the files skipped by
reason and type."""

from __future__ import annotations

import argparse

from app.cli.common import print_json, visible
from app.core.api import Footnotes
from app.core.wording import counted, skipped_headline


def run(args: argparse.Namespace, fn: Footnotes) -> int:
    status = fn.status()
    if args.json:
        print_json(status)
        return 0
    print(f"Data directory: {visible(status['data_dir'])}")
    print(f"Watched folders: {visible(', '.join(status['folders'])) or 'none'}")
    print(
        f"Files: {status['files'] + status['files_skipped']} ({status['files_indexed']} indexed, "
        f"{status['files_failed']} failed, {status['files_skipped']} skipped); "
        f"passages: {status['chunks']}"
    )
    skipped = skipped_headline(status["skipped"])
    if skipped:
        print(f"Skipped: {skipped.split(': ', 1)[1]}")
        for group in status["skipped"]:
            examples = visible(", ".join(group["examples"]))
            print(f"  skipped ({group['label']}), e.g.: {examples}")
    if status.get("pages_ocr"):
        print(f"Pages read by OCR: {status['pages_ocr']}")
    if status["files_outdated"]:
        print(
            f"Rebuilding: {status['files_outdated']} files were indexed with an older format; "
            "the next sync reads and embeds them again (search works meanwhile)."
        )
    if status.get("chunks_waiting"):
        waiting = counted(status["chunks_waiting"], "passage")
        print(
            f"Embedding: {waiting} searchable by words, waiting for vectors "
            "(the next sync or the running watcher computes them)."
        )
    for f in status["failures"]:
        print(f"  failed: {visible(f['path'])}: {visible(f['reason'])}")
    for f in status["unavailable"]:
        where = f"{visible(f['path'])}: {visible(f['reason'])}"
        print(f"  unavailable: {where}; its passages stay in the index")
    if status["watch"] is not None:
        print(f"Watcher: {visible(status['watch']['message'])}")
    for w in status["warnings"]:
        print(f"  warning: {visible(w['path'])}: {visible(w['warning'])}")
    return 0
