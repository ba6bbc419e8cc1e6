"""``footnotes status``: counts, every file that failed with its reason, and every file
indexed with a warning (a text encoding guessed)."""

from __future__ import annotations

import argparse

from app.cli.common import print_json
from app.core.engine import Engine
from app.core.index import file_warnings


def run(args: argparse.Namespace, engine: Engine) -> int:
    status = engine.status()
    warned = file_warnings.listed(engine.manifest.conn)
    status["warnings"] = [{"path": p, "warning": w} for p, w in warned]
    if args.json:
        print_json(status)
        return 0
    print(f"Data directory: {status['data_dir']}")
    print(f"Watched folders: {', '.join(status['folders']) or 'none'}")
    print(
        f"Files: {status['files']} ({status['files_indexed']} indexed, "
        f"{status['files_failed']} failed); passages: {status['chunks']}"
    )
    if status.get("pages_ocr"):
        print(f"Pages read by OCR: {status['pages_ocr']}")
    if status["files_outdated"]:
        print(
            f"Rebuilding: {status['files_outdated']} files were indexed with an older format; "
            "the next sync reads and embeds them again (search works meanwhile)."
        )
    for f in status["failures"]:
        print(f"  failed: {f['path']}: {f['reason']}")
    for path, warning in warned:
        print(f"  warning: {path}: {warning}")
    return 0
