"""``footnotes search QUERY`` / ``--batch FILE.jsonl``: passages with the support verdict."""

from __future__ import annotations

import argparse
from typing import Any

from app.cli.common import BatchLine, print_json, read_batch, say_failed, visible
from app.core.api import Footnotes
from app.core.wording import excerpt


def run(args: argparse.Namespace, fn: Footnotes) -> int:
    scope = getattr(args, "scope", None)  # --in/--type/--since/--until, for every line
    if args.batch:
        failed = total = 0
        for line in read_batch(args.batch):
            total += 1
            out = _batch_line(args, fn, line)
            failed += "error" in out
            print_json(out)
        say_failed(failed, total, "queries")
        return 0
    result = fn.search(args.query, args.k, args.mode, scope)
    if args.json:
        print_json(result.to_json())
        return 0
    s = result.support
    if scope is not None:
        print(f"Scope: {visible(scope.summary())}")
    verdict = "Supported" if s.supported else "UNSUPPORTED"
    print(f"{verdict} ({s.score:.2f}): {visible(s.reason)}")
    for h in result.hits:
        where = visible(h.path) + (f" p.{h.page}" if h.page else "")
        snippet = visible(excerpt(h.text, args.query))
        print(f"[{h.rank}] {where}  ({h.score:.3f})\n    {snippet}")
    return 0


def _batch_line(args: argparse.Namespace, fn: Footnotes, line: BatchLine) -> dict[str, Any]:
    """One line's search, or why it has none (the batch goes on, as ``ask --batch`` does)."""
    if line.error is not None:
        return {"_id": line.ident, "line": line.n, "error": line.error}
    try:
        out = fn.search(line.text, args.k, args.mode, getattr(args, "scope", None)).to_json()
    except Exception as exc:  # one query's failure (a store error...) must not end the batch
        return {"_id": line.ident, "line": line.n, "query": line.text, "error": str(exc)}
    out["_id"] = line.ident
    return out
