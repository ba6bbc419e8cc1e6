"""``footnotes threads list|show|export|delete``: the conversation history."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from app.cli.common import HandledError, excerpt, print_json, visible
from app.core.engine import Engine
from app.core.errors import HistoryError
from app.core.text import display_path
from app.core.threads.export import source_state, thread_markdown
from app.core.threads.export_file import ExportError, write_export
from app.core.threads.store import ThreadInfo, ThreadStore
from app.core.watch.status import plural


def run(args: argparse.Namespace, engine: Engine) -> int:
    store = ThreadStore(engine.data.threads_path, engine.settings.busy_timeout_s)
    try:
        if args.action == "list":
            return _list(args, store)
        info = _thread(store, args.id)
        if args.action == "delete":
            store.delete(info.id)
            turns = plural(info.turns, "turn")
            print(f"Deleted thread {visible(info.id)} ({turns}): {visible(info.title)}")
        elif args.action == "show":
            _show(store, info)
        else:
            _export(args, store, info, engine.data.root)
        return 0
    except HistoryError as exc:
        raise HandledError(str(exc)) from None
    finally:
        store.close()


def _thread(store: ThreadStore, thread_id: str) -> ThreadInfo:
    info = store.get(thread_id)
    if info is None:
        raise HandledError(
            f"there is no thread {thread_id!r}; `footnotes threads list` shows the threads"
        )
    return info


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def _list(args: argparse.Namespace, store: ThreadStore) -> int:
    threads = store.list_threads(args.search)
    if args.json:
        print_json([t.to_json() for t in threads])
        return 0
    if not threads:
        print("No threads yet: each `footnotes ask` starts one.")
    for t in threads:
        turns = f"{t.turns:>3} turn{'s' if t.turns != 1 else ' '}"
        print(f"{visible(t.id)}  {_when(t.updated)}  {turns}  {visible(t.title)}")
    return 0


def _show(store: ThreadStore, info: ThreadInfo) -> None:
    print(f"Thread {visible(info.id)}: {visible(info.title)}")
    for turn in store.turns(info.id):
        asked = f"{visible(turn.question)}  ({_when(turn.created)}, {visible(turn.model)})"
        print(f"\n[{turn.n}] {asked}")
        if turn.search_query.strip() != turn.question.strip():
            print(f"Searched for: {visible(turn.search_query)}")
        level = visible(str(turn.verdict.get("level", "")).replace("_", " "))
        if level:
            print(f"Verdict: {level} — {visible(turn.verdict.get('reason', ''))}")
        print(visible(turn.answer.strip(), newlines=True) or "(no answer)")
        if turn.error:
            print(f"Error: {visible(turn.error)}")
        for s in turn.sources:
            where = visible(display_path(s.path)) + (f" p.{s.page}" if s.page else "")
            state = source_state(s, turn.created)
            snippet = visible(excerpt(s.text, turn.search_query))
            if s.sent is not None:
                where += " (read in part)"
            print(f"  [{s.n}] {where}" + (f"  ({state})" if state else "") + f"\n      {snippet}")


def _export(args: argparse.Namespace, store: ThreadStore, info: ThreadInfo, data_dir: Path) -> None:
    turns = store.turns(info.id)
    if args.turn is not None:
        turns = [t for t in turns if t.n == args.turn]
        if not turns:
            raise HandledError(f"thread {info.id} has turns 1 to {info.turns}, not {args.turn}")
    text = thread_markdown(info.title, turns, thread_id=info.id)
    if args.output:
        try:
            write_export(Path(args.output), text, data_dir, replace=args.force)
        except ExportError as exc:
            raise HandledError(str(exc)) from None
        print(f"Wrote {visible(args.output)}", file=sys.stderr)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
