"""``footnotes ask QUESTION``: search, answer with Ollama, print verdict, marks and sources."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from app.cli.common import HandledError, print_json
from app.core.answer.answering import (
    Answer,
    Source,
    answer_question,
)
from app.core.engine import Engine
from app.core.search.retrieval import SearchResult
from app.core.types import Support


def _verdict_line(s: Support) -> str:
    return ("Supported" if s.supported else "UNSUPPORTED") + f" ({s.score:.2f}): {s.reason}"


def _write_token(piece: str) -> None:
    sys.stdout.write(piece)
    sys.stdout.flush()


def _where(path: str, page: int | None) -> str:
    return path + (f" p.{page}" if page else "")


def run(args: argparse.Namespace, engine: Engine) -> int:
    """Search, then answer with Ollama unless the setting says to refuse unsupported questions."""
    settings = engine.settings
    result = engine.search(args.question, args.k)
    model = args.model or settings.ollama_model
    refuse = settings.unsupported_mode == "refuse" and not result.support.supported
    stream = not args.json and sys.stdout.isatty()
    if not args.json:
        print(_verdict_line(result.support), flush=True)
    if refuse:
        answer = Answer("", model, [Source(h.rank, h) for h in result.hits])
    else:
        on_token: Callable[[str], None] | None = _write_token if stream else None
        answer = answer_question(
            args.question,
            result.hits,
            host=settings.ollama_host,
            model=model,
            timeout_s=settings.request_timeout_s,
            on_token=on_token,
        )
    if args.json:
        print_json({**result.to_json(), **answer.to_json(), "answered": not refuse})
    else:
        _print_answer(result, answer, refused=refuse, streamed=stream)
    if answer.error:
        raise HandledError(answer.error)
    return 0


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
    sources = answer.sources or [Source(h.rank, h) for h in result.hits]
    if sources:
        print("\nSources:")
    for s in sources:
        snippet = " ".join(s.hit.text.split())[:160]
        print(f"  [{s.n}] {_where(s.hit.path, s.hit.page)}\n      {snippet}")
