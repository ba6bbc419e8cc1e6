"""``footnotes ask QUESTION`` / ``--batch FILE.jsonl``: search, answer, print the verdict."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from app.cli.common import (
    BatchLine,
    HandledError,
    print_json,
    read_batch,
    say_failed,
    visible,
)
from app.core.api import Footnotes
from app.core.ask import (
    Asker,
    AskEvent,
    AskOptions,
    AskOutcome,
    AskRequest,
    Done,
    Ending,
    Piece,
    Planned,
    SearchFn,
    open_store,
)
from app.core.engine import Engine
from app.core.errors import UnknownThread
from app.core.prompt.answering import Answer, Source
from app.core.search.retrieval import SearchResult
from app.core.search.scope import Scope
from app.core.types import Support
from app.core.verdict.judge import Verdict
from app.core.wording import excerpt

_LEVEL_WORDS = {
    "supported": "Supported",
    "partly_supported": "Partly supported",
    "unsupported": "UNSUPPORTED",
    "no_answer": "No answer",
}


def _verdict_line(v: Verdict, s: Support) -> str:
    """The headline: the verdict on the finished answer, then the retrieval evidence."""
    evidence = f"retrieval {'strong' if s.supported else 'weak'}, {s.score:.2f}"
    return f"{_LEVEL_WORDS.get(v.level, v.level)} ({evidence}): {visible(v.reason)}"


def _where(path: str, page: int | None) -> str:
    return path + (f" p.{page}" if page else "")


def run(args: argparse.Namespace, fn: Footnotes) -> int:
    """Ask the core's Asker and render its events; the verdict needs the finished answer, so
    on a terminal the answer streams first and the verdict follows it; otherwise (a pipe,
    ``--json``) the verdict is the first line."""
    if getattr(args, "batch", None):
        return _run_batch(args, fn.engine)
    engine = fn.engine
    settings = engine.settings
    store = open_store(engine.data, settings)
    thread_id = getattr(args, "thread", None)
    if thread_id and store is None:
        raise HandledError(
            "history is turned off in Settings, so there is no thread to continue; ask "
            "without --thread, or turn history on"
        )
    asker = Asker(_search(args, engine), store, _options(args, engine))
    request = AskRequest(
        args.question,
        getattr(args, "scope", None),
        thread_id,
        thread_must_exist=True,
        follow_up=True if getattr(args, "follow_up", False) else None,
    )
    stream = not args.json and sys.stdout.isatty()
    try:
        outcome = _render(asker.ask(request), stream=stream, quiet=bool(args.json))
    except UnknownThread as exc:
        raise HandledError(
            f"there is no thread {exc.thread_id!r}; `footnotes threads list` shows the threads"
        ) from None
    finally:
        if store is not None:
            store.close()
    if args.json:
        print_json(_json(outcome, thread=outcome.thread_id))
    else:
        if stream:
            print("\n")
        _print_outcome(outcome, streamed=stream)
    if outcome.error:
        raise HandledError(outcome.error)
    return 0


def _options(args: argparse.Namespace, engine: Engine) -> AskOptions:
    return AskOptions.from_settings(engine.settings, k=args.k, model=args.model)


def _search(args: argparse.Namespace, engine: Engine) -> SearchFn:
    """The engine's search; ``-k`` and the scope come from the Asker's request."""

    def search(query: str, k: int, scope: Scope | None) -> SearchResult:
        return engine.search(query, k, scope=scope)

    return search


def _render(events: Iterator[AskEvent], *, stream: bool, quiet: bool) -> AskOutcome:
    """Say what the events say as they come (on stderr what is not the answer); the outcome."""
    planned_warning = None
    for event in events:
        if isinstance(event, Planned):
            planned_warning = event.warning
            if event.warning:
                print(f"footnotes: {visible(event.warning)}", file=sys.stderr, flush=True)
            if event.new_topic_from:
                print(
                    f"footnotes: {visible(event.new_topic_note)} To ask it in thread "
                    f"{event.new_topic_from} instead, add --follow-up.",
                    file=sys.stderr,
                    flush=True,
                )
            if not quiet and event.turn > 1:
                print(f"Searched for: {visible(event.search_query)}")
            if stream:
                print(
                    "Answering… (the verdict follows, once the answer is checked against "
                    "your files)"
                )
        elif isinstance(event, Piece) and stream:
            sys.stdout.write(visible(event.text, newlines=True))
            sys.stdout.flush()
        elif isinstance(event, Done):
            o = event.outcome
            if o.history_warning and o.history_warning != planned_warning:
                print(f"footnotes: {visible(o.history_warning)}", file=sys.stderr, flush=True)
            _say_model_note(o.answer)
            return o
    raise AssertionError("the Asker ended without Done")  # pragma: no cover


def _json(o: AskOutcome, *, thread: str | None) -> dict[str, Any]:
    """The ``ask --json`` object of an outcome."""
    assert o.result is not None and o.answer is not None
    return {
        **o.result.to_json(),
        **o.answer.to_json(),
        "error": o.error,
        "ending": o.ending.value,
        "answered": bool(o.answer.text),
        "thread": thread,
        "turn": o.turn,
        "search_query": o.search_query,
        "search_method": o.search_method,
        "search_note": o.search_note or None,
        "new_topic_from": o.new_topic_from,
    }


def _say_model_note(answer: Answer | None) -> None:
    """Say (on stderr, so ``--json`` stays one object) that another model answered."""
    if answer is not None and answer.model_note and answer.error is None:
        print(f"footnotes: {visible(answer.model_note)}", file=sys.stderr, flush=True)


def _run_batch(args: argparse.Namespace, engine: Engine) -> int:
    """One ask object per ``{"_id", "text"}`` line, in order; a failed line says why and the
    batch goes on. The model is chosen once, so a fallback is decided (and loaded) once.
    Batch questions stand alone and are not kept."""
    options = _options(args, engine)
    asker = Asker(_search(args, engine), None, options)
    note = asker.settle_model()
    if note:
        print(f"footnotes: {note}", file=sys.stderr, flush=True)
    failed = total = 0
    for line in read_batch(args.batch):
        total += 1
        out = _batch_line(args, asker, line)
        if "model" in out:
            out["model_requested"] = options.model
        failed += out.get("error") is not None
        print_json(out)
    say_failed(failed, total, "questions")
    return 0


def _batch_line(args: argparse.Namespace, asker: Asker, line: BatchLine) -> dict[str, Any]:
    if line.error is not None:
        return {"_id": line.ident, "line": line.n, "error": line.error}
    try:
        outcome = asker.run(AskRequest(line.text, getattr(args, "scope", None)))
    except Exception as exc:  # one question's failure (a store error...) must not end the batch
        return {"_id": line.ident, "line": line.n, "query": line.text, "error": str(exc)}
    if outcome.result is None:  # the index could not be searched
        return {"_id": line.ident, "line": line.n, "query": line.text, "error": outcome.error}
    return {"_id": line.ident, **_json(outcome, thread=None)}


def _print_outcome(o: AskOutcome, *, streamed: bool) -> None:
    """The verdict line first, then the scope, the answer and its marks, the sources."""
    if o.verdict is not None and o.result is not None:
        print(_verdict_line(o.verdict, o.result.support), flush=True)
    elif o.verdict is not None:
        print(f"{_LEVEL_WORDS.get(o.verdict.level, o.verdict.level)}: {visible(o.verdict.reason)}")
    if o.result is not None and o.result.scope is not None:  # after the verdict
        print(f"Scope: {visible(o.result.scope.summary())}")
    note = _NOT_ASKED.get(o.ending)
    if note:
        print(note)
    if o.answer is not None and o.result is not None:
        _print_answer(o.result, o.answer, streamed=streamed)
    if o.thread_id:
        print(
            f"\nThread {o.thread_id}, turn {o.turn}: follow up with "
            f"footnotes ask --thread {o.thread_id} QUESTION"
        )


_NOT_ASKED = {
    Ending.REFUSED: (
        "Not asking the model: the setting says not to answer when your files do not "
        "support the question."
    ),
    Ending.EMPTY_INDEX: (
        "Nothing is indexed yet: add a folder with `footnotes folders add PATH` (then "
        "`footnotes index PATH`), and ask again."
    ),
    Ending.NOTHING_FOUND: "Nothing in your indexed files matches this question.",
}


def _print_answer(result: SearchResult, answer: Answer, *, streamed: bool) -> None:
    if streamed and answer.text:
        print()
    elif answer.text:
        print(visible(answer.text, newlines=True))
    if answer.partial:
        print("[The answer stopped here and is incomplete; the reason follows on stderr.]")
    flagged = [m for m in answer.sentences if m.kind == "claim" and not m.supported]
    if flagged:
        print("\nSentences without support in the cited passages:")
        for m in flagged:
            print(
                f"  - {visible(m.text.strip())}" + (f" ({visible(m.reason)})" if m.reason else "")
            )
    miscited = [m for m in answer.sentences if m.kind == "claim" and m.miscited]
    if miscited:
        print("\nSentences citing another passage than the one that backs them:")
        for m in miscited:
            backed = ", ".join(map(str, m.backed_by))
            print(f"  - {visible(m.text.strip())} (backed by [{backed}])")
    sources = answer.sources or [Source(h.rank, h) for h in result.hits]
    if sources:
        print("\nSources:")
    for s in sources:
        snippet = excerpt(s.hit.text, result.query)
        read = ""
        if s.sent is not None:  # what the model read of it, when not all of it
            read = " (cut to fit the model's context)" if s.truncated else " (read in part)"
        where = visible(_where(s.hit.path, s.hit.page)) + read
        print(f"  [{s.n}] {where}\n      {visible(snippet)}")
