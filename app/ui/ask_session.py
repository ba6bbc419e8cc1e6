"""One window's conversation with the ask lane: its token, and the core Ask events for it.

The core Ask operation (``app.core.ask``) decides everything about a question — what is
searched, whether the model is asked, the verdict, where the turn is stored; this session only
collects the events of its latest question into an :class:`AskState` and passes them on as
Qt signals for the window to draw. The windows show the verdict with ``show_verdict``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot

from app.core.ask import AskRequest, Done, Ending, Piece, Planned, Searched, SourceUsage
from app.core.ask import source_usage as core_source_usage

if TYPE_CHECKING:
    from app.core.prompt.answering import Answer
    from app.core.search.retrieval import SearchResult
    from app.core.search.scope import Scope
    from app.core.verdict.judge import Verdict
    from app.ui.answer_view import AnswerView
    from app.ui.payloads import AskUpdate
    from app.ui.service import Service
    from app.ui.widgets import Banner


@dataclass
class AskState:
    """Everything a window knows about one question so far, gathered from the core Ask
    events (the core's own ``AskOutcome`` arrives with Done); shared when quick ask hands
    over."""

    question: str
    result: SearchResult | None = None
    text: str = ""
    answer: Answer | None = None  # None when the model was not asked
    note: str | None = None
    error: str | None = None
    cancelled: bool = False
    done: bool = False
    html: str | None = None  # rendered off the GUI thread
    verdict: Verdict | None = None  # once done: the core's verdict on the question
    search_query: str | None = None  # what was searched ("Searched for: …")
    search_method: str = ""  # as_typed, model, fallback, edited
    thread_id: str | None = None  # once stored: the thread and the turn's number in it
    turn: int = 0
    history_warning: str | None = None
    ending: Ending | None = None  # once done: how the question ended
    # The thread it was asked in but did not follow up (a topic of its own started a new
    # one), and the line saying so; known once planned.
    new_topic_from: str | None = None
    new_topic_note: str = ""

    def error_message(self) -> str | None:
        """The error, saying so when the text above it is an answer cut short."""
        if self.error and self.answer is not None and self.answer.partial:
            return f"The answer stopped here and is incomplete. {self.error}"
        return self.error


# What the answer area says when the model was not asked (the verdict above gives the reason
# in the files' terms); an empty scope says so in the scope's own words.
NOT_ASKED_NOTES = {
    Ending.EMPTY_INDEX: "Your index is empty: add a folder (File ▸ Add folder, or drop one here).",
    Ending.NOTHING_FOUND: "Nothing in your indexed files matches this question.",
    Ending.REFUSED: (
        "Not answered: your files do not support an answer, so the model was not asked "
        "(Settings ▸ When unsupported). The closest passages are listed."
    ),
}


class AskSession(QObject):
    """Filters the service's Ask events down to this session's latest question."""

    searched = Signal(object)  # AskState, after retrieval
    piece_arrived = Signal(str)
    finished = Signal(object)  # AskState
    query_planned = Signal(object)  # AskState, its search_query known
    turn_saved = Signal(object)  # AskState, its thread_id and turn known

    def __init__(self, service: Service, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.token = 0
        self.outcome: AskState | None = None
        service.ask_updated.connect(self._on_update)

    @property
    def running(self) -> bool:
        """True while this session's question is being answered."""
        return self.outcome is not None and not self.outcome.done

    def ask(
        self,
        question: str,
        scope: Scope | None = None,
        thread_id: str | None = None,
        search_query: str | None = None,
        *,
        follow_up: bool | None = None,
    ) -> None:
        """Ask ``question`` (within ``scope``, in ``thread_id``: the core decides whether it
        follows it up, unless ``follow_up``); a newer question makes this session ignore the
        older one."""
        request = AskRequest(question, scope, thread_id, search_query, follow_up=follow_up)
        self.track(question, self.service.ask(request))

    def track(self, question: str, token: int) -> None:
        """Follow the events stamped ``token`` as this session's question from now on (events
        arrive on the GUI thread, so none of them can come before this returns)."""
        self.outcome = AskState(question)
        self.token = token

    def cancel(self) -> None:
        """Stop this session's answer, if it is still coming."""
        if self.running:
            self.service.cancel_ask(self.token)

    @Slot(object)
    def _on_update(self, update: AskUpdate) -> None:
        o = self.outcome
        if update.token != self.token or o is None:
            return
        event = update.event
        if isinstance(event, Planned):
            o.search_query, o.search_method = event.search_query, event.method
            o.new_topic_from, o.new_topic_note = event.new_topic_from, event.new_topic_note
            self.query_planned.emit(o)
        elif isinstance(event, Searched):
            o.result = event.result
            self.searched.emit(o)
        elif isinstance(event, Piece):
            o.text += event.text
            self.piece_arrived.emit(event.text)
        elif isinstance(event, Done):
            self._finish(o, event, update.html)

    def _finish(self, o: AskState, done: Done, html: str | None) -> None:
        core = done.outcome
        o.ending, o.verdict, o.error, o.html = core.ending, core.verdict, core.error, html
        o.result = core.result or o.result
        o.cancelled = core.ending is Ending.CANCELLED
        o.answer = core.answer if core.ending.asked else None
        if o.answer is not None:
            o.text = o.answer.text
        o.note = _note(core.ending, core.result)
        o.thread_id, o.turn, o.history_warning = core.thread_id, core.turn, core.history_warning
        o.done = True
        if core.ending.asked and not o.cancelled:
            self.turn_saved.emit(o)
        self.finished.emit(o)


def continuing(outcome: AskState | None) -> tuple[str, str, str | None] | None:
    """For "Continue the last thread instead": (the question, the thread to ask it in, the
    new thread it started and that is to be removed, if it was stored), or None when the
    question did not start a new thread."""
    if outcome is None or outcome.new_topic_from is None:
        return None
    started = outcome.thread_id if outcome.thread_id != outcome.new_topic_from else None
    return outcome.question, outcome.new_topic_from, started


def _note(ending: Ending, result: SearchResult | None) -> str | None:
    """The answer area's sentence for a question the model was not asked."""
    if ending is Ending.EMPTY_SCOPE and result is not None:
        return result.support.reason  # "Nothing in this scope: …"
    return NOT_ASKED_NOTES.get(ending)


def show_verdict(banner: Banner, outcome: AskState, *, brief: bool = False) -> None:
    """Put a finished question's verdict in a banner (hidden when there is none)."""
    if outcome.verdict is None:
        banner.clear()
    else:
        banner.show_verdict(outcome.verdict, brief=brief)


def model_note_once(outcome: AskState, told: set[str]) -> str | None:
    """The note that another model answered, the first time it applies (``told`` holds the
    notes already given: the service's, so both windows share it for the app's run)."""
    answer = outcome.answer
    note = answer.model_note if answer is not None and answer.error is None else None
    if note is None or note in told:
        return None
    told.add(note)
    return note


def show_outcome(view: AnswerView, outcome: AskState) -> None:
    """Put a finished question into an answer view: the marked answer, then what ended it."""
    if outcome.answer is not None:
        a = outcome.answer
        view.finish(a.text, a.sentences, len(a.sources), outcome.html)
    if outcome.error:
        view.show_message(outcome.error_message() or "", error=True)
    elif outcome.note:
        view.show_message(outcome.note)
    elif outcome.cancelled:
        view.show_message("Stopped.")


def source_usage(outcome: AskState) -> SourceUsage | None:
    """How the answer used each source (computed by the core); None when no answer came."""
    return core_source_usage(outcome.answer, outcome.verdict)


def unbacked_line(outcome: AskState) -> str | None:
    """The status line counting the answer's sentences no passage backs (None: none)."""
    answer = outcome.answer
    claims = [m for m in answer.sentences if m.kind != "meta"] if answer is not None else []
    weak = sum(not m.supported for m in claims)
    if not weak:
        return None
    verb = "is" if weak == 1 else "are"
    return (
        f"{weak} of {len(claims)} sentences {verb} not backed by your files "
        "(marked with a red wavy line; F8 steps through them)."
    )
