"""A first question to suggest once a folder is indexed, drawn from its passages' headings.

A new person facing an empty question box does not know what the index can answer. A heading
of an indexed passage names something the files talk about ("Tomatoes", "Quarterly outlook"),
so asking about it finds that passage. Without headings, a document's title, else a file's
name, stands in. Reads the manifest only (a read-only connection is enough); no model.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.ingest.context import SEPARATOR

if TYPE_CHECKING:
    from app.core.index.manifest import Manifest

SCANNED = 2000  # passages looked at: enough to find a heading, quick on a large index
MIN_PASSAGE_CHARS = 80  # a heading over a passage this short has little to answer with
GENERIC = frozenset(
    [
        "abstract",
        "acknowledgements",
        "acknowledgments",
        "appendix",
        "author",
        "authors",
        "bibliography",
        "changelog",
        "changes",
        "contents",
        "copyright",
        "contributing",
        "credits",
        "foreword",
        "glossary",
        "history",
        "index",
        "installation",
        "introduction",
        "license",
        "licence",
        "news",
        "notes",
        "overview",
        "preface",
        "readme",
        "references",
        "summary",
        "table",
        "of",
        "contents",
        "todo",
        "usage",
    ]
)
_WORDY = re.compile(r"[^\W\d_][\w'’-]*")


@dataclass(frozen=True)
class Suggestion:
    """A question to offer, and the file its words come from (to say where it was found)."""

    question: str
    path: str


def _leaf(heading: str) -> str:
    """The last part of a heading path ("Garden > Tomatoes" -> "Tomatoes"), tidied."""
    for sep in (SEPARATOR, " > "):
        heading = heading.rsplit(sep, 1)[-1]
    return " ".join(heading.strip(" #*:.-–—").split())


def _usable(name: str) -> bool:
    """A name a question can be about: a few words, mostly letters, not a generic section."""
    words = name.split()
    if not 1 <= len(words) <= 8 or len(name) > 70:
        return False
    if sum(bool(_WORDY.fullmatch(w.strip("(),;"))) for w in words) < max(1, len(words) * 0.6):
        return False
    return name.lower() not in GENERIC and not all(w.lower() in GENERIC for w in words)


def _about(name: str) -> str:
    """The name as the end of a sentence: one capitalised word is a common noun there."""
    if " " not in name and name[:1].isupper() and name[1:].islower():
        return name.lower()
    return name


def question_about(name: str) -> str:
    """The question to ask about a heading or title (a heading that is a question, as is)."""
    if name.endswith("?"):
        return name
    return f"What do my files say about {_about(name)}?"


def first_question(manifest: Manifest) -> Suggestion | None:
    """A question the indexed files can answer, from a passage's heading or a document's
    title (the first usable one in indexing order), else a file's name; None when empty."""
    rows = manifest.conn.execute(
        "SELECT c.heading, c.context, f.path, length(c.text) FROM chunks c "
        "JOIN files f ON f.id = c.file_id WHERE f.status = 'indexed' "
        "ORDER BY f.id, c.page, c.start LIMIT ?",
        (SCANNED,),
    ).fetchall()
    titles: list[tuple[str, str]] = []
    for heading, context, path, size in rows:
        if size < MIN_PASSAGE_CHARS:
            continue
        if heading and _usable(leaf := _leaf(heading)):
            return Suggestion(question_about(leaf), path)
        title = _leaf(str(context).split(SEPARATOR, 1)[0]) if context else ""
        if title and _usable(title):
            titles.append((title, path))
    if titles:
        title, path = titles[0]
        return Suggestion(question_about(title), path)
    if rows:
        path = str(rows[0][2])
        return Suggestion(f"What is in {os.path.basename(path)}?", path)
    return None
