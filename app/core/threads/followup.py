"""Follow-up questions: the standalone query to search for, and the earlier turns for the prompt.

"and what about 2022?" searched as typed finds nothing. For a follow-up the model is asked
(short prompt, its own time limit) to rewrite it into a standalone search query from the last
few turns; the result is kept only if it reads as a query (non-empty, short, not a refusal,
not an answer): a question or a phrase of search words, not a statement ("The US imposed a
20% tariff on steel.") and not a copy of an earlier answer, whose invented facts would then
be searched for as if the person had asked about them. Otherwise — the model slow,
unavailable, off in Settings, or talking — a deterministic merge is searched: the previous
query's key terms plus the follow-up, when the follow-up leans on what came before (a
pronoun, "and …", "what about …", or fewer than three content words); a question that reads
as one of its own ("What is the boiling point of liquid nitrogen?") is searched as typed, so
the last topic's passages cannot make it look supported.
A first turn searches the question as typed.
"""

from __future__ import annotations

import difflib
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from app.core.errors import AnswerError
from app.core.ollama.client import stream_chat
from app.core.text import CITATION, query_terms, strip_citations, words

REWRITE_TURNS = 3  # earlier turns shown to the rewrite
_ANSWER_CHARS = 400  # of each earlier answer, in the rewrite prompt
_MAX_QUERY_WORDS = 40
_MERGE_TERMS = 8

REWRITE_SYSTEM = (
    "You rewrite a follow-up question into one standalone search query for a person's own "
    "files. Use the conversation only to resolve what the follow-up refers to (names, topics, "
    "years). Reply with the query alone, on one line: no answer, no explanation, no quotes."
)

_REFUSAL = re.compile(
    r"\b(i\s+(can ?not|can't|cannot|am unable|'m unable|don't know)|sorry|as an ai|"
    r"i apologi[sz]e|unable to (help|assist|rewrite)|not enough (context|information))\b",
    re.IGNORECASE,
)
_ANSWERISH = re.compile(
    r"^(yes|no|the answer|according to|based on the|the sources?)\b", re.IGNORECASE
)
# Words that point back at the conversation, and openings that continue it.
_REFERS_BACK = re.compile(
    r"\b(it|its|they|them|their|theirs|this|that|these|those|he|him|his|she|her|hers|"
    r"there|then|same|such|former|latter|above|previous|else)\b",
    re.IGNORECASE,
)
_CONTINUES = re.compile(
    r"^\W*(and|or|but|also|so|why|what about|how about|how come)\b", re.IGNORECASE
)
_OWN_TERMS = 3  # a follow-up with fewer content words than this leans on the last turn
_QUESTION = re.compile(
    r"^\W*(what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|"
    r"will|would|should|has|have|had)\b",
    re.IGNORECASE,
)
# A statement's marks: a subject pronoun first, a finite auxiliary, or a verb with its object.
_SUBJECT = re.compile(r"^\W*(it|they|he|she|we|i|you|this|these|there)\b", re.IGNORECASE)
_FINITE = re.compile(
    r"\b(is|are|was|were|has|have|had|will|would|can|could|should|must|did|does|shall|may|"
    r"might|isn't|aren't|wasn't|weren't)\b",
    re.IGNORECASE,
)
_VERB_OBJECT = re.compile(r"\b[a-z]{3,}ed\s+(a|an|the|\d[\d.,]*%?|that|its|their)\b", re.IGNORECASE)
_COPY_RUN = 3  # words in a row shared with an earlier answer
_COPY_SHARE = 0.7  # of the rewrite's words in such runs: a copy of that answer
_LABEL = re.compile(r"^\s*(standalone\s+)?(search\s+)?(query|question)\s*:\s*", re.IGNORECASE)


class PriorTurn(Protocol):
    """What the rewrite and the prompt need of an earlier turn (a stored ``Turn`` has it)."""

    question: str
    search_query: str
    answer: str


@dataclass(frozen=True)
class Rewrite:
    """The query to search for a question, and how it was made."""

    query: str
    method: str  # "as_typed" (first turn), "model", "fallback"
    note: str = ""  # why the fallback was used


def rewrite_messages(question: str, history: Sequence[PriorTurn]) -> list[dict[str, str]]:
    """The short rewrite prompt: the last few turns, then the follow-up."""
    lines = []
    for turn in history[-REWRITE_TURNS:]:
        answer = " ".join(strip_citations(turn.answer).split())
        if len(answer) > _ANSWER_CHARS:
            answer = answer[: _ANSWER_CHARS - 1] + "…"
        lines.append(f"Q: {turn.question.strip()}\nA: {answer or '(no answer)'}")
    convo = "\n\n".join(lines)
    user = (
        f"Conversation so far:\n{convo}\n\nFollow-up: {question.strip()}\n\n"
        "Standalone search query:"
    )
    return [{"role": "system", "content": REWRITE_SYSTEM}, {"role": "user", "content": user}]


