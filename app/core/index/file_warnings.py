"""Files indexed with a warning: read and searchable, with a doubt a person should hear of.

The parser's warning (``ParseResult.warning``, e.g. a text encoding it had to guess) is kept
in the ``error`` column of the file's row while its status is ``indexed``: no schema change,
and every reader of failures already filters on ``status = 'failed'``.
"""

from __future__ import annotations

import sqlite3


def listed(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """Every indexed file that carries a warning, with it, sorted by path."""
    rows = conn.execute(
        "SELECT path, error FROM files WHERE status = 'indexed' AND error IS NOT NULL ORDER BY path"
    )
    return [(r[0], r[1]) for r in rows]
