"""What each ``footnotes`` sub-command does; argument parsing lives in ``app.cli``."""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Callable
from typing import Any

from app.cli import data_dir_arg, ollama_host_arg, print_json
from app.core.engine import Engine
from app.core.indexer import Cancelled, Progress
from app.core.locking import LockedError
from app.core.store import StoreError


class HandledError(Exception):
    """An error with a one-line message for stderr (exit status 1)."""


def open_engine(args: argparse.Namespace) -> Engine:
    return Engine(
        data_dir_arg(args),
        chroma_url=getattr(args, "chroma_url", None),
        ollama_host=ollama_host_arg(args),
    )


def dispatch(args: argparse.Namespace) -> int:
    handler: Callable[[argparse.Namespace, Engine], int] = COMMANDS[args.command]
    engine = None
    try:
        engine = open_engine(args)
        return handler(args, engine)
    except (HandledError, LockedError, StoreError) as exc:
        print(f"footnotes: {exc}", file=sys.stderr)
        return 1
    except sqlite3.OperationalError as exc:
        print(f"footnotes: {database_message(exc, args)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("footnotes: stopped; everything indexed so far is saved.", file=sys.stderr)
        return 130
    finally:
        if engine is not None:
            engine.close()


def database_message(exc: sqlite3.OperationalError, args: argparse.Namespace) -> str:
    """A sentence for a manifest database the command could not use (locked, read-only...)."""
    from app.core.config import DataDir

    where = DataDir(data_dir_arg(args)).manifest_path
    text = str(exc)
    if "locked" in text or "busy" in text:
        return (
            f"the index database {where} stayed locked by another program, so this command "
            "gave up waiting; the index is unharmed (every change is one transaction). Close "
            "whatever holds it (a database browser, a backup tool) and run the command again."
        )
    return f"cannot use the index database {where}: {text}."


class ProgressBar:
    """A tqdm bar on a terminal for long runs; silent otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.bar: Any = None
        self.embedded = 0

    def __call__(self, p: Progress) -> None:
        if not self.enabled:
            return
        if p.event == "planned":
            from tqdm import tqdm

            self.bar = tqdm(total=p.total, unit="file", desc="Indexing", file=sys.stderr)
        elif self.bar is not None and p.event in ("indexed", "failed", "unchanged"):
            self.embedded += p.chunks_embedded if p.event == "indexed" else 0
            self.bar.n = p.done
            self.bar.set_postfix(embedded=self.embedded, refresh=False)
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def cmd_index(args: argparse.Namespace, engine: Engine) -> int:
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
        print(
            f"{report.files_seen} files: {report.files_indexed} indexed, "
            f"{report.files_unchanged} unchanged, {report.files_removed} removed, "
            f"{report.files_failed} failed; {report.chunks_total} passages "
            f"({report.chunks_embedded} embedded, {report.chunks_reused} reused) "
            f"in {report.seconds:.1f} s"
        )
        for path, reason in report.failures:
            print(f"  failed: {path}: {reason}")
    return 0


def cmd_search(args: argparse.Namespace, engine: Engine) -> int:
    if args.batch:
        with open(args.batch, encoding="utf-8") as fh:
            for n, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                    text = item["text"]
                except (ValueError, KeyError, TypeError) as exc:
                    raise HandledError(
                        f'{args.batch}:{n}: expected {{"_id", "text"}} ({exc})'
                    ) from None
                out = engine.search(text, args.k, args.mode).to_json()
                out["_id"] = item.get("_id")
                print_json(out)
        return 0
    result = engine.search(args.query, args.k, args.mode)
    if args.json:
        print_json(result.to_json())
        return 0
    s = result.support
    print(("Supported" if s.supported else "UNSUPPORTED") + f" ({s.score:.2f}): {s.reason}")
    for h in result.hits:
        where = f"{h.path}" + (f" p.{h.page}" if h.page else "")
        snippet = " ".join(h.text.split())[:200]
        print(f"[{h.rank}] {where}  ({h.score:.3f})\n    {snippet}")
    return 0


def cmd_status(args: argparse.Namespace, engine: Engine) -> int:
    status = engine.status()
    if args.json:
        print_json(status)
        return 0
    print(f"Data directory: {status['data_dir']}")
    print(f"Watched folders: {', '.join(status['folders']) or 'none'}")
    print(
        f"Files: {status['files']} ({status['files_indexed']} indexed, "
        f"{status['files_failed']} failed); passages: {status['chunks']}"
    )
    for f in status["failures"]:
        print(f"  failed: {f['path']}: {f['reason']}")
    return 0


def cmd_folders(args: argparse.Namespace, engine: Engine) -> int:
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
    from app.core.scanning import no_longer_watched, normalize

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


def cmd_watch(args: argparse.Namespace, engine: Engine) -> int:
    from app.watch import run_watch

    return run_watch(engine)


def cmd_not_yet(args: argparse.Namespace, engine: Engine) -> int:
    raise HandledError(f"`{args.command}` is not available in this build yet")


def cmd_ask(args: argparse.Namespace, engine: Engine) -> int:
    from app.commands_ask import run_ask

    return run_ask(args, engine)


def cmd_doctor(args: argparse.Namespace, engine: Engine) -> int:
    from app.commands_ask import run_doctor

    return run_doctor(args, engine)


def cmd_eval(args: argparse.Namespace, engine: Engine) -> int:
    from app.commands_eval import run_eval

    return run_eval(args, engine)


COMMANDS: dict[str, Callable[[argparse.Namespace, Engine], int]] = {
    "index": cmd_index,
    "search": cmd_search,
    "status": cmd_status,
    "folders": cmd_folders,
    "watch": cmd_watch,
    "ask": cmd_ask,
    "doctor": cmd_doctor,
    "eval": cmd_eval,
}
