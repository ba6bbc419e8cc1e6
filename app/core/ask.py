"""One question end to end — plan, search, answer, judge, record — as a stream of typed events.

Every front end asks the same way and only renders what comes back::

    asker = Asker(search, store, AskOptions.from_settings(settings))
    for event in asker.ask(AskRequest(question, scope=scope, thread_id=tid), cancel):
        match event:
            case Planned(): ...   # the standalone query a follow-up searches for
            case Searched(): ...  # the passages found and the retrieval evidence
            case Piece(): ...     # a piece of the answer as it streams
            case Done(): ...      # the outcome: verdict, sentence marks, source usage, the turn

The passages sent to the model are chosen by evidence (``passages.choose_passages``: a
prefix of the ranking, so numbers stay ranks), while the verdict reads the best eight as it
was calibrated. The rules that decide whether the model is asked at all live here once: an
empty index, an empty scope, no passage found and the "refuse" setting each end the question
without asking it, with an :class:`Ending` saying which, so that the command line, the main
window, quick ask and evaluation cannot disagree about them. So does the rule of threads: a
question asked in a thread that reads as one of its own starts a new thread, without the
earlier turns (``Planned.new_topic_from`` says which it left; ``AskRequest.follow_up``
continues it all the same).

``search`` is the one search function the caller injects (the engine's in the command line,
the engine process's in the window); ``store`` the thread store, or None when history is off
(or for batch questions, which are never kept).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum

from app.core.config import Settings
from app.core.errors import AnswerError, HostError, QueryError, StoreError, UnknownThread
from app.core.ollama.models import resolve_model
from app.core.prompt.answering import Answer, Reply, Source, estimate_tokens, stream_answer
from app.core.prompt.passages import choose_passages
from app.core.search.retrieval import SearchResult
from app.core.search.scope import Scope
from app.core.text import well_formed
from app.core.threads.conversation import (
    Plan,
    new_topic_note,
    open_store,
    plan_turn,
    record_turn,
)
from app.core.threads.store import ThreadStore, Turn
from app.core.types import Hit, Support
from app.core.verdict import parse
from app.core.verdict.grounding import ground
from app.core.verdict.judge import Level, Verdict, judge
from app.core.verdict.sentence import from_json_sentences

__all__ = [
    "AskEvent",
    "AskOptions",
    "AskOutcome",
    "AskRequest",
    "Asker",
    "Done",
    "Ending",
    "Piece",
    "Planned",
    "SearchFn",
    "Searched",
    "SourceUsage",
    "UnknownThread",
    "open_store",
    "source_usage",
]

SearchFn = Callable[[str, int, Scope | None], SearchResult]
# What a search may fail with and still be a question's outcome rather than a crash: the
# engine process gone (the window), the vector store unreachable (a Chroma server), a
# question past the query cap.
SEARCH_ERRORS = (HostError, StoreError, QueryError)


class Ending(StrEnum):
    """How a question ended; the front ends word each one, none compares text to decide."""

    ANSWERED = "answered"  # the model answered (the verdict says how well the files back it)
    FAILED = "failed"  # no whole answer came back: Ollama down, model missing... (``error``)
    CANCELLED = "cancelled"  # stopped by the person (what came so far is kept)
    EMPTY_INDEX = "empty_index"  # nothing is indexed yet: the model is not asked
    EMPTY_SCOPE = "empty_scope"  # nothing indexed in the chosen scope: not asked
    NOTHING_FOUND = "nothing_found"  # no passage matches the question: not asked
    REFUSED = "refused"  # weak evidence, and the setting says not to ask the model
    SEARCH_FAILED = "search_failed"  # the index could not be searched (``error``)

    @property
    def asked(self) -> bool:
        """Whether the model was sent the question."""
        return self in (Ending.ANSWERED, Ending.FAILED, Ending.CANCELLED)


@dataclass(frozen=True)
class AskOptions:
    """What a question needs from the settings, as one immutable snapshot."""

    k: int = 8
    host: str | None = None
    model: str = "llama3.2"
    # Another installed chat model may answer when ``model`` is not installed: only for the
    # configured default; a model the person named is that one, or an error.
    fallback: bool = True
    refuse_unsupported: bool = False
    timeout_s: float = 120.0
    rewrite_followups: bool = True
    rewrite_timeout_s: float = 8.0
    grounding_model: str = ""  # judges the sentences instead of the built-in checks (optional)

    @classmethod
    def from_settings(
        cls, settings: Settings, *, k: int | None = None, model: str | None = None
    ) -> AskOptions:
        """The options of ``settings``, with the command line's ``-k`` / ``--model`` applied."""
        return cls(
            k=k or settings.top_k,
            host=settings.ollama_host,
            model=model or settings.ollama_model,
            fallback=not model or model == settings.ollama_model,
            refuse_unsupported=settings.unsupported_mode == "refuse",
            timeout_s=settings.request_timeout_s,
            rewrite_followups=settings.rewrite_followups,
            rewrite_timeout_s=settings.rewrite_timeout_s,
            grounding_model=settings.grounding_model.strip(),
        )


