"""``footnotes ask QUESTION`` / ``--batch FILE.jsonl``: search, answer, print the verdict."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

from app.cli.common import (
    BatchLine,
    HandledError,
    excerpt,
    print_json,
    read_batch,
    say_failed,
)
from app.core.answer.answering import (
    Answer,
    AnswerError,
    Source,
    answer_question,
)
from app.core.answer.conversation import UnknownThread, open_store, plan_turn, record_turn
from app.core.answer.models import resolve_model
from app.core.engine import Engine
from app.core.search.retrieval import SearchResult
from app.core.types import Support

_LEVEL_WORDS = {
    "supported": "Supported",
    "partly_supported": "Partly supported",
    "unsupported": "UNSUPPORTED",
    "no_answer": "No answer",
}


def _verdict_line(answer: Answer, s: Support) -> str:
    """The headline: the verdict on the finished answer, then the retrieval evidence."""
    v = answer.verdict or answer.judge(s)
    evidence = f"retrieval {'strong' if s.supported else 'weak'}, {s.score:.2f}"
    return f"{_LEVEL_WORDS.get(v.level, v.level)} ({evidence}): {v.reason}"


def _write_token(piece: str) -> None:
    sys.stdout.write(piece)
    sys.stdout.flush()


def _where(path: str, page: int | None) -> str:
    return path + (f" p.{page}" if page else "")


def run(args: argparse.Namespace, engine: Engine) -> int:
    """Search, then answer with Ollama unless the setting says to refuse unsupported questions.

    The verdict needs the finished answer, so on a terminal the answer streams first and the
    verdict follows it; otherwise (a pipe, ``--json``) the verdict is the first line.
    """
    if getattr(args, "batch", None):
        return _run_batch(args, engine)
    settings = engine.settings
    model = args.model or settings.ollama_model
    store = open_store(engine.data, settings)
    thread_id = getattr(args, "thread", None)
    if thread_id and store is None:
        raise HandledError(
            "history is turned off in Settings, so there is no thread to continue; ask "
            "without --thread, or turn history on"
        )
    try:
        plan = plan_turn(store, thread_id, args.question, settings=settings, model=model)
    except UnknownThread as exc:
        raise HandledError(
            f"there is no thread {exc.thread_id!r}; `footnotes threads list` shows the threads"
        ) from None
    if plan.warning:
        print(f"footnotes: {plan.warning}", file=sys.stderr, flush=True)
    stream = not args.json and sys.stdout.isatty()
    if not args.json and plan.turn > 1:
        print(f"Searched for: {plan.search_query}")
    if stream:
        print("Answering… (the verdict follows, once the answer is checked against your files)")
    on_token: Callable[[str], None] | None = _write_token if stream else None
    result, answer, refuse, empty_scope = _ask(
        args, engine, args.question, model, on_token, plan.search_query, plan.prompt_history
    )
    saved = record_turn(store, plan, args.question, answer)
    if store is not None:
        store.close()
    if saved.warning and saved.warning != plan.warning:
        print(f"footnotes: {saved.warning}", file=sys.stderr, flush=True)
    _say_model_note(answer)
    turn = {
        "thread": saved.thread_id,
        "turn": saved.turn,
        "search_query": plan.search_query,
        "search_method": plan.rewrite.method,
        "search_note": plan.rewrite.note or None,
    }
    if args.json:
        print_json({**result.to_json(), **answer.to_json(), "answered": _answered(answer), **turn})
    else:
        if stream:
            print("\n")
        print(_verdict_line(answer, result.support), flush=True)
        if result.scope is not None:  # after the verdict, which is the first line
            print(f"Scope: {result.scope.summary()}")
        _print_answer(result, answer, refused=refuse and not empty_scope, streamed=stream)
        if saved.thread_id:
            print(
                f"\nThread {saved.thread_id}, turn {saved.turn}: follow up with "
                f"footnotes ask --thread {saved.thread_id} QUESTION"
            )
    if answer.error:
        raise HandledError(answer.error)
    return 0


def _ask(
    args: argparse.Namespace,
    engine: Engine,
    question: str,
    model: str,
    on_token: Callable[[str], None] | None = None,
    search_query: str | None = None,
    history: Sequence[tuple[str, str]] = (),
) -> tuple[SearchResult, Answer, bool, bool]:
    """Search (``search_query``, else the question) and answer one question, in the context of
    the thread's earlier turns: (result, answer with its verdict, refused, empty scope)."""
    settings = engine.settings
    scope = getattr(args, "scope", None)
    result = engine.search(search_query or question, args.k, scope=scope)
    empty_scope = scope is not None and not result.hits  # the model is not asked from nothing
    refuse = empty_scope or (settings.unsupported_mode == "refuse" and not result.support.supported)
    if refuse:
        answer = Answer("", model, [Source(h.rank, h) for h in result.hits])
        answer.judge(result.support, answered=False)
    else:
        answer = answer_question(
            question,
            result.hits,
            host=settings.ollama_host,
            model=model,
            timeout_s=settings.request_timeout_s,
            on_token=on_token,
            support=result.support,
            history=history,
        )
    return result, answer, refuse, empty_scope


