"""Prompt markup taken out of a model's answer as it streams: source tags and echoed instructions.

A small model often writes its prompt back: ``<source n="2" file="curl-copyright">`` (or the
look-alike ``‹source …›`` that quoted text is made into), ``n="1"`` in a sentence, the
placeholder ``[n]``, the instruction lines ("Answer from the sources above only, citing them
as [n].") and the conversation's labels ("Earlier answer: …"). None of it is the answer: it
is taken out before the answer is shown, marked, judged, stored or exported, so it is never
counted as a claim either.

The cleaner works on the stream, piece by piece, and holds back only what may still turn out
to be markup: a tag still open, the opening words of a sentence that read like an
instruction. What it gives out is final, and the same however the text was cut into pieces,
so the text streamed to a window is the text stored: ``clean(text)`` equals the joined
``feed`` of any split of ``text`` followed by ``finish``.

Stages, each as chunk-independent as the whole: markup inside a line (a partial match of
``_INLINE`` is held until it completes or fails), then whole sentences that echo an
instruction or a label line (held from their first words until they end), then white space
(none at the start or the end; a run of blank lines is one).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

import regex

__all__ = ["AnswerCleaner", "clean", "instruction_sentences"]

# Markup inside a line, with the blanks before it: a source tag in any spelling the prompt
# or its neutralised quotes use (cut short at the end of a line, too); a tag's attributes
# written into a sentence ("The source n="1" contains"); the placeholder "[n]".
_INLINE = regex.compile(
    r"""[ \t]*(?:<|‹|&lt;?)[ \t]*/?[ \t]*sources?\b[^<>‹›\n]{0,300}(?:>|›|&gt;?|(?=\n)|$)"""
    r"""|[ \t]*\b(?:n|file|page|section)=(?:"[^"\n]{0,200}"|“[^”\n]{0,200}”)"""
    r"""|(?:[ \t]+|(?<![^\s]))\[n\]""",
    regex.IGNORECASE,
)
# Where a sentence ends: its stop (closing quotes, brackets and citations kept with it) and
# the white space after it, or a line break.
_END = re.compile(r"[.!?…]+[\"'”’)]*(?:[ \t]*\[[^\[\]\n]{1,24}\])*[ \t]+|\n")
# A whole line that only repeats the conversation or the question the prompt gave.
_LABEL_LINE = re.compile(
    r"^[ \t]*(?:earlier\s+(?:question|answer)|question|follow-up)\s*:", re.IGNORECASE
)
# An "Answer:" label before the answer itself: taken off, the rest kept.
_ANSWER_LABEL = re.compile(r"^[ \t]*(?:answer|response)\s*:[ \t]*", re.IGNORECASE)
# What a sentence still being written may end with: a stop, closers, citations, blanks.
_MAY_END = re.compile(r"[.!?…]+[\"'”’)]*(?:[ \t]*\[[^\[\]\n]{0,24}\]?)*[ \t]*\Z")
_WORD = re.compile(r"\w+")
# Words an echo may open with before the instruction's own ("The answer from the sources…").
_FILLER = frozenset(["the", "a", "an", "please", "you", "i", "we", "so", "and"])
_OPENING = 3  # words that tell an echo's start
_MIN_WORDS = 4  # shorter instruction sentences ("Do not guess.") are too common to take out
_ECHO_RATIO = 0.75  # word-sequence similarity from which a sentence is an instruction's echo


def instruction_sentences(prompt_texts: Iterable[str]) -> list[str]:
    """The sentences of the prompt's fixed wording that an answer must not repeat."""
    out: list[str] = []
    for text in prompt_texts:
        text = re.sub(r"\n[ \t]+", " ", text)  # a rule's wrapped lines are one line
        for line in text.splitlines():
            line = re.sub(r"^\s*\d+\.\s*", "", line).strip()  # "3. If the sources…"
            for sentence in _split(line):
                if len(_words(sentence)) >= _MIN_WORDS and sentence not in out:
                    out.append(sentence)
    return out


