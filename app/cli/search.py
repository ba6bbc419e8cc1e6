"""``footnotes search QUERY`` / ``--batch FILE.jsonl``: passages with the support verdict."""

from __future__ import annotations

import argparse
import json

from app.cli.common import HandledError, print_json
from app.core.engine import Engine


def run(args: argparse.Namespace, engine: Engine) -> int:
    scope = getattr(args, "scope", None)  # --in/--type/--since/--until, for every line
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
                out = engine.search(text, args.k, args.mode, scope).to_json()
                out["_id"] = item.get("_id")
                print_json(out)
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
        snippet = " ".join(h.text.split())[:200]
        print(f"[{h.rank}] {where}  ({h.score:.3f})\n    {snippet}")
    return 0
