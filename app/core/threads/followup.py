"""Follow-up questions: the standalone query to search for, and the earlier turns for the prompt.

"and what about 2022?" searched as typed finds nothing. For a follow-up the model is asked
(short prompt, its own time limit) to rewrite it into a standalone search query from the last
few turns; the result is kept only if it reads as a query (non-empty, short, not a refusal,
not an answer): a question or a phrase of search words, not a statement ("The US imposed a
20% tariff on steel.") and not a copy of an earlier answer, whose invented facts would then
be searched for as if the person had asked about them, and it keeps the follow-up's own
words and numbers ("and what about net income?" searched as "Ulta Beauty net sales 2023"
lost "income" and changed the year). Otherwise — the model slow,
unavailable, off in Settings, or talking — a deterministic merge is searched: the previous
query's key terms plus the follow-up, when the follow-up leans on what came before (a
pronoun, "and …", "what about …", or fewer than three content words); a question that reads
as one of its own ("What is the boiling point of liquid nitrogen?") is searched as typed, so
the last topic's passages cannot make it look supported. Numbers stay whole in the merge
("4.9", "2,500"), and a follow-up with a number of its own replaces the last one ("and in
4.8?" after "What changed in sed 4.9?" is searched as "and in 4.8? changed sed").
A first turn searches the question as typed.

The same reading decides the thread (``follows_up``): a question that reads as one of its
own, on a topic of its own, starts a new thread, and no earlier turn is sent with it.
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
from app.core.text import CITATION, STOPWORDS, query_terms, stem, strip_citations

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
    r"^(yes|no|the answer|according to|based on the|the sources?|a\s*:)(?=\W|$)", re.IGNORECASE
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
# A label before the query ("Standalone search query:", "Q:", "Query:"), as often as repeated.
_LABEL = re.compile(
    r"^\s*(?:(?:standalone|rewritten|new)\s+)?(?:search\s+)?(?:query|question|q|search)\s*[:：]\s*",
    re.IGNORECASE,
)
# A word, or a number kept whole ("4.9", "2,500", "20%" as "20"): what a merge and the check
# of a rewrite compare.
_TERM = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_SAME_TOPIC = 0.5  # more than this share of a question's words in the last turn: its topic
# Words a follow-up leans with, which a rewrite need not keep ("and also?", "what else?").
_LOOSE = frozenset(["also", "else", "instead", "please", "tell", "anything", "something"])


def question_terms(text: str) -> set[str]:
    """The stems of ``text``'s content words and its numbers, whole and without separators:
    what a rewrite must keep of a follow-up, and what two questions of one topic share."""
    terms = set()
    for m in _TERM.finditer(text.lower()):
        tok = m.group()
        if tok[0].isdigit():
            terms.add(tok.replace(",", ""))
        elif tok not in STOPWORDS and tok not in _LOOSE and len(tok) > 1:
            terms.add(stem(tok))
    return terms


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


def validate(
    reply: str, question: str, previous: Sequence[str] = (), said: Sequence[str] = ()
) -> str | None:
    """The query in a model's reply, or None when the reply is not a usable query.

    ``previous`` are the earlier answers the rewrite saw: a reply copied from one is none;
    ``said`` the earlier questions and queries (see :func:`refusal`).
    """
    text = query_of(reply)
    return text if text and refusal(text, question, previous, said) is None else None


def query_of(reply: str) -> str:
    """The query a model's reply holds: its first line, labels ("Q:", "Standalone search
    query:") and quotes taken off ('' when nothing is left)."""
    lines = reply.strip().splitlines()
    text = lines[0] if lines else ""
    while True:
        bare = _LABEL.sub("", text).strip().strip("\"'“”‘’`").strip()
        if bare == text:
            return text
        text = bare