def clean(text: str, instructions: Sequence[str]) -> str:
    """``text`` without prompt markup (see the module docstring)."""
    cleaner = AnswerCleaner(instructions)
    return cleaner.feed(text) + cleaner.finish()


class AnswerCleaner:
    """Takes a model's pieces in order; gives back the text to show, holding back only what
    may still turn out to be markup."""

    def __init__(self, instructions: Sequence[str]) -> None:
        self._inline = _Inline()
        self._sentences = _Sentences(instructions)
        self._space = _Space()

    def feed(self, piece: str) -> str:
        """The text that ``piece`` makes final (often all of it, sometimes nothing yet)."""
        return self._space.feed(self._sentences.feed(self._inline.feed(piece)))

    def finish(self) -> str:
        """What was held back, now that the answer is over (markup still left out)."""
        rest = self._sentences.feed(self._inline.finish()) + self._sentences.finish()
        return self._space.feed(rest) + self._space.finish()


class _Inline:
    """Stage one: markup inside a line taken out; a partial match waits for more text."""

    def __init__(self) -> None:
        self.pending = ""
        self.before = ""  # the character before ``pending`` as written ('' at the start)

    def feed(self, piece: str, final: bool = False) -> str:
        text = self.pending + piece
        subject = self.before + text  # so that a look-behind sees what came before
        skip = len(self.before)
        out: list[str] = []
        pos = 0
        while pos < len(text):
            m = _INLINE.search(subject, skip + pos, partial=not final)
            if m is None:
                out.append(text[pos:])
                pos = len(text)
                break
            start, end = m.start() - skip, m.end() - skip
            out.append(text[pos:start])
            if not final and (m.partial or end == len(text)):  # it may still grow
                pos = start
                break
            pos = end
        if pos:
            self.before = text[pos - 1]
        self.pending = text[pos:]
        return "".join(out)

    def finish(self) -> str:
        return self.feed("", final=True)