def _answered(answer: Answer) -> bool:
    """Whether the model's answer came back (all of it, or its start before an error)."""
    return bool(answer.text)


def _say_model_note(answer: Answer) -> None:
    """Say (on stderr, so ``--json`` stays one object) that another model answered."""
    if answer.model_note and answer.error is None:
        print(f"footnotes: {answer.model_note}", file=sys.stderr, flush=True)


def _run_batch(args: argparse.Namespace, engine: Engine) -> int:
    """One ask object per ``{"_id", "text"}`` line, in order; a failed line says why and the
    batch goes on. The model is chosen once, so a fallback is decided (and loaded) once."""
    requested = model = args.model or engine.settings.ollama_model
    with contextlib.suppress(AnswerError):  # a server that is down fails each line instead
        choice = resolve_model(engine.settings.ollama_host, model)
        if choice.model is not None and choice.fallback:
            print(f"footnotes: {choice.note}", file=sys.stderr, flush=True)
            model = choice.model
    failed = total = 0
    for line in read_batch(args.batch):
        total += 1
        out = _batch_line(args, engine, model, line)
        if "model" in out:
            out["model_requested"] = requested
        failed += out.get("error") is not None
        print_json(out)
    say_failed(failed, total, "questions")
    return 0


def _batch_line(
    args: argparse.Namespace, engine: Engine, model: str, line: BatchLine
) -> dict[str, Any]:
    if line.error is not None:
        return {"_id": line.ident, "line": line.n, "error": line.error}
    try:
        result, answer, _, _ = _ask(args, engine, line.text, model)
    except Exception as exc:  # one question's failure (a store error...) must not end the batch
        return {"_id": line.ident, "line": line.n, "query": line.text, "error": str(exc)}
    return {
        "_id": line.ident,
        **result.to_json(),
        **answer.to_json(),
        "answered": _answered(answer),
        "thread": None,  # batch questions stand alone and are not kept
        "turn": 1,
        "search_query": line.text,
    }


def _print_answer(result: SearchResult, answer: Answer, *, refused: bool, streamed: bool) -> None:
    if refused:
        print(
            "Not asking the model: the setting says not to answer when your files do not "
            "support the question."
        )
    elif streamed:
        print()
    elif answer.text:
        print(answer.text)
    if answer.partial:
        print("[The answer stopped here and is incomplete; the reason follows on stderr.]")
    flagged = [m for m in answer.sentences if m.kind == "claim" and not m.supported]
    if flagged:
        print("\nSentences without support in the cited passages:")
        for m in flagged:
            print(f"  - {m.text.strip()}" + (f" ({m.reason})" if m.reason else ""))
    miscited = [m for m in answer.sentences if m.kind == "claim" and m.miscited]
    if miscited:
        print("\nSentences citing another passage than the one that backs them:")
        for m in miscited:
            backed = ", ".join(map(str, m.backed_by))
            print(f"  - {m.text.strip()} (backed by [{backed}])")
    sources = answer.sources or [Source(h.rank, h) for h in result.hits]
    if sources:
        print("\nSources:")
    for s in sources:
        snippet = excerpt(s.hit.text, result.query)
        print(f"  [{s.n}] {_where(s.hit.path, s.hit.page)}\n      {snippet}")
