"""Answer text (model output, untrusted) → safe rich text: Markdown with [n] citation links.

Raw HTML, links, images and reference definitions are switched off in the Markdown parser,
so everything the model writes is escaped text; the only anchors are ``cite:n`` for sources
that exist. Headings come out as bold paragraphs: an answer that quotes a note's "# Title"
line, or a model that structures its answer with "##", should not set a title larger than the
question in the answer pane. Sentence boundaries travel through rendering as private-use
characters, which the view turns into character ranges after layout.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from app.core.api import CITATION

SENT_START = "\ue000"
SENT_END = "\ue001"
CITE_SCHEME = "cite"
_NUMBER = re.compile(r"\d{1,3}")
_SENTINELS = str.maketrans("", "", SENT_START + SENT_END)


@lru_cache(maxsize=1)
def _markdown() -> Any:
    try:
        from markdown_it import MarkdownIt
    except ImportError:  # rendered as plain text, still escaped
        return None
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.disable(["link", "image", "autolink", "html_inline", "html_block", "reference"])
    md.add_render_rule("heading_open", lambda *_: "<p><b>")
    md.add_render_rule("heading_close", lambda *_: "</b></p>\n")
    return md


def with_sentence_marks(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with SENT_START/SENT_END around each (start, end) span (in order, disjoint)."""
    out: list[str] = []
    pos = 0
    for start, end in spans:
        start, end = max(start, pos), max(end, start, pos)
        out += [text[pos:start], SENT_START, text[start:end], SENT_END]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def strip_marks(text: str) -> str:
    return text.translate(_SENTINELS)


def _link_citations(rendered: str, sources: int) -> str:
    def link(m: re.Match[str]) -> str:
        numbers = [int(n) for n in _NUMBER.findall(m.group(1))]
        if len(numbers) == 1:
            n = numbers[0]
            if 1 <= n <= sources:
                return f'<a href="{CITE_SCHEME}:{n}">[{n}]</a>'
            return f'<span class="badcite">{m.group()}</span>'
        return _NUMBER.sub(
            lambda d: (
                f'<a href="{CITE_SCHEME}:{d.group()}">{d.group()}</a>'
                if 1 <= int(d.group()) <= sources
                else f'<span class="badcite">{d.group()}</span>'
            ),
            m.group(),
        )

    return CITATION.sub(link, rendered)


def render_answer(text: str, sources: int) -> str:
    """HTML for the answer; every character of ``text`` is escaped, citations become links."""
    md = _markdown()
    if md is None:
        body = "<p>" + html.escape(text).replace("\n\n", "</p><p>").replace("\n", "<br>") + "</p>"
    else:
        body = md.render(text)
    return _link_citations(body, sources)


def parse_cite(url: str) -> int | None:
    """The source number of a ``cite:n`` link, else None (any other link is refused)."""
    scheme, _, rest = url.partition(":")
    if scheme != CITE_SCHEME or not rest.isdigit():
        return None
    return int(rest)


def marked_html(text: str, marks: Sequence[Any], sources: int) -> str:
    """The final answer's HTML with sentence marks (pure Python: fine on a worker thread)."""
    return render_answer(with_sentence_marks(text, [(m.start, m.end) for m in marks]), sources)
