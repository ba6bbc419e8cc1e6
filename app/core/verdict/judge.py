"""The headline verdict on a finished answer: retrieval evidence and sentence checks, combined.

Retrieval evidence alone (``Support``, computed before the model runs) cannot vouch for an
answer: the model may add sentences no passage backs. So the verdict shown first is computed
once the answer is complete, from both:

- ``supported``: every claim sentence is backed by a passage, and the evidence is strong or
  the question names what the backing passages name (a fluent answer's "ruled" may be the
  passage's word where the question said "in power", which the search scores loosely);
- ``partly_supported``: the evidence is strong, and some claim sentences are backed, some are
  not;
- ``unsupported``: the evidence is weak and some sentence unbacked, or weak and the question
  names nothing the passages name, or no claim sentence is backed (or the model was not asked
  because the evidence was weak);
- ``no_answer``: the model said the sources do not contain the answer, or gave no answer at
  all. Neutral: not a failure of the files, not an endorsement.

Sentences of kind ``meta`` ("The sources do not say who designed it.") are never counted.
Backed sentences are not yet an answer: given the ``question``, an answer whose claims only
restate it, or surround what it asks for without giving it (``question.py``), is ``unsupported``
with its own reason; so is a bare figure the passage gives for something else than the
question asks about, and an answer that repeats an instruction planted in a passage.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from app.core.types import Support
from app.core.verdict.checks import on
from app.core.verdict.kinds import NOT_A_CLAIM
from app.core.verdict.premise import roles_belied
from app.core.verdict.question import (
    asked,
    counted_elsewhere,
    dated_elsewhere,
    mislabelled,
    missing_names,
    names_something,
    supplies,
    titled_elsewhere,
    unnegated,
)
from app.core.verdict.sentence import SentenceMark


class Level(StrEnum):
    """The headline's level: only SUPPORTED is shown in green."""

    SUPPORTED = "supported"
    PARTLY = "partly_supported"
    UNSUPPORTED = "unsupported"
    NO_ANSWER = "no_answer"


CHECKING = "Checking the answer against your files…"
RESTATES = "The answer repeats the question but does not answer it."
DECLINES = "The model says the passages found do not answer the question."


@dataclass(frozen=True)
class Verdict:
    """The verdict shown above an answer, with the counts behind it and a reason in words."""

    level: Level
    reason: str
    claim_sentences: int = 0
    unsupported_sentences: int = 0
    # No answer came back (Ollama down, a timeout, an empty reply): not the files' doing.
    failed: bool = field(default=False, compare=False)
    # The answer stopped early (cancelled, cut off): what came may be backed, but it is not
    # the answer, so it is never shown green.
    stopped: bool = field(default=False, compare=False)

    @property
    def supported(self) -> bool:
        """True only for ``supported``: the one level that may be shown in green."""
        return self.level is Level.SUPPORTED

    @property
    def title(self) -> str:
        """The headline in a few words."""
        if self.level is Level.SUPPORTED:
            return "Supported by your files"
        if self.level is Level.PARTLY:
            n, total = self.unsupported_sentences, self.claim_sentences
            verb = "is" if n == 1 else "are"
            return f"Partly supported: {n} of {total} sentences {verb} not backed by your files"
        if self.level is Level.UNSUPPORTED:
            return "Unsupported by your files"
        if self.stopped:
            return "The answer is incomplete"
        return "No answer came back" if self.failed else "No answer in your files"

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Verdict | None:
        """The verdict ``to_json`` wrote (a stored turn's), or None for one that is not."""
        try:
            level = Level(str(raw.get("level")))
        except ValueError:
            return None
        return cls(
            level,
            str(raw.get("reason", "")),
            int(raw.get("claim_sentences", 0)),
            int(raw.get("unsupported_sentences", 0)),
        )

    def to_json(self) -> dict[str, object]:
        return {
            "level": self.level.value,
            "reason": self.reason,
            "claim_sentences": self.claim_sentences,
            "unsupported_sentences": self.unsupported_sentences,
        }


def judge(
    support: Support | None,
    sentences: Sequence[SentenceMark],
    *,
    answered: bool = True,
    error: str | None = None,
    partial: bool = False,
    question: str = "",
    passages: Mapping[int, tuple[str, str]] | None = None,
    note: str = "",
) -> Verdict:
    """The verdict for an answer with these sentence marks, given the retrieval evidence;
    ``note`` (what else checked the sentences: a grounding model) ends its reason."""
    verdict = _judge(
        support,
        sentences,
        answered=answered,
        error=error,
        partial=partial,
        question=question,
        passages=passages,
    )
    if not note:
        return verdict
    return dataclasses.replace(verdict, reason=_join(verdict.reason, note))


