"""A thread (or one answer) as Markdown with real footnotes, for a person to pass on.

Each ``[n]`` citation becomes a footnote reference ``[^k]`` (numbered across the thread), and
each cited source one definition with its file (a ``file://`` link), page and the quoted words
(the spans that back the sentence citing it, joined by " … " where it rests on two parts: a
source two sentences cite for different parts has a definition for each)::

    [^1]: [/home/me/notes/git/undo.md](file:///home/me/notes/git/undo.md) — “git reset --soft…”
    [^2]: [/home/me/R-intro.pdf](file:///home/me/R-intro.pdf), p. 16 — “…”

A claim sentence the checks found unsupported keeps a visible mark. A source whose file
changed or vanished since the answer says so; its quote is the text as it was. Every other
source the model read is listed under its answer with its number and quote, so an answer that
cites none still shows what it was given (and what a verdict's "closest: [2]" points at)::

    *Also read by the model, not cited:*

    - \\[2\\] [/home/me/notes/git/reflog.md](file:///home/me/notes/git/reflog.md) — “…”

Every text that came from a file or a model (the title, question, answer, quotes, reasons) has
``&``, ``<`` and ``>`` written as entities, so a passage holding ``<script>`` or
``<img onerror=…>`` reads as those characters in any viewer and never runs as HTML.
"""

from __future__ import annotations

import os
import re
import time
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

from app.core.text import CITATION, citations, display_path
from app.core.threads.store import StoredSource, Turn

_CITED = re.compile(r"[ \t]*" + CITATION.pattern, CITATION.flags)  # with the space before it
UNSUPPORTED_MARK = " ⚠ *(not supported by the cited passages)*"
_QUOTE_CHARS = 200


def no_html(text: str) -> str:
    """``text`` with ``&``, ``<`` and ``>`` as entities: shown as written, never live HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def source_state(source: StoredSource, answered_at: float) -> str | None:
    """ "removed since this answer", "changed since this answer", or None when unchanged."""
    try:
        mtime = os.stat(source.path).st_mtime
    except OSError:
        return "removed since this answer"
    return "changed since this answer" if mtime > answered_at + 1 else None


def quote(source: StoredSource, spans: Sequence[tuple[int, int]] = ()) -> str:
    """The words quoted for a source: the spans that support the answer, in the source's
    order and joined by " … " (a sentence backed by two of its parts), else its start."""
    parts = [source.text[a:b] for a, b in _within(spans, source.text)] or [source.text]
    words = " … ".join(" ".join(part.split()) for part in parts)
    if len(words) > _QUOTE_CHARS:
        cut = words[:_QUOTE_CHARS]
        words = (cut[: cut.rindex(" ")] if " " in cut else cut).rstrip() + "…"
    return words


def file_link(path: str) -> str:
    """A Markdown link to the file: its legible path, and a percent-encoded ``file://`` URL."""
    url = "file://" + urllib.parse.quote(os.fsencode(Path(path).absolute()), safe="/")
    label = display_path(path)
    for ch in "\\[]*_`<>":
        label = label.replace(ch, "\\" + ch)
    return f"[{label}]({url})"


Span = tuple[int, int]


def _within(spans: Sequence[Span], text: str) -> list[Span]:
    """The spans that lie within ``text``, each once, in its order (a stored span of a file
    changed since may not)."""
    return sorted({(a, b) for a, b in spans if 0 <= a < b <= len(text)})


def _spans_of(mark: dict, n: int) -> list[Span]:
    """The spans of source ``n`` that back a sentence mark."""
    return [(int(sp["start"]), int(sp["end"])) for sp in mark.get("spans", []) if sp.get("n") == n]


class _Notes:
    """Footnote numbers across a thread: one per source cited and the words it is quoted
    for, so two sentences backed by different parts of one source each get their own quote."""

    def __init__(self) -> None:
        self.numbers: dict[tuple[int, int, tuple[Span, ...]], int] = {}
        self.lines: list[str] = []

    def ref(self, turn: Turn, n: int, spans: Sequence[Span] = ()) -> str | None:
        """The reference to source ``n`` of ``turn`` quoted at ``spans`` (the citing
        sentence's spans of it; none: the first span any sentence has of it, else its start)."""
        source = next((s for s in turn.sources if s.n == n), None)
        if source is None:
            return None
        quoted = _within(spans, source.text)
        if not quoted:
            every = [sp for m in turn.sentences for sp in _spans_of(m, n)]  # sentence order
            valid = set(_within(every, source.text))
            quoted = [sp for sp in every if sp in valid][:1]
        key = (turn.n, n, tuple(quoted))
        if key not in self.numbers:
            self.numbers[key] = k = len(self.numbers) + 1
            self.lines.append(f"[^{k}]: {_described(turn, source, quoted)}")
        return f"[^{self.numbers[key]}]"

    def cited(self, turn: Turn) -> bool:
        """Whether any footnote points at a source of ``turn``."""
        return any(key[0] == turn.n for key in self.numbers)

    def unused(self, turn: Turn) -> list[StoredSource]:
        """The sources of ``turn`` that no footnote points at: read, but not cited."""
        cited = {key[1] for key in self.numbers if key[0] == turn.n}
        return [s for s in turn.sources if s.n not in cited]


