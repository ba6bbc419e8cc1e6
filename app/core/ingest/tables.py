"""Tables in the text of text-like files: Markdown pipe tables and CSV/TSV files.

Each is a ``TableSpan`` for the chunker (``chunking``): one row a line, its column heads the
first line(s). PDF pages find theirs from the page's layout (``pdflayout``), HTML and Word
documents from their markup (``html``, ``loaders``).
"""

from __future__ import annotations

import re

from app.core.types import TableSpan

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_PIPE_ROW = re.compile(r"^ {0,3}\|?.*\|.*$")
_DELIMITER = re.compile(r"^ {0,3}\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


def markdown_tables(text: str) -> tuple[TableSpan, ...]:
    """GitHub-style pipe tables outside fenced code: a head row, its delimiter row
    (``|---|:--:|``) and the rows with a pipe below them."""
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]*", text) if m.start() < len(text)]
    lines = _dedupe(lines)
    out: list[TableSpan] = []
    fence: str | None = None
    i = 0
    while i < len(lines):
        s, e = lines[i]
        line = text[s:e]
        marker = _FENCE.match(line)
        if marker:
            fence = None if fence and marker.group(1)[0] == fence[0] else fence or marker.group(1)
        elif (
            fence is None
            and i + 1 < len(lines)
            and "|" in line
            and _PIPE_ROW.match(line)
            and _DELIMITER.match(text[slice(*lines[i + 1])])
        ):
            j = i + 2
            while (
                j < len(lines) and "|" in text[slice(*lines[j])] and text[slice(*lines[j])].strip()
            ):
                j += 1
            out.append(TableSpan(s, lines[j - 1][1], lines[i + 1][1]))
            i = j
            continue
        i += 1
    return tuple(out)


def delimited_table(text: str) -> tuple[TableSpan, ...]:
    """A CSV or TSV file as one table, its first non-blank line the column heads."""
    first = re.search(r"\S[^\n]*", text)
    if first is None or not text[first.end() :].strip():
        return ()  # a head and no row
    end = len(text.rstrip())
    return (TableSpan(first.start(), end, first.end()),)


def _dedupe(lines: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``re.finditer`` on ``[^\\n]*`` yields an empty match after each line: drop those."""
    out: list[tuple[int, int]] = []
    for s, e in lines:
        if out and s == out[-1][1]:
            continue
        out.append((s, e))
    return out
