"""Which Chroma server collection belongs to a data directory: a random id kept in it.

With a namespace the collection belongs to that data directory alone (garbage collection
deletes as in the embedded store); see ``store`` for the rule about shared collections.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import tempfile
from pathlib import Path

from app.core.errors import NamespaceError

NAMESPACE_FILE = "chroma-server-id"  # in the data directory; names this directory's collection


def data_dir_namespace(root: Path) -> str:
    """This data directory's server namespace: a random id created once and kept in it."""
    path = Path(root) / NAMESPACE_FILE
    for _ in range(3):
        with contextlib.suppress(FileNotFoundError):
            found = path.read_text(encoding="utf-8").strip()
            if re.fullmatch(r"[0-9a-f]{16}", found):
                return found
            path.unlink()  # damaged: a new id means a new, empty collection (repair refills it)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{NAMESPACE_FILE}.", dir=path.parent)
        try:
            os.write(fd, (secrets.token_hex(8) + "\n").encode())
            os.fsync(fd)
            os.close(fd)
            os.link(tmp, path)  # never replaces: of two first runs at once, one id wins
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    raise NamespaceError(f"Cannot keep the Chroma server namespace in {path}.")
