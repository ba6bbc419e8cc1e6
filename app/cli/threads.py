"""``footnotes threads list|show|export|delete``: the conversation history."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from app.cli.common import HandledError, print_json, visible
from app.core.api import ExportError, Footnotes, ThreadInfo, ThreadStore, Verdict, source_state
from app.core.errors import HistoryError, UnknownThread
from app.core.wording import counted, excerpt, read_in_part, source_where, verdict_line


def run(args: argparse.Namespace, fn: Footnotes) -> int:
    store = fn.threads
    try:
        if args.action == "list":
            return _list(args, store)
        info = _thread(store, args.id)
        if args.action == "delete":
            store.delete(info.id)
            turns = counted(info.turns, "turn")
            print(f"Deleted thread {visible(info.id)} ({turns}): {visible(info.title)}")
        elif args.action == "show":
            _show(store, info)
        else:
            _export(args, fn, info)
        return 0
    except HistoryError as exc:
        raise HandledError(str(exc)) from None


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
        verdict = Verdict.from_json(turn.verdict)
        if verdict is not None:
            print(f"Verdict: {visible(verdict_line(verdict))}")
        print(visible(turn.answer.strip(), newlines=True) or "(no answer)")
        if turn.error:
            print(f"Error: {visible(turn.error)}")
        for s in turn.sources:
            where = visible(source_where(s.path, s.page) + read_in_part(s.sent))
            state = source_state(s, turn.created)
            snippet = visible(excerpt(s.text, turn.search_query))
            print(f"  [{s.n}] {where}" + (f"  ({state})" if state else "") + f"\n      {snippet}")


def _export(args: argparse.Namespace, fn: Footnotes, info: ThreadInfo) -> None:
    to = Path(args.output) if args.output else None
    try:
        text = fn.export(info.id, turn=args.turn, to=to, force=args.force)
    except (ExportError, ValueError, UnknownThread) as exc:
        raise HandledError(str(exc)) from None
    if to is not None:
        print(f"Wrote {visible(args.output)}", file=sys.stderr)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
