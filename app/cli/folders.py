"""``footnotes folders add|remove|list``: the folders the watcher follows."""

from __future__ import annotations

import argparse

from app.cli.common import HandledError, print_json, visible
from app.core.engine import Engine
from app.core.errors import LockedError
from app.core.ingest.scanning import is_within
from app.core.wording import counted


def run(args: argparse.Namespace, engine: Engine) -> int:
    if args.action == "list":
        folders = engine.manifest.folders()
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
        return _add(args.path, engine)
    from app.core.ingest.scanning import no_longer_watched, normalize

    folder = normalize(args.path)
    engine.acquire_writer("footnotes folders remove")
    if not engine.manifest.remove_folder(folder):
        raise HandledError(f"{args.path} is not a watched folder")
    known = engine.manifest.files_under(folder)
    doomed = no_longer_watched(folder, engine.manifest.folders(), known)
    removed = engine.indexer().remove(doomed) if doomed else 0
    kept = " (a watched folder around it keeps them)" if not doomed and known else ""
    gone = counted(removed, "file")
    print(f"Stopped watching {visible(folder)}; removed {gone} from the index{kept}.")
    return 0


def _add(path: str, engine: Engine) -> int:
    """Watch ``path`` from now on, and say when it will be indexed."""
    watched = engine.manifest.folders()
    try:
        folder = engine.add_folder(path)
    except OSError as exc:
        raise HandledError(str(exc)) from None
    if folder in watched:
        print(f"Already watching {visible(folder)}.")
        return 0
    around = next((f for f in watched if is_within(folder, f)), None)
    if around is not None:
        inside = f"it is inside {visible(around)}, whose files are already indexed"
        print(f"Watching {visible(folder)}; {inside}.")
        return 0
    try:
        engine.acquire_writer("footnotes folders add")
    except LockedError:  # a running watcher (footnotes watch, the app) picks it up
        print(f"Watching {visible(folder)}; the running watcher indexes it within a few seconds.")
        return 0
    print(f"Watching {visible(folder)}; run `footnotes watch` (or the app) to index it.")
    return 0