@dataclass(frozen=True)
class AskRequest:
    """One question, with where it is asked from."""

    question: str
    scope: Scope | None = None
    thread_id: str | None = None  # the thread it follows up (None: a new thread)
    search_query: str | None = None  # the person's edit of "Searched for" (None: planned)
    # An unknown ``thread_id`` raises UnknownThread (the command line's --thread); otherwise a
    # deleted thread quietly starts a new one (the window's open thread was deleted meanwhile).
    thread_must_exist: bool = False
    # None: the question decides whether it follows ``thread_id`` up (one of its own starts a
    # new thread); True: it continues ``thread_id`` ("Continue the last thread instead").
    follow_up: bool | None = None


@dataclass(frozen=True)
class SourceUsage:
    """How a finished answer used its sources, for the marks beside them."""

    sent: int  # sources given to the model
    cited: dict[int, int]  # sentences citing each source
    supports: dict[int, int]  # sentences each source backs
    weak: bool  # the verdict is "unsupported": backing a sentence earns no green check
    read_in_part: frozenset[int] = frozenset()  # sources excerpted or cut to fit the context


@dataclass(frozen=True)
class AskOutcome:
    """Everything a question came to; ``answer`` holds the sources even when not asked."""

    question: str
    ending: Ending
    search_query: str
    search_method: str  # as_typed, model, fallback, edited
    result: SearchResult | None
    answer: Answer | None
    verdict: Verdict | None  # None only when stopped before anything was judged
    turn: int = 1
    thread_id: str | None = None  # the thread the turn was stored in (None: not stored)
    history_warning: str | None = None  # the thread store could not be used
    error: str | None = None  # a sentence a person can act on (FAILED, SEARCH_FAILED)
    search_note: str = ""  # why a follow-up's rewrite was not used, when it was not
    # The thread it was asked in but did not follow up (a topic of its own started a new
    # one), and the sentence saying so; None when it continued a thread or started afresh.
    new_topic_from: str | None = None
    new_topic_note: str = ""

    @property
    def usage(self) -> SourceUsage | None:
        """How the answer used each source (None when no answer came: no marks at all)."""
        return source_usage(self.answer, self.verdict)

    @classmethod
    def from_turn(
        cls,
        turn: Turn,
        thread_id: str,
        states: Mapping[tuple[int, int], str] | None = None,
    ) -> AskOutcome:
        """A stored turn as the outcome it was: its answer, marks (planted instructions and
        declines kept), verdict, sources and the retrieval evidence it was judged on (for a
        turn stored before that was kept: unknown, said so, never green). ``states`` says
        which sources' files changed or vanished since (their heading says so; the quote is
        the text as it was)."""
        states = states or {}
        hits = []
        for s in turn.sources:
            state = states.get((turn.n, s.n))
            heading = f"{state} · {s.heading}" if state and s.heading else (state or s.heading)
            hits.append(
                Hit(
                    rank=s.n,
                    path=s.path,
                    page=s.page,
                    start=s.start,
                    end=s.end,
                    text=s.text,
                    score=0.0,
                    chunk_id=f"thread:{thread_id}:{turn.n}:{s.n}",
                    heading=heading,
                    text_hash=s.text_hash,
                )
            )
        verdict = Verdict.from_json(turn.verdict)
        sources = [
            Source(h.rank, h, tuple((a, b) for a, b in s.sent) if s.sent is not None else None)
            for h, s in zip(hits, turn.sources, strict=True)
        ]
        answer = Answer(
            turn.answer,
            turn.model,
            sources,
            from_json_sentences(turn.sentences),
            error=turn.error,
            verdict=verdict,
            question=turn.question,
        )
        kept = turn.verdict.get("support")
        support = Support.from_json(kept) if isinstance(kept, dict) else Support(False, 0.0, UNKEPT)
        ending = Ending.FAILED if turn.error and not turn.answer else Ending.ANSWERED
        return cls(
            turn.question,
            ending,
            turn.search_query,
            "stored",
            SearchResult(turn.search_query, hits, support),
            answer,
            verdict,
            turn=turn.n,
            thread_id=thread_id,
            error=turn.error,
        )


