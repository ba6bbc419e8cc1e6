"""A grounding model judges the answer's sentences, where the person has one in Ollama.

Models trained to check a claim against a document (``bespoke-minicheck``, at the top of the
LLM-AggreFact leaderboard, 4.7 GB) read what a sentence asserts better than any rule. When the
setting ``grounding_model`` names one, each claim sentence is sent to it with the passage it
rests on (its backing spans' passages, else the sources it cites, else every source) as
``Document: …\\nClaim: …``; it answers Yes or No, and that answer decides the sentence's mark
instead of the built-in checks. The built-in checks still decide what is no claim (meta
sentences, declines), code lines, citations of sources that do not exist and planted
instructions. The verdict names the model that checked the sentences.

When the model cannot be asked (not installed, Ollama down, a timeout), the built-in marks
stand and the verdict says why; a failure never blocks the answer.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.errors import AnswerError
from app.core.ollama.client import stream_chat
from app.core.verdict.sentence import SentenceMark
from app.core.verdict.spans import Passage

DOCUMENT_CHARS = 6000  # of passage text sent with each claim (the model reads about 1,500 words)


@dataclass(frozen=True)
class Grounding:
    """Which model checked the sentences, or why it could not."""

    model: str
    checked: int = 0  # sentences it judged
    changed: int = 0  # of those, marks it turned (backed to unsupported or the reverse)
    problem: str | None = None  # the sentence saying why it could not be asked

    def words(self) -> str:
        """The verdict's note about it."""
        if self.problem:
            return (
                f"The grounding model {self.model} could not be asked ({self.problem}); the "
                "built-in checks judged the sentences."
            )
        return f"Sentences checked by {self.model}."


def ground(
    marks: Sequence[SentenceMark],
    sources: Sequence[Passage],
    *,
    host: str | None,
    model: str,
    timeout_s: float = 60.0,
    cancel: threading.Event | None = None,
) -> Grounding:
    """Let ``model`` decide the mark of every claim sentence of ``marks`` (in place)."""
    by_n = {s.n: s for s in sources}
    checked = changed = 0
    for mark in marks:
        if mark.kind != "claim" or mark.planted or mark.bad_citations or "code" in mark.checks:
            continue
        numbers = mark.backed_by or [n for n in mark.sources if n in by_n] or list(by_n)
        document = "\n\n".join(by_n[n].text for n in numbers if n in by_n)[:DOCUMENT_CHARS]
        try:
            yes = _asks_yes(
                document, mark.text, host=host, model=model, timeout_s=timeout_s, cancel=cancel
            )
        except AnswerError as exc:
            return Grounding(model, checked, changed, exc.message)
        checked += 1
        where = ", ".join(f"[{n}]" for n in numbers)
        if yes and not mark.supported:
            mark.supported, mark.checks = True, ["grounding"]
            mark.support_spans = [(n, 0, len(by_n[n].text)) for n in numbers if n in by_n][:1]
            mark.reason = f"{model} finds that {where} supports this"
            changed += 1
        elif not yes and mark.supported:
            mark.supported, mark.checks, mark.support_spans = False, ["grounding"], []
            mark.reason = f"{model} finds no support for this in {where}"
            changed += 1
        elif not yes:
            mark.checks = [*mark.checks, "grounding"]
    return Grounding(model, checked, changed)


def _asks_yes(
    document: str,
    claim: str,
    *,
    host: str | None,
    model: str,
    timeout_s: float,
    cancel: threading.Event | None,
) -> bool:
    """The model's Yes (True) or No (False) to ``claim`` against ``document``."""
    prompt = f"Document: {document}\nClaim: {claim}"
    reply = "".join(
        stream_chat(
            [{"role": "user", "content": prompt}],
            host=host,
            model=model,
            options={"temperature": 0, "num_predict": 4},
            timeout_s=timeout_s,
            connect_timeout_s=min(timeout_s, 5.0),
            cancel=cancel,
        )
    )
    return reply.strip().lower().lstrip("*\"' ").startswith("yes")