class _Sentences:
    """Stage two: sentences that echo an instruction, and label lines, left out whole.

    A sentence is told by its opening words: one that opens like no instruction goes out as
    it comes; one that does is held until it ends and then judged whole.
    """

    def __init__(self, instructions: Sequence[str]) -> None:
        self.instructions = [_opening(_INLINE.sub("", s)) for s in instructions]
        self.openings = {tuple(w[:_OPENING]) for w in self.instructions}
        self.buffer = ""  # the current sentence (or its rest), not yet given out
        self.state = "open"  # open (undecided), free (going out), held, dropping (a label line)
        self.line_start = True  # the current sentence starts a line

    def feed(self, text: str) -> str:
        self.buffer += text
        out: list[str] = []
        while self.buffer:
            end = _boundary(self.buffer)
            if self.state == "open":
                head = self.buffer if end is None else self.buffer[:end]
                self.state = self._decide(head, complete=end is not None)
                if self.state == "open":
                    break  # too few words yet to tell
                if self.state in ("free", "held") and self.line_start:
                    bare = _ANSWER_LABEL.sub("", self.buffer, count=1)
                    if bare != self.buffer:
                        self.buffer, end = bare, _boundary(bare)
            if end is None:
                if self.state == "free":  # all but what may still end the sentence
                    keep = _MAY_END.search(self.buffer)
                    cut = keep.start() if keep else len(self.buffer)
                    out.append(self.buffer[:cut])
                    self.buffer = self.buffer[cut:]
                break
            whole, self.buffer = self.buffer[:end], self.buffer[end:]
            out.append(self._close(whole))
        return "".join(out)

    def finish(self) -> str:
        rest, self.buffer = self.buffer, ""
        if not rest:
            return ""
        if self.state == "open":
            self.state = self._decide(rest, complete=True)
            if self.state in ("free", "held") and self.line_start:
                rest = _ANSWER_LABEL.sub("", rest, count=1)
        return self._close(rest)

    def _close(self, whole: str) -> str:
        """What goes out of a sentence that ended with ``whole`` (its rest, when free)."""
        state, at_start = self.state, self.line_start
        ends_line = whole.endswith("\n")
        if state == "dropping" and not ends_line:
            return ""  # a label line is dropped to its end, sentence by sentence
        self.state, self.line_start = "open", ends_line
        if state == "free" or (state == "held" and not self._echo(whole)):
            return whole
        return "\n" if ends_line and not at_start else ""  # its line break stays

    def _decide(self, sentence: str, *, complete: bool) -> str:
        """How to treat a sentence from its opening: "free", "held", "dropping" (a label
        line), or "open" while too few of its words are known."""
        if self.line_start:
            if _LABEL_LINE.match(sentence):
                return "dropping"
            if not complete and _could_be_label(sentence):
                return "open"
            sentence = _ANSWER_LABEL.sub("", sentence, count=1)
        partial = ""
        if not complete:  # its last word may still grow: it counts as the start of a word
            last = re.search(r"\w+\Z", sentence)
            partial = last.group().lower() if last else ""
            sentence = sentence[: last.start()] if last else sentence
        words = tuple(_opening(sentence)[:_OPENING])
        if complete or len(words) == _OPENING:
            return "held" if words in self.openings else "free"
        # free as soon as its first words open no instruction (a filler word, "The", opens
        # them all); the decision never changes with more text, so streaming cannot change it
        if not words and partial and any(f.startswith(partial) for f in _FILLER):
            return "open"
        k = len(words)
        for o in self.openings:
            if o[:k] == words and (not partial or (len(o) > k and o[k].startswith(partial))):
                return "open"
        return "free"

    def _echo(self, sentence: str) -> bool:
        words = _opening(sentence)
        if len(words) < _MIN_WORDS - 1:
            return False
        for instruction in self.instructions:
            if tuple(instruction[:_OPENING]) != tuple(words[:_OPENING]):
                continue
            ratio = difflib.SequenceMatcher(None, words, instruction, autojunk=False).ratio()
            if ratio >= _ECHO_RATIO:
                return True
        return False


def _boundary(text: str) -> int | None:
    """Where the first sentence of ``text`` ends, once no more text can move that end."""
    m = _END.search(text)
    if m is None:
        return None
    if m.group() != "\n" and m.end() == len(text):
        return None  # more white space, or a citation after the stop, may still come
    return m.end()


class _Space:
    """Stage three: no white space at the start or the end, and a run of blank lines as one."""

    def __init__(self) -> None:
        self.started = False
        self.held = ""

    def feed(self, text: str) -> str:
        out: list[str] = []
        for m in re.finditer(r"\s+|\S+", text):
            part = m.group()
            if part.isspace():
                if self.started:
                    self.held += part
                continue
            if self.held:
                out.append(_one_blank_line(self.held))
                self.held = ""
            self.started = True
            out.append(part)
        return "".join(out)

    def finish(self) -> str:
        self.held = ""
        return ""


def _one_blank_line(space: str) -> str:
    if space.count("\n") < 2:
        return space
    return "\n\n" + space[space.rfind("\n") + 1 :]


_LABELS = ("earlier question", "earlier answer", "question", "follow-up", "answer", "response")


def _could_be_label(text: str) -> bool:
    """Whether the start of a line may still become a label ("Earlier ans…")."""
    head = " ".join(text.lower().split())
    return any(
        label.startswith(head) or re.fullmatch(re.escape(label) + r"\s*", head) for label in _LABELS
    )


def _split(line: str) -> list[str]:
    parts, start = [], 0
    for m in _END.finditer(line + " "):
        parts.append(line[start : m.end()].strip())
        start = m.end()
    tail = line[start:].strip()
    return [p for p in [*parts, tail] if p]


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _opening(text: str) -> list[str]:
    """The sentence's words, without the filler an echo may open with."""
    words = _words(text)
    while words and words[0] in _FILLER:
        words = words[1:]
    return words
