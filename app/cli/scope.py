"""The scope flags of ``search`` and ``ask``: --in, --type, --since, --until -> a ``Scope``.

Bad values are usage errors (exit 2 with the usage line, from argparse), and so is an ``--in``
path that is neither on disk nor in the index (a typo); a scope that matches no file is not an
error: the search finds nothing and its support reason says so. The core is imported only
when a flag is used, so the parser stays light for the desktop app and --help.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import date

    from app.core.api import Scope


def _type(text: str) -> str:
    from app.core.api import parse_type

    try:
        return parse_type(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _date(text: str) -> date:
    from app.core.api import parse_date

    try:
        return parse_date(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_scope_flags(parser: argparse.ArgumentParser) -> None:
    """Add the scope filters to a command that searches."""
    group = parser.add_argument_group(
        "scope", "search only these files (the filters combine; each may be given again)"
    )
    group.add_argument(
        "--in",
        dest="scope_in",
        action="append",
        default=[],
        metavar="PATH",
        help="a folder or file (repeatable)",
    )
    group.add_argument(
        "--type",
        dest="scope_type",
        action="append",
        default=[],
        type=_type,
        metavar="EXT",
        help="a file type: pdf, md, txt, … (repeatable)",
    )
    group.add_argument(
        "--since", type=_date, metavar="DATE", help="modified on or after this day (YYYY-MM-DD)"
    )
    group.add_argument(
        "--until", type=_date, metavar="DATE", help="modified on or before this day (YYYY-MM-DD)"
    )


def scope_from_args(args: argparse.Namespace) -> Scope | None:
    """The scope the flags ask for, or None for everything; ValueError when it cannot be."""
    from app.core.api import Scope

    for path in getattr(args, "scope_in", None) or ():
        if not _known(path, getattr(args, "data_dir", None)):
            raise ValueError(f"--in {path}: no such file or folder, and nothing indexed from it")
    scope = Scope.of(
        paths=getattr(args, "scope_in", None) or (),
        types=getattr(args, "scope_type", None) or (),
        since=getattr(args, "since", None),
        until=getattr(args, "until", None),
    )
    return None if scope.everything else scope


def _known(path: str, data_dir: str | None) -> bool:
    """True when ``path`` is on disk, or the index holds files at or below it (an unplugged
    drive's passages stay searchable): anything else is a typo, a usage error."""
    import os

    if os.path.exists(path):
        return True
    from app.core.api import holds_files
    from app.core.config import resolve_data_dir

    return holds_files(resolve_data_dir(data_dir), path)
