"""Whether a sentence gives a note's code the caption the note gives another block of code.

Notes caption their code: "To update just the access time:" above ``touch -a README.md``, "To
update just the modify time:" above ``touch -m README.md``. A fluent answer that swaps them
("`touch -a README.md` updates just the modify time, and `touch -m README.md` just the access
time") holds every word and every piece of code of the note, as written; only which caption
goes with which code is wrong.

``swapped_caption`` reads each fenced block of a passage with its caption (the paragraph just
above it) and each clause of a sentence with the inline code in it. A clause whose code is one
block's, and which holds words only another block's caption says and none only its own block's
caption says, gives that code the other's caption.
"""

from __future__ import annotations

import functools
import re

from app.core.verdict.code import INLINE_CODE
from app.core.verdict.terms import claim_terms

# A fenced block and the paragraph just above it (after a blank line or another block).
_CAPTIONED = re.compile(
    r"(?:^|\n[ \t]*\n|```[ \t]*\n)(?P<caption>[^\n`][^\n]*(?:\n[^\n`][^\n]*)*?)[ \t]*\n"
    r"(?:[ \t]*\n)*```[^\n]*\n(?P<code>.*?)\n[ \t]*```",
    re.DOTALL,
)
_PROMPT = re.compile(r"^\s*[$❯#>]\s+")  # a shell prompt before a command
# Where a sentence's clauses part: a semicolon, a comma before "and", "but", "while" or
# "whereas", or "while" and "whereas" themselves.
_CLAUSES = re.compile(r";|,\s*(?:and|while|whereas|but)\b|\s(?:while|whereas)\s", re.IGNORECASE)


def swapped_caption(sentence: str, passage: str) -> tuple[str, str] | None:
    """(the code as the sentence writes it, the code the note captions so) when a clause of
    ``sentence`` gives one block of ``passage`` the caption of another; else None."""
    if "```" not in passage or "`" not in sentence:
        return None
    blocks = _captioned(passage)
    if len(blocks) < 2:
        return None
    for clause in _CLAUSES.split(sentence):
        codes = [_bare(c.strip("`")) for c in INLINE_CODE.findall(clause)]
        if len(codes) != 1 or not codes[0]:
            continue
        mine = [b for b in blocks if codes[0] in b[0]]
        if len(mine) != 1:
            continue
        said = claim_terms(INLINE_CODE.sub(" ", clause))
        own_code, own_caption = mine[0]
        for code, caption in blocks:
            if code == own_code:
                continue
            only_own, only_other = own_caption - caption, caption - own_caption
            if said & only_other and not said & only_own:
                return codes[0], code
    return None


@functools.lru_cache(maxsize=256)
def _captioned(passage: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each fenced block's code (its lines without prompts, white space collapsed) with the
    terms of its caption; read once per passage, however many sentences cite it."""
    out = []
    for m in _CAPTIONED.finditer(passage):
        code = " ".join(_bare(_PROMPT.sub("", line)) for line in m["code"].splitlines())
        caption = frozenset(claim_terms(m["caption"]))
        if code.strip() and caption:
            out.append((code, caption))
    return tuple(out)


def _bare(code: str) -> str:
    """Code with its white space collapsed."""
    return " ".join(code.split())
