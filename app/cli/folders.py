"""``footnotes folders add|remove|list``: the folders the watcher follows."""

from __future__ import annotations

import argparse

from app.cli.common import HandledError, print_json
from app.core.engine import Engine


def run(args: argparse.Namespace, engine: Engine) -> int:
    if args.action == "list":
        folders = engine.manifest.folders()
        if args.json:
            print_json({"folders": folders})
        else:
            print(
                "\n".join(folders)
                if folders
                else "No watched folders; add one with `footnotes folders add PATH`."
            )
        return 0
    if args.action == "add":
        try:
            folder = engine.add_folder(args.path)
        except OSError as exc:
            raise HandledError(str(exc)) from None
        print(f"Watching {folder}; run `footnotes watch` (or the app) to index it.")
        return 0
    from app.core.ingest.scanning import no_longer_watched, normalize

    folder = normalize(args.path)
    engine.acquire_writer("footnotes folders remove")
    if not engine.manifest.remove_folder(folder):
        raise HandledError(f"{args.path} is not a watched folder")
    known = engine.manifest.files_under(folder)
    doomed = no_longer_watched(folder, engine.manifest.folders(), known)
    removed = engine.indexer().remove(doomed) if doomed else 0
    kept = " (a watched folder around it keeps them)" if not doomed and known else ""
    print(f"Stopped watching {folder}; removed {removed} files from the index{kept}.")
    return 0
