"""One window's conversation with the ask lane: its token, and what has arrived for it.

When the answer is complete the outcome gets its verdict (the sentence marks judged with the
retrieval evidence); the windows show it with ``show_verdict``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot

from app.core.answer.verdict import Verdict, judge
from app.ui.history import TurnPlanned, TurnSaved
from app.ui.payloads import AnswerDone, AnswerPiece, SearchDone

if TYPE_CHECKING:
    from app.core.answer.answering import Answer
    from app.core.search.retrieval import SearchResult
    from app.core.search.scope import Scope
    from app.ui.answer_view import AnswerView
    from app.ui.service import Service
    from app.ui.widgets import Banner


@dataclass
class AskOutcome:
    """Everything known about one question so far (shared when quick-ask hands over)."""

    question: str
    result: SearchResult | None = None
    text: str = ""
    answer: Answer | None = None
    note: str | None = None
    error: str | None = None
    cancelled: bool = False
    done: bool = False
    html: str | None = None  # rendered off the GUI thread
    verdict: Verdict | None = None  # once done: the answer judged with the retrieval evidence
    search_query: str | None = None  # what was searched ("Searched for: …")
    search_method: str = ""  # as_typed, model, fallback, edited
    thread_id: str | None = None  # once stored: the thread and the turn's number in it
    turn: int = 0
    history_warning: str | None = None

    def error_message(self) -> str | None:
        """The error, saying so when the text above it is an answer cut short."""
        if self.error and self.answer is not None and self.answer.partial:
            return f"The answer stopped here and is incomplete. {self.error}"
        return self.error


class AskSession(QObject):
    """Filters the service's answer signals down to this session's latest question."""

    searched = Signal(object)  # AskOutcome, after retrieval
    piece_arrived = Signal(str)
    finished = Signal(object)  # AskOutcome
    query_planned = Signal(object)  # AskOutcome, its search_query known
    turn_saved = Signal(object)  # AskOutcome, its thread_id and turn known

    def __init__(self, service: Service, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.token = 0
        self.outcome: AskOutcome | None = None
        service.search_finished.connect(self._on_search)
        service.answer_piece_arrived.connect(self._on_piece)
        service.answer_finished.connect(self._on_done)
        service.history.turn_planned.connect(self._on_planned)
        service.history.turn_saved.connect(self._on_saved)

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
    ) -> None:
        """Ask ``question`` (within ``scope``, following up ``thread_id``); a newer question
        makes this session ignore the older one."""
        self.outcome = AskOutcome(question)
        self.token = self.service.ask(question, scope, thread_id, search_query)

    @Slot(object)
    def _on_planned(self, planned: TurnPlanned) -> None:
        if planned.token == self.token and self.outcome is not None:
            self.outcome.search_query = planned.search_query
            self.outcome.search_method = planned.method
            self.query_planned.emit(self.outcome)

    @Slot(object)
    def _on_saved(self, saved: TurnSaved) -> None:
        if saved.token == self.token and self.outcome is not None:
            o = self.outcome
            o.thread_id, o.turn, o.history_warning = saved.thread_id, saved.turn, saved.warning
            self.turn_saved.emit(o)

    def cancel(self) -> None:
        """Stop this session's answer, if it is still coming."""
        if self.running:
            self.service.cancel_ask(self.token)

    @Slot(object)
    def _on_search(self, done: SearchDone) -> None:
        if done.token == self.token and self.outcome is not None:
            self.outcome.result = done.result
            self.searched.emit(self.outcome)

    @Slot(object)
    def _on_piece(self, piece: AnswerPiece) -> None:
        if piece.token == self.token and self.outcome is not None:
            self.outcome.text += piece.text
            self.piece_arrived.emit(piece.text)

    @Slot(object)
    def _on_done(self, done: AnswerDone) -> None:
        if done.token != self.token or self.outcome is None:
            return
        o = self.outcome
        o.answer, o.note, o.error, o.cancelled, o.done, o.html = (
            done.answer,
            done.note,
            done.error,
            done.cancelled,
            True,
            done.html,
        )
        if done.answer is not None:
            o.text = done.answer.text
        o.verdict = judge_outcome(o)
        self.finished.emit(o)


def judge_outcome(o: AskOutcome) -> Verdict | None:
    """The verdict on a finished question (None when it was stopped before any answer)."""
    support = o.result.support if o.result is not None else None
    if o.answer is not None:
        return o.answer.judge(support)
    if o.cancelled:
        return None
    if o.error:
        return judge(support, [], error=o.error)
    if o.result is not None and o.result.hits and support is not None and not support.supported:
        return judge(support, [], answered=False)  # the setting kept the model from answering
    return Verdict("no_answer", o.note or "No answer came back.", failed=True)


def show_verdict(banner: Banner, outcome: AskOutcome, *, brief: bool = False) -> None:
    """Put a finished question's verdict in a banner (hidden when there is none)."""
    if outcome.verdict is None:
        banner.clear()
    else:
        banner.show_verdict(outcome.verdict, brief=brief)


_told: set[str] = set()


def model_note_once(outcome: AskOutcome) -> str | None:
    """The note that another model answered, the first time it applies in this run only."""
    answer = outcome.answer
    note = answer.model_note if answer is not None and answer.error is None else None
    if note is None or note in _told:
        return None
    _told.add(note)
    return note


def show_outcome(view: AnswerView, outcome: AskOutcome) -> None:
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


@dataclass(frozen=True)
class SourceUsage:
    """How a finished answer used its sources, for the marks beside them."""

    sent: int  # sources given to the model
    cited: dict[int, int]  # sentences citing each source
    supports: dict[int, int]  # sentences each source backs
    weak: bool  # the verdict is "unsupported": backing a sentence earns no green check


def source_usage(outcome: AskOutcome) -> SourceUsage | None:
    """How the answer used each source; None when no answer came (no marks at all)."""
    answer = outcome.answer
    if answer is None or not answer.text:
        return None
    cited: dict[int, int] = {}
    supports: dict[int, int] = {}
    for mark in answer.sentences:
        for n in set(mark.sources):
            cited[n] = cited.get(n, 0) + 1
        for n in {span[0] for span in mark.support_spans}:
            supports[n] = supports.get(n, 0) + 1
    weak = outcome.verdict is not None and outcome.verdict.level == "unsupported"
    return SourceUsage(len(answer.sources), cited, supports, weak)


def unbacked_line(outcome: AskOutcome) -> str | None:
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
