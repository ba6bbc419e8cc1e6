"""One turn of a thread, before and after answering: what to search, what to remember.

Both front ends use it the same way::

    plan = plan_turn(store, thread_id, question, host=h, model=m)   # search plan.search_query
    answer = answer_question(question, hits, ..., history=plan.prompt_history)
    saved = record_turn(store, plan, question, answer)              # thread id, turn number

(``app.core.ask`` is the one caller that sequences them.)

A turn follows up the thread it is asked in only when it reads as a follow-up
(``followup.follows_up``: it leans on the conversation, or asks about the last turn's topic
again); a question of its own starts a new thread, is searched as typed and is answered
without the earlier turns, which a small model would otherwise repeat. The plan says so
(``new_topic_from``), so that each front end can offer to continue the thread instead, which
asks again with ``follow_up=True``.

A history database that cannot be used never stops an answer: the plan and the record carry
a ``warning`` sentence instead, and the question is answered as a first turn.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from app.core.config import DataDir, Settings
from app.core.errors import HistoryError, UnknownThread
from app.core.prompt.answering import Answer
from app.core.threads.followup import Rewrite, follows_up, standalone_query
from app.core.threads.store import ThreadStore, Turn, turn_from_answer
from app.core.types import Support

PROMPT_TURNS = 4  # earlier turns offered to the answer prompt (then cut to its token budget)


@dataclass
class Plan:
    """What a turn searches for and which earlier turns it carries."""

    thread_id: str | None
    turn: int
    rewrite: Rewrite
    history: list[Turn] = field(default_factory=list)
    warning: str | None = None
    # The thread the question was asked in but does not follow up (a topic of its own: it
    # starts a new thread), and that thread's title; None when it continues or starts one.
    new_topic_from: str | None = None
    new_topic_title: str = ""

    @property
    def search_query(self) -> str:
        return self.rewrite.query

    @property
    def prompt_history(self) -> list[tuple[str, str]]:
        return [(t.question, t.answer) for t in self.history]


def new_topic_note(title: str) -> str:
    """The one quiet line saying that a question started a new thread, and which it left."""
    short = " ".join(title.split())
    if len(short) > 60:
        short = short[:59].rstrip() + "…"
    return (
        f"A new topic, so a new thread (not a follow-up of “{short}”)."
        if short
        else ("A new topic, so a new thread.")
    )


@dataclass
class Saved:
    """Where a turn was stored (``thread_id`` None when it was not)."""

    thread_id: str | None
    turn: int
    warning: str | None = None


def open_store(data: DataDir, settings: Settings) -> ThreadStore | None:
    """The thread store, or None when history is turned off in Settings."""
    return ThreadStore(data.threads_path) if settings.history_enabled else None


def plan_turn(
    store: ThreadStore | None,
    thread_id: str | None,
    question: str,
    *,
    host: str | None,
    model: str,
    rewrite_followups: bool = True,
    rewrite_timeout_s: float = 8.0,
    search_query: str | None = None,
    cancel: threading.Event | None = None,
    follow_up: bool | None = None,
) -> Plan:
    """The plan for ``question`` in ``thread_id`` (None: a new thread).

    ``follow_up`` None lets the question decide whether it continues ``thread_id``
    (``followup.follows_up``; one of its own starts a new thread); True continues it
    whatever the question reads like (the person said so). A follow-up's standalone query is
    asked of the model at ``host`` when ``rewrite_followups`` is on. ``search_query`` (the
    person edited it) is searched as given. Raises :class:`UnknownThread` for an id the
    store does not hold.
    """
    history: list[Turn] = []
    turn, warning, title = 1, None, ""
    if store is not None and thread_id:
        try:
            info = store.get(thread_id)
            if info is None:
                raise UnknownThread(thread_id)
            history = store.turns(thread_id, last=PROMPT_TURNS)
            turn, title = info.turns + 1, info.title
        except HistoryError as exc:
            warning = str(exc)
    if history and follow_up is not True and not follows_up(question, history):
        rewrite = Rewrite(question.strip(), "as_typed")
        if search_query and search_query.strip():
            rewrite = Rewrite(search_query.strip(), "edited")
        return Plan(None, 1, rewrite, [], warning, new_topic_from=thread_id, new_topic_title=title)
    if search_query and search_query.strip():
        rewrite = Rewrite(search_query.strip(), "edited")
    else:
        rewrite = standalone_query(
            question,
            history,
            host=host,
            model=model,
            enabled=rewrite_followups,
            timeout_s=rewrite_timeout_s,
            cancel=cancel,
        )
    return Plan(thread_id, turn, rewrite, history, warning)


def record_turn(
    store: ThreadStore | None,
    plan: Plan,
    question: str,
    answer: Answer,
    support: Support | None = None,
) -> Saved:
    """Store the answered turn (creating the thread on its first turn). A question without an
    answer (Ollama down, a timeout, the model not asked) is not kept: no empty thread or turn,
    and asked again it starts where it was."""
    if store is None or not answer.text:
        return Saved(None, plan.turn, plan.warning)
    try:
        turn = turn_from_answer(question, plan.search_query, answer, support)
        if plan.thread_id is None:  # the thread and its first turn in one transaction
            thread_id, n = store.start(question, turn)
        else:
            thread_id, n = plan.thread_id, store.add_turn(plan.thread_id, turn)
    except HistoryError as exc:
        return Saved(None, plan.turn, str(exc))
    return Saved(thread_id, n, plan.warning)