UNKEPT = "The retrieval evidence of this answer was not kept (it was stored before it was)."


@dataclass(frozen=True)
class Planned:
    """The turn is planned: what will be searched for."""

    search_query: str
    method: str
    note: str = ""
    turn: int = 1
    warning: str | None = None
    new_topic_from: str | None = None  # as in AskOutcome: known before the search
    new_topic_note: str = ""


@dataclass(frozen=True)
class Searched:
    """Retrieval is done: the passages and the evidence, before any answer."""

    result: SearchResult


@dataclass(frozen=True)
class Piece:
    """A piece of the answer's text, in order."""

    text: str


@dataclass(frozen=True)
class Done:
    """The question is over, however it ended."""

    outcome: AskOutcome


AskEvent = Planned | Searched | Piece | Done


class Asker:
    """The owner of asking: one per front end, over one search function and thread store."""

    def __init__(
        self,
        search: SearchFn,
        store: ThreadStore | None,
        options: AskOptions,
        *,
        reply: Reply | None = None,
    ) -> None:
        self.search = search
        self.store = store
        self.options = options
        self.reply = reply  # writes the answers instead of Ollama (a replay of given answers)

    def settle_model(self) -> str | None:
        """Decide now which model answers (once for a batch): the configured one, or an
        installed chat model in its place; returns the sentence saying so, if another."""
        o = self.options
        if not o.fallback:
            return None
        try:
            choice = resolve_model(o.host, o.model, timeout_s=min(o.timeout_s, 10.0))
        except AnswerError:  # a server that is down fails each question instead
            return None
        if choice.model is None or not choice.fallback:
            return None
        self.options = dataclasses.replace(o, model=choice.model, fallback=False)
        return choice.note

    def ask(self, request: AskRequest, cancel: threading.Event | None = None) -> Iterator[AskEvent]:
        """Answer ``request``: yields Planned, Searched, Piece... and always ends with Done
        (raises UnknownThread first, for an unknown thread that must exist)."""
        cancel = cancel or threading.Event()
        o = self.options
        # As search reads it: a stray byte of a non-UTF-8 terminal (``caf\xe9``) as its
        # Windows-1252 letter, a lone surrogate as U+FFFD; the model's JSON and the history's
        # SQLite refuse them as they are.
        question = well_formed(request.question).strip()
        parse.warm()  # the verdict's parser loads while the question is searched and answered
        plan = self._plan(request, question, cancel)
        r = plan.rewrite
        yield Planned(r.query, r.method, r.note, plan.turn, plan.warning, *_new_topic(plan))
        finish = _Finisher(question, plan, self.store, o.model)
        if cancel.is_set():
            yield Done(finish(Ending.CANCELLED))
            return
        try:
            result = self.search(plan.search_query, o.k, request.scope)
        except SEARCH_ERRORS as exc:
            why = str(exc.args[0]) if exc.args else str(exc)
            yield Done(finish(Ending.SEARCH_FAILED, error=why))
            return
        yield Searched(result)
        if cancel.is_set():
            yield Done(finish(Ending.CANCELLED, result))
            return
        ending = _not_asked(result, request.scope, o.refuse_unsupported)
        if ending is not None:
            yield Done(finish(ending, result))
            return
        answer = yield from _stream(
            stream_answer(
                question,
                choose_passages(result.hits, estimate_tokens),  # what the answer needs
                host=o.host,
                model=o.model,
                timeout_s=o.timeout_s,
                cancel=cancel,
                support=result.support,
                fallback=o.fallback,
                history=plan.prompt_history,
                search_query=plan.search_query,  # what a long passage is excerpted for
                reply=self.reply,
            )
        )
        if o.grounding_model and answer.text and not answer.cancelled and answer.error is None:
            checked = ground(
                answer.sentences,
                answer.sources,
                host=o.host,
                model=o.grounding_model,
                timeout_s=o.timeout_s,
                cancel=cancel,
            )
            answer.verdict = None
            answer.judge(result.support, note=checked.words())
        if answer.cancelled:
            yield Done(finish(Ending.CANCELLED, result, answer))
        elif answer.error is not None:
            yield Done(finish(Ending.FAILED, result, answer, error=answer.error))
        else:
            yield Done(finish(Ending.ANSWERED, result, answer))

    def run(self, request: AskRequest, cancel: threading.Event | None = None) -> AskOutcome:
        """The outcome of ``request``, its events passed over (batch lines, evaluation)."""
        for event in self.ask(request, cancel):
            if isinstance(event, Done):
                return event.outcome
        raise AssertionError("Asker.ask ended without Done")  # pragma: no cover

    def _plan(self, request: AskRequest, question: str, cancel: threading.Event) -> Plan:
        o = self.options

        def plan(thread_id: str | None) -> Plan:
            return plan_turn(
                self.store,
                thread_id,
                question,
                host=o.host,
                model=o.model,
                rewrite_followups=o.rewrite_followups,
                rewrite_timeout_s=o.rewrite_timeout_s,
                search_query=request.search_query,
                cancel=cancel,
                follow_up=request.follow_up,
            )

        try:
            return plan(request.thread_id)
        except UnknownThread:
            if request.thread_must_exist:
                raise
            return plan(None)  # the thread was deleted meanwhile: this question starts anew