def _judge(
    support: Support | None,
    sentences: Sequence[SentenceMark],
    *,
    answered: bool,
    error: str | None,
    partial: bool,
    question: str,
    passages: Mapping[int, tuple[str, str]] | None,
) -> Verdict:
    """The verdict for an answer with these sentence marks, given the retrieval evidence.

    ``answered`` is False when the model was not asked (the setting refuses weak evidence);
    ``partial`` when the answer stopped early (its sentences are judged, the reason says so).
    ``support`` None means the evidence is unknown (a stored turn, a failed search): unknown
    evidence is never strong, so such an answer is never green. ``question`` (when given) is
    what the answer must answer; ``passages`` (source number -> the text the model saw and its
    file name and heading) let the verdict read the spans that back each sentence.
    """
    strong = (support is not None and support.supported) or not on("weak_evidence")
    evidence = support.reason if support is not None else ""
    if not answered:
        return Verdict(
            Level.UNSUPPORTED if not strong else Level.NO_ANSWER,
            _join(evidence, "The model was not asked."),
        )
    claims = [m for m in sentences if m.kind == "claim"]
    flagged = sum(not m.supported for m in claims)
    total = len(claims)
    tail = " The answer is incomplete: it stopped early." if partial else ""
    if on("declines") and any(m.declines for m in sentences):  # maybe then what they cover
        reason = DECLINES
        if total:
            reason = reason[:-1] + ", and then answers anyway: what follows is not vouched for."
        return Verdict(Level.NO_ANSWER, reason + tail, total, flagged)
    if not total:
        if not sentences:
            why = f"No answer came back: {error}" if error else "The model gave no answer."
            if not strong:  # the files would not have supported one either: say that first
                return Verdict(Level.UNSUPPORTED, _join(evidence, why + tail), failed=True)
            return Verdict(Level.NO_ANSWER, why + tail, failed=True)
        said = any(m.reason == NOT_A_CLAIM for m in sentences)
        why = (
            "The model says the passages found do not contain the answer."
            if said
            else "The answer makes no claim to check against your files (only headings, list "
            "numbers or lines of a table of contents)."
        )
        return Verdict(Level.NO_ANSWER, why + tail)
    planted = [m for m in claims if m.planted]
    if planted and on("planted_answer"):
        where = sorted({n for m in planted for n in m.sources})
        cited = f" ([{', '.join(map(str, where))}])" if where else ""
        reason = (
            "The answer repeats an instruction planted in a passage"
            f"{cited}: text addressed to the model, not something your files state."
        )
        return Verdict(Level.UNSUPPORTED, reason + tail, total, flagged)
    backers = [passages[n][0] for m in claims for n in m.backed_by if passages and n in passages]
    restates = on("restates") and not supplies(question, [m.text for m in claims], backers)
    if flagged < total and restates:
        reason = RESTATES
        want = asked(question)
        if want.kind == "named" and want.noun:
            reason += f" It does not say which {want.noun} the question asks about."
        if flagged:
            reason += (
                f" {flagged} of its {total} sentences {'is' if flagged == 1 else 'are'} not backed."
            )
        return Verdict(
            Level.UNSUPPORTED, _join(reason, "" if strong else evidence) + tail, total, flagged
        )
    if flagged < total and passages is not None and question and on("mislabelled"):
        for m in claims:
            for n in m.backed_by if m.supported else ():
                label = mislabelled(question, m.text, passages[n][0]) if n in passages else None
                if label is not None:
                    reason = (
                        f"The figure the answer gives is in [{n}], but as “{label}”, not what "
                        "the question asks about."
                    )
                    return Verdict(Level.UNSUPPORTED, reason + tail, total, flagged)
    if flagged < total and passages is not None and on("something_else"):
        backing = [m for m in claims if m.supported]
        used = sorted({n for m in backing for n in m.backed_by if n in passages})
        texts = [passages[n][0] for n in used] + [passages[n][1] for n in used]
        lacking = missing_names(question, " ".join(m.text for m in backing), texts)
        if lacking:
            named = ", ".join(f"“{w}”" for w in lacking)
            reason = (
                f"The answer is about something else: neither it nor the passages backing it "
                f"mention {named}, which the question asks about."
            )
            return Verdict(Level.UNSUPPORTED, reason + tail, total, flagged)
    # a premise of the question (a count, a title, a negation) its backing passages belie
    for check, belied in (
        ("premise_count", counted_elsewhere),
        ("premise_date", dated_elsewhere),
        ("premise_title", titled_elsewhere),
        ("premise_negation", unnegated),
    ):
        found = belied(question, backers) if flagged < total and on(check) else None
        if found is not None:
            asked_words, said_words = found
            reason = (
                f"The question says “{asked_words}”, but the passages backing the answer say "
                f"“{said_words}”"
                if said_words
                else f"The question asks why something does “{asked_words}”, but no passage "
                "backing the answer says so"
                if asked(question).kind == "reason"
                else f"The question takes it that something is “{asked_words}”, but no "
                "passage backing the answer says so"
            )
            reason += ": the answer takes the question's premise for what your files say."
            return Verdict(Level.UNSUPPORTED, reason + tail, total, flagged)
    if flagged < total and passages is not None:
        spans = [  # the sentences the backed claims rest on
            passages[n][0][start:end]
            for m in claims
            if m.supported
            for n, start, end in m.support_spans
            if n in passages
        ]
        belied_roles = roles_belied(question, spans)
        if belied_roles is not None:
            reason = (
                f"The question's premise does not hold: {belied_roles}. The answer takes the "
                "question's premise for what your files say."
            )
            return Verdict(Level.UNSUPPORTED, reason + tail, total, flagged)
    if flagged == total:
        why = next((m.reason for m in claims if m.reason), "")
        why = f" ({why[0].lower()}{why[1:]})" if why else ""
        reason = (
            f"No passage in your files backs this answer{why}."
            if total == 1
            else f"None of the answer's {total} sentences is backed by a passage in your files."
        )
        return Verdict(
            Level.UNSUPPORTED, _join(reason, "" if strong else evidence) + tail, total, flagged
        )
    if flagged:
        rest = total - flagged
        reason = (
            f"{flagged} of the answer's {total} sentences {'is' if flagged == 1 else 'are'} not "
            "backed by any passage in your files; "
            + ("the other one is" if rest == 1 else f"the other {rest} are")
        )
        if not strong:  # backed by passages that may not answer the question: not "partly"
            reason += ", but by passages that may not answer the question."
            return Verdict(Level.UNSUPPORTED, _join(evidence, reason) + tail, total, flagged)
        return Verdict(Level.PARTLY, reason + "." + _miscited(claims) + tail, total, flagged)
    loosely = ""  # weak evidence, overruled: every sentence backed by passages about it
    known = support is not None  # unknown evidence (a stored turn) is never overruled
    if not strong and known and _about_what_is_asked(question, claims, passages):
        loosely = (
            " The search matched these passages to the question's words only loosely, but "
            "they name what it asks about."
        )
    elif not strong:
        reason = _join(
            evidence,
            "The answer's sentences repeat the passages, but the passages may not answer "
            "the question.",
        )
        return Verdict(Level.UNSUPPORTED, reason + tail, total, 0)
    every = (
        "The answer's one sentence is backed by a passage"
        if total == 1
        else f"All {total} sentences of the answer are backed by passages"
    )
    if partial:  # backed so far, but cut short: neutral, never green
        reason = f"{every} in your files, but it stopped before it was complete."
        return Verdict(Level.NO_ANSWER, reason, total, 0, stopped=True)
    reason = f"{every} in your files.{loosely}{_miscited(claims)}{tail}"
    return Verdict(Level.SUPPORTED, reason, total, 0)


