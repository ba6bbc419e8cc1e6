"""``footnotes search QUERY`` / ``--batch FILE.jsonl``: passages with the support verdict."""

from __future__ import annotations

import argparse
from typing import Any

from app.cli.common import BatchLine, print_json, read_batch, say_failed
from app.core.engine import Engine
from app.core.text import WORD, query_terms, sentence_spans, stem

SNIPPET = 300  # characters of each passage in the text output


def run(args: argparse.Namespace, engine: Engine) -> int:
    scope = getattr(args, "scope", None)  # --in/--type/--since/--until, for every line
    if args.batch:
        failed = total = 0
        for line in read_batch(args.batch):
            total += 1
            out = _batch_line(args, engine, line)
            failed += "error" in out
            print_json(out)
        say_failed(failed, total, "queries")
        return 0
    result = engine.search(args.query, args.k, args.mode, scope)
    if args.json:
        print_json(result.to_json())
        return 0
    s = result.support
    if scope is not None:
        print(f"Scope: {scope.summary()}")
    print(("Supported" if s.supported else "UNSUPPORTED") + f" ({s.score:.2f}): {s.reason}")
    for h in result.hits:
        where = f"{h.path}" + (f" p.{h.page}" if h.page else "")
        snippet = excerpt(h.text, args.query)
        print(f"[{h.rank}] {where}  ({h.score:.3f})\n    {snippet}")
    return 0


def _batch_line(args: argparse.Namespace, engine: Engine, line: BatchLine) -> dict[str, Any]:
    """One line's search, or why it has none (the batch goes on, as ``ask --batch`` does)."""
    if line.error is not None:
        return {"_id": line.ident, "line": line.n, "error": line.error}
    try:
        out = engine.search(line.text, args.k, args.mode, getattr(args, "scope", None)).to_json()
    except Exception as exc:  # one query's failure (a store error...) must not end the batch
        return {"_id": line.ident, "line": line.n, "query": line.text, "error": str(exc)}
    out["_id"] = line.ident
    return out


def excerpt(text: str, query: str, width: int = SNIPPET) -> str:
    """About ``width`` characters of a passage on one line, from the sentence that holds most
    of the query's words (a passage's first lines are often a heading or a table's header)."""
    terms = {stem(w) for w in query_terms(query)}
    best, start = 0, 0
    for s, e in sentence_spans(text):
        found = len(terms & {stem(w) for w in WORD.findall(text[s:e])})
        if found > best:
            best, start = found, s
    whole = " ".join(text.split())
    if len(whole) <= width:
        return whole
    before = " ".join(text[:start].split())
    offset = min(len(before) + bool(before), len(whole) - width)  # near the end: what precedes
    cut = whole[offset : offset + width]
    if offset:  # from a word's start
        cut = "…" + (cut if whole[offset - 1] == " " else cut.split(" ", 1)[-1])
    if offset + width < len(whole):
        cut = cut.rsplit(" ", 1)[0] + "…"
    return cut
