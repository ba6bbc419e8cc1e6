"""Prose reflow for the Text tab: hard line breaks inside a paragraph joined, offsets mapped.

A file wrapped at 72 columns reads ragged in a pane of another width, so the Text tab joins
the lines of a paragraph with a space. Lines that mean something keep their breaks: fenced or
indented code, tables, list items, headings, quotes, rules, and a line much shorter than its
paragraph's others (an address, "Key: value" fields). A list item's wrapped lines, indented
under its text, are joined into it. Debian's copyright files (and other control files) wrap
their licence texts too: a field ("License: MIT", "Copyright: 2001, …") starts its own line,
so does an entry that opens with a year, and a line of a lone "." is a paragraph break.
``Reflowed.at`` maps an offset in the original text to the reflowed one, so a passage's
highlight covers the same words. Qt-free.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LIST_ITEM = re.compile(r"([-*+•]|\d{1,3}[.)]|[a-zA-Z][.)])\s")
RULE = re.compile(r"[-=+_*~ ]{3,}")
FENCE = ("```", "~~~")
FIELD = re.compile(r"[A-Z][A-Za-z0-9-]{1,30}:(\s|$)")  # "License: MIT" in a control file
YEAR_ENTRY = re.compile(r"\s*(\d{4}(\s*[-–]\s*\d{4})?,?\s|\d{4}$)")  # " 2005, Luk Claes"
MIN_JOINED = 40  # a line shorter than this ends where its author ended it


@dataclass(frozen=True)
class Reflowed:
    """The reflowed text and, for each offset of the original (and its end), the new one."""

    text: str
    offsets: list[int]

    def at(self, old: int) -> int:
        """Where offset ``old`` of the original text lies in the reflowed text."""
        return self.offsets[max(0, min(old, len(self.offsets) - 1))]


def _is_prose(line: str, control: bool = False) -> bool:
    """A line that may be joined to its neighbours: not code, a table, a list or a heading.
    In a control file (``control``) indentation is the field's margin, never code."""
    stripped = line.strip()
    if not stripped:
        return False
    if not control and (line.startswith("\t") or len(line) - len(line.lstrip()) >= 4):
        return False
    if stripped[0] in "#>|" or stripped.startswith(FENCE) or stripped.count("|") >= 2:
        return False
    return not (LIST_ITEM.match(stripped) or RULE.fullmatch(stripped))


def _dot(line: str) -> bool:
    """A control file's empty line inside a field (" ."): a paragraph break."""
    return line.startswith((" ", "\t")) and line.strip() == "."


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _item_text_column(line: str) -> int | None:
    """Where a list item's text starts ("1. Redistributions" -> 3), None for other lines."""
    m = LIST_ITEM.match(line.strip())
    return _indent(line) + m.end() if m else None


def _joins(lines: list[str]) -> set[int]:
    """The line numbers whose break with the next line is joined into a space."""
    joins: set[int] = set()
    fenced = [False] * len(lines)
    inside = False
    for i, line in enumerate(lines):
        if line.strip().startswith(FENCE):
            inside = not inside
            fenced[i] = True
        else:
            fenced[i] = inside
    control = any(_dot(line) for line in lines)  # a Debian copyright or control file
    start = 0
    while start < len(lines):
        end = start
        while end < len(lines) and lines[end].strip() and not _dot(lines[end]):
            end += 1
        block = range(start, end)
        width = max((len(lines[i].rstrip()) for i in block), default=0)
        item: int | None = None  # the text column of the list item being continued
        for i in range(start, end - 1):
            a, b = lines[i], lines[i + 1]
            column = _item_text_column(a)
            item = column if column is not None else (item if i - 1 in joins else None)
            if fenced[i] or fenced[i + 1] or FIELD.match(b) or YEAR_ENTRY.match(b):
                continue
            if item is not None and _indent(b) >= min(item, 2) and _item_text_column(b) is None:
                if len(a.rstrip()) >= max(MIN_JOINED, 0.6 * width) and not a.endswith("  "):
                    joins.add(i)  # a list item's wrapped line, indented under its text
                continue
            if not (_is_prose(a, control) and _is_prose(b, control)):
                continue
            if RULE.fullmatch(lines[i + 2].strip() if i + 2 < end else "x"):
                continue  # b is a heading underlined by the next line
            if a.endswith("  ") or len(a.rstrip()) < max(MIN_JOINED, 0.6 * width):
                continue  # a Markdown hard break, or a short line ended on purpose
            joins.add(i)
        start = end + 1
    return joins


def reflow(text: str) -> Reflowed:
    """``text`` with each paragraph's hard line breaks joined (one space, no indentation)."""
    lines = text.split("\n")
    joins = _joins(lines)
    out: list[str] = []
    offsets = [0] * (len(text) + 1)
    old = new = 0
    for i, line in enumerate(lines):
        lead = len(line) - len(line.lstrip()) if i - 1 in joins else 0
        keep = len(line.rstrip()) if i in joins else len(line)
        if _dot(line):
            keep = 0  # shown as the blank line it stands for
        for k in range(len(line)):
            offsets[old + k] = new + min(max(k - lead, 0), keep - lead)
        out.append(line[lead:keep])
        new += keep - lead
        old += len(line)
        if i < len(lines) - 1:
            offsets[old] = new
            out.append(" " if i in joins else "\n")
            new += 1
            old += 1
    offsets[old] = new
    return Reflowed("".join(out), offsets)