def refusal(
    text: str, question: str, previous: Sequence[str] = (), said: Sequence[str] = ()
) -> str | None:
    """Why the rewrite ``text`` of ``question`` is not searched, or None when it is usable.

    Not a query (empty, a refusal, an answer, a statement, too long, a copy of one of the
    ``previous`` answers), or not the follow-up's: a content word or number of the
    follow-up left out, or a number that neither the follow-up nor the conversation (the
    earlier questions and queries ``said``, the answers) holds — a year changed on the way.
    """
    generic = "the model's rewrite was not a search query"
    if not text or not query_terms(text):
        return generic
    if _REFUSAL.search(text) or _ANSWERISH.search(text) or CITATION.search(text):
        return generic
    if len(text.split()) > _MAX_QUERY_WORDS:
        return generic
    sentences = [s for s in re.split(r"(?<=[.!])\s+", text) if s.strip()]
    if len(sentences) > 1:  # an answer or an explanation, not a query
        return generic
    if not reads_as_query(text) or any(copies(text, answer) for answer in previous):
        return generic
    kept = question_terms(text)
    lost = [w for w in _own_words(question) if _key(w) not in kept]
    if lost:
        return f"the model's rewrite left out {_listed(lost)}"
    earlier = [*said, *(strip_citations(answer) for answer in previous)]
    known = set(_numbers(question)).union(*(_numbers(t) for t in earlier))
    new = [n for n in _numbers(text) if n not in known]
    if new:
        return f"the model's rewrite brought in {_listed(new)}, which nobody asked about"
    return None


def _own_words(question: str) -> list[str]:
    """The follow-up's content words and numbers, as typed, in order."""
    out: dict[str, None] = {}
    for m in _TERM.finditer(question):
        word = m.group()
        if word.lower() not in STOPWORDS and (len(word) > 1 or word.isdigit()):
            out.setdefault(word, None)
    return [w for w in out if question_terms(w)]  # not the words it leans with ("also")


def _key(word: str) -> str:
    """How :func:`question_terms` writes ``word`` (its stem; a number without separators)."""
    terms = question_terms(word)
    return next(iter(terms)) if terms else word.lower()


def _numbers(text: str) -> list[str]:
    return [m.group().replace(",", "") for m in _NUMBER.finditer(text)]


def _listed(items: Sequence[str]) -> str:
    quoted = [f"“{w}”" for w in items[:3]]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


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
    said = re.findall(r"\w+", text.lower())
    told = re.findall(r"\w+", strip_citations(answer).lower())
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
        or len(merge_terms(question)) < _OWN_TERMS
    )


def shares_topic(question: str, turn: PriorTurn) -> bool:
    """Whether most of ``question``'s words were in ``turn``'s question or query: the same
    topic asked again ("… net sales for fiscal 2023?" after "… for fiscal 2022?")."""
    own = question_terms(question)
    before = question_terms(f"{turn.question} {turn.search_query}")
    return bool(own) and len(own & before) > _SAME_TOPIC * len(own)


def follows_up(question: str, history: Sequence[PriorTurn]) -> bool:
    """Whether ``question`` continues the conversation ``history``: it leans on it, or it asks
    about the last turn's topic again. Otherwise it reads as one of its own, and starts a new
    thread: the earlier turns are neither searched with it nor sent with it."""
    if not history:
        return False
    return leans_on_history(question) or shares_topic(question, history[-1])


def merge_terms(text: str) -> list[str]:
    """Lower-cased content words of ``text`` in order, without repeats, numbers kept whole."""
    seen: dict[str, None] = {}
    for m in _TERM.finditer(text.lower()):
        word = m.group()
        if word not in STOPWORDS and (len(word) > 1 or word.isdigit()):
            seen.setdefault(word, None)
    return list(seen)


def merge_query(question: str, history: Sequence[PriorTurn]) -> str:
    """The deterministic standalone query: the follow-up plus the previous query's key terms
    when it leans on them, else the follow-up as typed. A follow-up that names a number of
    its own ("and in 2022?") takes the previous query's words, not its numbers."""
    if not history or not leans_on_history(question):
        return question.strip()
    previous = history[-1].search_query or history[-1].question
    have = set(merge_terms(question))
    numbered = bool(_numbers(question))
    extra = [
        t
        for t in merge_terms(previous)
        if t not in have and not (numbered and _NUMBER.fullmatch(t))
    ][:_MERGE_TERMS]
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
    if not note:
        shown = history[-REWRITE_TURNS:]
        query = query_of("".join(pieces))
        said = [t for turn in shown for t in (turn.question, turn.search_query)]
        note = refusal(query, question, [t.answer for t in shown], said) or ""
        if not note:
            return Rewrite(query, "model")
    return _fallback(question, history, note)


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
