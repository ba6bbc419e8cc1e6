"""``footnotes folders add|remove|list``: the folders the watcher follows."""

from __future__ import annotations

import argparse

from app.cli.common import HandledError, print_json, visible
from app.core.api import Footnotes
from app.core.wording import counted


def run(args: argparse.Namespace, fn: Footnotes) -> int:
    if args.action == "list":
        folders = fn.folders()
        if args.json:
            print_json({"folders": folders})
        else:
            print(
                "\n".join(visible(f) for f in folders)
                if folders
                else "No watched folders; add one with `footnotes folders add PATH`."
            )
        return 0
    if args.action == "add":
        return _add(args.path, fn)
    removed = fn.remove_folder(args.path)
    if removed is None:
        raise HandledError(f"{args.path} is not a watched folder")
    kept = " (a watched folder around it keeps them)" if removed.kept_by_parent else ""
    gone = counted(removed.files_removed, "file")
    print(f"Stopped watching {visible(removed.folder)}; removed {gone} from the index{kept}.")
    return 0


def _add(path: str, fn: Footnotes) -> int:
    """Watch ``path`` from now on, and say when it will be indexed."""
    try:
        added = fn.add_folder(path)
    except OSError as exc:
        raise HandledError(str(exc)) from None
    folder = visible(added.folder)
    if added.already:
        print(f"Already watching {folder}.")
    elif added.inside is not None:
        inside = f"it is inside {visible(added.inside)}, whose files are already indexed"
        print(f"Watching {folder}; {inside}.")
    elif added.watcher_running:
        print(f"Watching {folder}; the running watcher indexes it within a few seconds.")
    else:
        print(f"Watching {folder}; run `footnotes watch` (or the app) to index it.")
    return 0
