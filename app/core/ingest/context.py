"""What a passage is part of: its document's own title and its heading path.

A passage of a cash-flow table does not say whose table it is; a question names the company
and the year. So the text that is embedded is the passage preceded by one line of context,
"3M Company 10-K › Item 8 › Cash flows", while what is shown, cited and highlighted stays the
exact passage. The context comes from the document's content only (its metadata title, first
Markdown heading, HTML <title>, PDF outline and the title set at the top of each PDF page),
never from the file's name, so renaming or moving a file re-embeds nothing. The name reaches
the lexical index separately.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from app.core.text import display_path

SEPARATOR = " › "
MAX_CONTEXT_CHARS = 200  # one short line: the passage must keep most of the model's window
_USELESS_TITLE = re.compile(
    r"^(?:untitled|document\d*|microsoft word\b.*|[\d\s._/-]+|[\w.-]*\.(?:docx?|pdf|tex|txt))$",
    re.IGNORECASE,
)
_MD_TITLE = re.compile(r"^ {0,3}# +(.+?)(?: +#+)? *$", re.MULTILINE)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def clean_title(raw: str | None) -> str | None:
    """A metadata title worth showing, or None (empty, a number, a file name, 'Untitled')."""
    if not raw:
        return None
    title = " ".join(raw.split())[:MAX_CONTEXT_CHARS]
    if len(title) < 3 or _USELESS_TITLE.match(title):
        return None
    return title


def markdown_title(text: str) -> str | None:
    """The first level-one heading of a Markdown text."""
    m = _MD_TITLE.search(text[:20_000])
    return clean_title(m.group(1)) if m else None


def html_title(html: str) -> str | None:
    import html as html_lib

    m = _HTML_TITLE.search(html[:50_000])
    return clean_title(html_lib.unescape(m.group(1))) if m else None


def outline_sections(toc: Sequence[Sequence[object]], page_count: int) -> list[str | None]:
    """Per page (0-based), the heading path of the outline entries open on that page.

    ``toc`` is PyMuPDF's ``get_toc()``: ``[level, title, page]`` with 1-based pages, in
    reading order; an entry stays open until the next entry of its level or above.
    """
    sections: list[str | None] = [None] * page_count
    path: list[str] = []
    entries = []
    for item in toc:
        level, title, page = int(str(item[0])), " ".join(str(item[1]).split()), int(str(item[2]))
        del path[max(0, level - 1) :]
        path.append(title)
        entries.append((page, SEPARATOR.join(path)))
    current: str | None = None
    i = 0
    for page in range(1, page_count + 1):
        while i < len(entries) and entries[i][0] <= page:
            if entries[i][0] >= 1:
                current = entries[i][1]
            i += 1
        sections[page - 1] = current
    return sections


@dataclass(frozen=True)
class TitleLine:
    """One line of a PDF page as ``page_title`` weighs it: where it is and how it is set."""

    top: float
    left: float
    text: str
    size: float  # the largest font size of its spans, in points
    bold: bool  # every span with text is bold
    chars: int


MAX_TITLE_LINES = 3
MAX_TITLE_CHARS = 160
_TITLE_ZONE = 0.4  # a page's title is set in its top 40%
_LARGER = 1.15  # a line this much larger than the body text stands out without being bold
_RUNNING_HEADER_WORDS = 4  # "Table of Contents", "Index", "Page 12" above a title are skipped
_LETTER = re.compile(r"[^\W\d_]")


def page_title(lines: Sequence[TitleLine], page_height: float) -> str | None:
    """The title a PDF page sets above its text, as a heading path, or None.

    A statement page of a filing ("3M Company and Subsidiaries", "Consolidated Balance
    Sheet") has no outline entry of its own, and the passages below its first one would not
    say which statement they are part of. The title is the run of lines at the top of the page
    that stand out from the body text (bold, or larger; never smaller), at most three; short
    plain lines above it (a running header) are skipped, and a plain line of body text ends it.
    Lines without letters (years, page numbers) and in parentheses ("(In millions)") are
    passed over.
    """
    if not lines:
        return None
    weight: Counter[float] = Counter()
    for line in lines:
        weight[round(line.size, 1)] += line.chars
    body = weight.most_common(1)[0][0]
    title: list[TitleLine] = []
    for line in sorted(lines, key=lambda ln: (round(ln.top), ln.left)):
        text = " ".join(line.text.split())
        if line.top > page_height * _TITLE_ZONE or len(title) == MAX_TITLE_LINES:
            break
        if not _LETTER.search(text) or text.startswith("("):
            continue
        stands_out = line.size >= body - 0.05 and (line.bold or line.size >= body * _LARGER)
        if stands_out:
            title.append(replace(line, text=text))
        elif title or len(text.split()) > _RUNNING_HEADER_WORDS:
            break
    if not title:
        return None
    parts = [title[0].text]
    for prev, line in pairwise(title):
        wrapped = (
            line.size == prev.size and line.top - prev.top < 1.5 * line.size and len(prev.text) > 50
        )
        parts[-1:] = [f"{parts[-1]} {line.text}"] if wrapped else [parts[-1], line.text]
    joined = SEPARATOR.join(parts)
    return clean_title(joined) if len(joined) <= MAX_TITLE_CHARS else None  # a bold paragraph


def with_page_title(section: str | None, title: str | None) -> str | None:
    """An outline's heading path for a page, followed by the parts of the page's own title
    that it does not already hold."""
    if not section:
        return title
    known = section.casefold()
    extra = [part for part in (title or "").split(SEPARATOR) if part.casefold() not in known]
    return SEPARATOR.join([section, *extra])


def passage_context(title: str | None, heading: str | None) -> str:
    """One line: the document title, then the heading path (without repeating the title)."""
    parts = [p for p in (title, heading) if p]
    if len(parts) == 2 and parts[1].startswith(parts[0]):
        parts = parts[1:]
    line = SEPARATOR.join(parts)
    return line[:MAX_CONTEXT_CHARS]


def embedding_text(context: str, text: str) -> str:
    """What the embedding model reads for a passage: its context line, then the passage."""
    return f"{context}\n{text}" if context else text


def file_label(path: str) -> str:
    """A file's name as words for the lexical index: "3M_2018_10K.pdf" -> "3M 2018 10K"."""
    stem = os.path.splitext(os.path.basename(display_path(path)))[0]
    return " ".join(re.split(r"[\s_.\-]+", stem)).strip()