def _new_topic(plan: Plan) -> tuple[str | None, str]:
    """The thread a question left for a topic of its own, and the line saying so."""
    if plan.new_topic_from is None:
        return None, ""
    return plan.new_topic_from, new_topic_note(plan.new_topic_title)


def _stream(pieces: Generator[str, None, Answer]) -> Generator[Piece, None, Answer]:
    """Each piece of the answer as an event; returns the finished Answer."""
    while True:
        try:
            text = next(pieces)
        except StopIteration as done:
            answer: Answer = done.value
            return answer
        yield Piece(text)


def _not_asked(result: SearchResult, scope: Scope | None, refuse: bool) -> Ending | None:
    """Why the model must not be asked from these passages, if it must not."""
    if not result.hits:
        if scope is not None and not scope.everything:
            return Ending.EMPTY_SCOPE
        return Ending.EMPTY_INDEX if result.index_empty else Ending.NOTHING_FOUND
    if refuse and not result.support.supported:
        return Ending.REFUSED
    return None


EMPTY_INDEX_REASON = "Nothing is indexed yet, so there is nothing to answer from."


@dataclass
class _Finisher:
    """Builds a question's outcome, judging and recording it in one place."""

    question: str
    plan: Plan
    store: ThreadStore | None
    model: str

    def __call__(
        self,
        ending: Ending,
        result: SearchResult | None = None,
        answer: Answer | None = None,
        *,
        error: str | None = None,
    ) -> AskOutcome:
        support = result.support if result is not None else None
        if answer is None and result is not None:  # not asked: the passages found still show
            answer = Answer("", self.model, [Source(h.rank, h) for h in result.hits])
        verdict = _verdict(ending, support, answer, error)
        if answer is not None and verdict is not None:
            answer.verdict = verdict
        thread_id, turn, warning = None, self.plan.turn, self.plan.warning
        if answer is not None and not answer.cancelled and ending.asked:
            saved = record_turn(self.store, self.plan, self.question, answer, support)
            thread_id, turn, warning = saved.thread_id, saved.turn, saved.warning
        r = self.plan.rewrite
        left, note = _new_topic(self.plan)
        return AskOutcome(
            self.question,
            ending,
            r.query,
            r.method,
            result,
            answer,
            verdict,
            turn=turn,
            thread_id=thread_id,
            history_warning=warning,
            error=error,
            search_note=r.note,
            new_topic_from=left,
            new_topic_note=note,
        )


def _verdict(
    ending: Ending, s: Support | None, answer: Answer | None, error: str | None
) -> Verdict | None:
    """The headline for each ending (an answer was judged as it finished)."""
    if ending is Ending.CANCELLED:
        return answer.verdict if answer is not None and answer.text else None
    if ending in (Ending.ANSWERED, Ending.FAILED) and answer is not None:
        return answer.verdict or answer.judge(s)
    if ending is Ending.SEARCH_FAILED:
        return judge(None, [], error=error)
    if ending is Ending.EMPTY_INDEX:
        return Verdict(Level.NO_ANSWER, f"{EMPTY_INDEX_REASON} The model was not asked.")
    return judge(s, [], answered=False)  # empty scope, nothing found, refused: not asked


def source_usage(answer: Answer | None, verdict: Verdict | None) -> SourceUsage | None:
    """How ``answer`` used each source; None when no answer came (no marks at all)."""
    if answer is None or not answer.text:
        return None
    cited: dict[int, int] = {}
    supports: dict[int, int] = {}
    for mark in answer.sentences:
        for n in set(mark.sources):
            cited[n] = cited.get(n, 0) + 1
        for n in {span[0] for span in mark.support_spans}:
            supports[n] = supports.get(n, 0) + 1
    weak = verdict is not None and verdict.level is Level.UNSUPPORTED
    in_part = frozenset(s.n for s in answer.sources if s.sent is not None)
    return SourceUsage(len(answer.sources), cited, supports, weak, in_part)
