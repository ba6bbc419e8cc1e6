"""``footnotes status``: counts, every file that failed with its reason, every file
indexed with a warning (a text encoding guessed), and the files skipped by reason and type."""

from __future__ import annotations

import argparse

from app.cli.common import print_json, visible
from app.core.engine import Engine
from app.core.index import file_warnings
from app.core.index.availability import folder_problem
from app.core.index.skipped import headline
from app.core.watch.retrying import read_state
from app.core.wording import counted


def run(args: argparse.Namespace, engine: Engine) -> int:
    status = engine.status()
    # a watched folder that cannot be read keeps its passages: say which, and why
    manifest = engine.manifest
    problems = {f: folder_problem(f, manifest.holds_files(f)) for f in status["folders"]}
    status["unavailable"] = [{"path": f, "reason": r} for f, r in problems.items() if r]
    status["watch"] = read_state(engine.data.root, engine.data.lock_path)  # None: no retry
    warned = file_warnings.listed(engine.manifest.conn)
    status["warnings"] = [{"path": p, "warning": w} for p, w in warned]
    status["skipped"] = manifest.skipped_summary()
    status["files_skipped"] = sum(g["count"] for g in status["skipped"])
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
    skipped = headline(status["skipped"])
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
    for path, warning in warned:
        print(f"  warning: {visible(path)}: {visible(warning)}")
    return 0