def _about_what_is_asked(
    question: str,
    claims: Sequence[SentenceMark],
    passages: Mapping[int, tuple[str, str]] | None,
) -> bool:
    """Whether an answer whose every sentence is backed is about what the question asks,
    though the search found its passages only loosely matching the question's words
    (``weak_evidence``): the question names something ("Which religion did Kublai prefer?"),
    and the answer or the passages backing it (their text, file name or heading) name all of
    it. A question that names nothing ("When did the archive open?") is not vouched for so: a
    backed sentence about the harbour would pass."""
    if not (question and passages and names_something(question)):
        return False
    used = sorted({n for m in claims for n in m.backed_by if n in passages})
    texts = [passages[n][0] for n in used] + [passages[n][1] for n in used]
    return bool(used) and not missing_names(question, " ".join(m.text for m in claims), texts)


def _miscited(claims: Sequence[SentenceMark]) -> str:
    """A note on backed sentences whose citation points at another passage than backs them."""
    wrong = [m for m in claims if m.miscited]
    if not wrong:
        return ""
    where = "; ".join(
        f"cites [{', '.join(map(str, m.sources))}], backed by [{', '.join(map(str, m.backed_by))}]"
        for m in wrong
    )
    if len(wrong) == 1:
        return f" One sentence cites another passage than the one that backs it ({where})."
    return f" {len(wrong)} sentences cite other passages than the ones that back them ({where})."


def _join(*parts: str) -> str:
    return " ".join(p.strip() for p in parts if p and p.strip())