def validate(reply: str, question: str, previous: Sequence[str] = ()) -> str | None:
    """The query in a model's reply, or None when the reply is not a usable query.

    ``previous`` are the earlier answers the rewrite saw: a reply copied from one is none.
    """
    text = reply.strip()
    if not text:
        return None
    text = _LABEL.sub("", text.splitlines()[0]).strip().strip("\"'“”‘’`").strip()
    if not text or not query_terms(text):
        return None
    if _REFUSAL.search(text) or _ANSWERISH.search(text) or CITATION.search(text):
        return None
    if len(text.split()) > _MAX_QUERY_WORDS:
        return None
    sentences = [s for s in re.split(r"(?<=[.!])\s+", text) if s.strip()]
    if len(sentences) > 1:  # an answer or an explanation, not a query
        return None
    if not reads_as_query(text) or any(copies(text, answer) for answer in previous):
        return None
    return text


def reads_as_query(text: str) -> bool:
    """A question, or a phrase of search words; not a statement of fact."""
    body = text.strip()
    if body.endswith("?") or _QUESTION.match(body):
        return True
    if body.endswith(".") or _SUBJECT.match(body):
        return False
    return not (_FINITE.search(body) or _VERB_OBJECT.search(body))


def copies(text: str, answer: str) -> bool:
    """Whether ``text`` is mostly ``answer``'s words in the answer's order."""
    said = [w.text for w in words(text.lower())]
    told = [w.text for w in words(strip_citations(answer).lower())]
    if len(said) < _COPY_RUN + 1 or not told:
        return False
    blocks = difflib.SequenceMatcher(None, said, told, autojunk=False).get_matching_blocks()
    shared = sum(b.size for b in blocks if b.size >= _COPY_RUN)
    return shared >= _COPY_SHARE * len(said)


def leans_on_history(question: str) -> bool:
    """Whether a follow-up needs the conversation to be understood (see the module docstring)."""
    return bool(
        _REFERS_BACK.search(question)
        or _CONTINUES.search(question)
        or len(query_terms(question)) < _OWN_TERMS
    )


def merge_query(question: str, history: Sequence[PriorTurn]) -> str:
    """The deterministic standalone query: the follow-up plus the previous query's key terms
    when it leans on them, else the follow-up as typed."""
    if not history or not leans_on_history(question):
        return question.strip()
    previous = history[-1].search_query or history[-1].question
    have = set(query_terms(question))
    extra = [t for t in query_terms(previous) if t not in have][:_MERGE_TERMS]
    return " ".join([question.strip(), *extra]).strip()


def standalone_query(
    question: str,
    history: Sequence[PriorTurn],
    *,
    host: str | None,
    model: str,
    enabled: bool = True,
    timeout_s: float = 8.0,
    cancel: threading.Event | None = None,
) -> Rewrite:
    """The query to search for ``question`` after ``history`` (see the module docstring)."""
    if not history:
        return Rewrite(question.strip(), "as_typed")
    if not enabled:
        return _fallback(question, history, "rewriting is off")
    stop = threading.Event()
    timer = threading.Timer(timeout_s, stop.set)  # the rewrite's whole time limit
    timer.daemon = True
    pieces: list[str] = []
    note = ""
    timer.start()
    watcher = None
    if cancel is not None:
        watcher = threading.Thread(target=_relay, args=(cancel, stop), daemon=True)
        watcher.start()
    try:
        for piece in stream_chat(
            rewrite_messages(question, history),
            host=host,
            model=model,
            options={"temperature": 0, "num_predict": 64},
            timeout_s=timeout_s,
            connect_timeout_s=min(timeout_s, 5.0),
            cancel=stop,
        ):
            pieces.append(piece)
    except AnswerError as exc:
        note = exc.message
    finally:
        timed_out = stop.is_set()
        timer.cancel()
        stop.set()  # ends the relay thread
    if timed_out and not note:
        note = f"the model did not rewrite the question within {timeout_s:g} s"
    answers = [turn.answer for turn in history[-REWRITE_TURNS:]]
    query = None if timed_out else validate("".join(pieces), question, answers)
    if query is not None:
        return Rewrite(query, "model")
    return _fallback(question, history, note or "the model's rewrite was not a search query")


def _fallback(question: str, history: Sequence[PriorTurn], note: str) -> Rewrite:
    query = merge_query(question, history)
    if query == question.strip():
        return Rewrite(query, "as_typed", f"{note}; the question reads as one of its own")
    return Rewrite(query, "fallback", note)


def _relay(cancel: threading.Event, stop: threading.Event) -> None:
    while not stop.is_set():
        if cancel.wait(0.1):
            stop.set()
            return