def _described(turn: Turn, source: StoredSource, spans: Sequence[tuple[int, int]]) -> str:
    """A source's link, page and quote, and whether its file changed since."""
    where = file_link(source.path)
    if source.page is not None:
        where += f", p. {source.page}"
    state = source_state(source, turn.created)
    note = f" *({state})*" if state else ""
    return f"{where} — “{no_html(quote(source, spans))}”{note}"


def _read_list(turn: Turn, sources: Sequence[StoredSource], cited_any: bool) -> str:
    """The sources the model read that the answer does not cite, each with its quote (from
    the part it read, when it read only part)."""
    head = (
        "*Also read by the model, not cited:*"
        if cited_any
        else "*Read by the model (the answer cites none of them):*"
    )
    lines = [head, ""]
    for s in sources:
        read = [(a, b) for a, b in s.sent] if s.sent else []
        part = " *(read in part)*" if s.sent is not None else ""
        lines.append(f"- \\[{s.n}\\] {_described(turn, s, read)}{part}")
    return "\n".join(lines)


def _repoint(segment: str, right: str) -> str:
    """``segment`` with each citation replaced by ``right`` (the space before it kept)."""

    def swap(match: re.Match[str]) -> str:
        found = match.group(0)
        return found[: len(found) - len(found.lstrip())] + right

    return _CITED.sub(swap, segment)


def _answer_markdown(turn: Turn, notes: _Notes) -> str:
    """The answer with its citations as footnotes (each quoting what backs the sentence
    citing it), a wrong citation pointed at the source that backs its sentence, and the
    unsupported sentences marked."""
    text = turn.answer
    marks = [m for m in turn.sentences if m.get("kind", "claim") == "claim"]
    out: list[str] = []
    at = 0
    for m in sorted(marks, key=lambda m: int(m.get("start", 0))):
        start, end = int(m.get("start", 0)), int(m.get("end", 0))
        if not at <= start < end <= len(text):
            continue
        out.append(_footnoted(text[at:start], turn, notes))
        segment = text[start:end]
        backed = sorted({int(sp["n"]) for sp in m.get("spans", [])})
        if m.get("supported", True) and backed and not set(backed) & set(m.get("sources", [])):
            # cited the wrong passage: the footnote points at the one that backs the sentence
            segment = _repoint(segment, "".join(f"[{n}]" for n in backed))
        segment = _footnoted(segment, turn, notes, m)
        if not m.get("supported", True):
            kept = len(segment.rstrip())
            segment = segment[:kept] + UNSUPPORTED_MARK + segment[kept:]
        out.append(segment)
        at = end
    out.append(_footnoted(text[at:], turn, notes))
    return no_html("".join(out).strip())  # refs and marks hold none of &<>


def _footnoted(segment: str, turn: Turn, notes: _Notes, mark: dict | None = None) -> str:
    """``segment`` with each citation a footnote reference, quoting the spans ``mark`` (the
    sentence the segment is) has of that source."""

    def footnotes(match: re.Match[str]) -> str:
        found = match.group(0)
        refs = [notes.ref(turn, n, _spans_of(mark, n) if mark else ()) for n in citations(found)]
        return "".join(r for r in refs if r) or found

    return _CITED.sub(footnotes, segment)


def turn_markdown(turn: Turn, notes: _Notes, heading: str = "##") -> str:
    parts = [f"{heading} {no_html(' '.join(turn.question.split()))}"]
    if turn.search_query.strip() != turn.question.strip():
        parts.append(f"*Searched for: {no_html(turn.search_query)}*")
    parts.append(_answer_markdown(turn, notes) or "*(no answer)*")
    if unused := notes.unused(turn):
        parts.append(_read_list(turn, unused, notes.cited(turn)))
    verdict = turn.verdict or {}
    if verdict.get("level"):
        level = str(verdict["level"]).replace("_", " ")
        parts.append(f"*Verdict: {no_html(level)} — {no_html(str(verdict.get('reason', '')))}*")
    if turn.error:
        parts.append(f"*Error: {no_html(turn.error)}*")
    return "\n\n".join(parts)


def thread_markdown(title: str, turns: Sequence[Turn], *, thread_id: str = "") -> str:
    """The whole thread (or the turns given) as one Markdown document."""
    notes = _Notes()
    day = time.strftime("%Y-%m-%d", time.localtime(max((t.created for t in turns), default=0)))
    count = f"{len(turns)} answer{'s' if len(turns) != 1 else ''}"
    ident = f"thread {thread_id}, " if thread_id else ""
    head = f"# {no_html(' '.join(title.split()))}\n\n*From Footnotes, {ident}{count}, {day}.*"
    body = [turn_markdown(t, notes) for t in turns]
    out = "\n\n".join([head, *body])
    if notes.lines:
        out += "\n\n---\n\n" + "\n".join(notes.lines)
    return out + "\n"
