"""Code in an answer, read exactly: a line of code, a sentence's inline code, and what an
interactive session shows an expression giving.

Prose may say a thing in other words; code may not. A line of code is backed only by a source
holding it character for character, whitespace aside (``copies.find_code``, ``code_source``):
code with one key or operator changed is other code. A prose sentence's inline code
(`` `project.clj` ``) is read token by token (``inline_code_finding``): each piece must be in a
source as written, placeholders ("<your database URL>") and ellipses aside. And a note's
interactive session ("> 3 === Integer", then "=> false") shows what an expression gives
(``shown_results``): a sentence saying it gives another result is not backed (``repl``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import pairwise

from app.core.verdict.checks import Finding, on
from app.core.verdict.copies import find_code
from app.core.verdict.lang import en

# `select (array[4,5,6])[2:4]`: brackets inside inline code are code, not citations.
INLINE_CODE = re.compile(r"`[^`\n]+`")
# A placeholder or an ellipsis stands for what the source has.
_ELIDED = re.compile(r"<[^<>`]+>|…|\.\.\.")
# What a sentence says an expression gives: "`3 === Integer` returns `false`".
_GIVES = re.compile(
    r"`([^`\n]+)`\s*(?:" + "|".join(en.RESULT_VERBS) + r"|→|=>)\s*`([^`\n]+)`", re.IGNORECASE
)
# An interactive session's prompt ("> ", ">>> ", "irb(main):001:0> ", "iex> ") and its
# result line ("=> true"): what a note shows an expression to give.
_PROMPT = re.compile(r"^\s*(?:>>>|>|[\w()]*(?::\d+)*>)\s+(.*\S)\s*$")
_RESULT = re.compile(r"^\s*(?:=>|#=>)\s*(.*\S)\s*$")


def code_source(
    line: str, order: Sequence[int], texts: Mapping[int, str]
) -> tuple[int, int, int] | None:
    """(source number, start, end) of the first source in ``order`` holding the code ``line``
    character for character (whitespace aside), or None."""
    for n in order:
        found = find_code(line, texts[n])
        if found is not None:
            return n, *found
    return None


def inline_code_finding(sentence: str, texts: Sequence[str]) -> Finding | None:
    """Why a sentence's inline code is not backed by the source ``texts``: it says an
    expression gives what a source's session shows it does not give (``repl``), or a piece of
    it is in no source as written (``inline_code``: "add it to the `:dependencies` vector of
    `project.clj`" where the note says the `:plugins` vector of `~/.lein/profiles.clj`)."""
    pieces = INLINE_CODE.findall(sentence)
    if not pieces:
        return None
    wrong = _misshown(sentence, texts) if on("repl") else None
    if wrong is not None:
        return Finding("repl", wrong)
    if not on("inline_code"):
        return None
    held = " ".join(texts)
    for piece in pieces:
        # a command may be put together from the flags and paths a note gives one by one
        for token in _ELIDED.sub(" ", piece.strip("`")).split():
            if not _holds(held, token):
                return Finding("inline_code", f"no source holds `{token}` as written")
    return None


def _holds(text: str, token: str) -> bool:
    """Whether ``text`` holds ``token``, a word or option whole: `fsync` is not in
    `fsync-tool`, nor `--job` in `--jobs`; an operator, quote or mark (`+=`, `"`, `-]`)
    anywhere."""
    before = r"(?<![\w-])" if re.match(r"-*\w", token) else ""  # a word, or an option
    after = r"(?![\w-])" if re.search(r"\w$", token) else ""
    return re.search(before + re.escape(token) + after, text) is not None


def shown_results(passage: str) -> dict[str, set[str]]:
    """What the passage's interactive sessions show each expression giving: its lines after a
    prompt, each with the result line that follows it (whitespace removed from both): "> 3
    === Integer" then "=> false" gives {"3===Integer": {"false"}}."""
    out: dict[str, set[str]] = {}
    lines = passage.splitlines()
    for line, nxt in pairwise(lines):
        prompt, result = _PROMPT.match(line), _RESULT.match(nxt)
        if prompt and result:
            key = "".join(prompt.group(1).split())
            out.setdefault(key, set()).add("".join(result.group(1).split()))
    return out


def _misshown(sentence: str, texts: Sequence[str]) -> str | None:
    """The reason a sentence's "`expression` returns `result`" is not what a source's
    interactive session shows that expression giving, or None: an expression no session shows
    is left to the other checks."""
    shown: dict[str, set[str]] = {}
    for text in texts:
        for expr, results in shown_results(text).items():
            shown.setdefault(expr, set()).update(results)
    for m in _GIVES.finditer(sentence):
        expr, result = ("".join(g.split()) for g in m.groups())
        if expr in shown and result not in shown[expr]:
            gives = ", ".join(f"`{r}`" for r in sorted(shown[expr]))
            return f"the source shows `{m.group(1)}` giving {gives}, not `{m.group(2)}`"
    return None
