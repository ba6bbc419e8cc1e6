"""The verdict reads the sources while the model writes (``marks.prepare`` in a thread); that
reading ends with the answer. A given answer (``eval answers --replay``) returns at once, and a
thread still parsing when a script's interpreter shut down aborted the process (exit 134 or
139 after the replay had printed its table)."""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator

from app.core.prompt.answering import Answer, stream_answer
from app.core.types import Hit

WALLS = ("north", "south", "east", "west")


def _rooms(museum: int) -> str:
    """Forty sentences no earlier test has parsed (the parser caches what it has read)."""
    return " ".join(
        f"Room {i} of museum {museum} holds {i + museum} paintings by painters of the "
        f"{i + 4}th century, hung on its {WALLS[i % 4]} wall."
        for i in range(40)
    )


def _finish(gen: Generator[str, None, Answer]) -> Answer:
    while True:
        try:
            next(gen)
        except StopIteration as done:
            return done.value


def _given(messages: object, sources: object) -> Iterator[str]:
    yield "The sources do not say who painted the paintings in room 3."


def test_no_thread_is_reading_the_sources_once_the_answer_is_returned() -> None:
    for museum in range(4):  # the first loads the parser; each reads sources of its own
        text = _rooms(museum)
        hit = Hit(1, f"/notes/museum{museum}.md", None, 0, len(text), text, 0.9, f"c{museum}")
        question = "Who painted the paintings in room 3?"
        answer = _finish(stream_answer(question, [hit], host=None, model="m", reply=_given))
        assert answer.sentences  # a decline: marking it reads none of the sources
        reading = [t for t in threading.enumerate() if t.name == "footnotes-verdict"]
        assert not reading, "the sources were still being read after the answer returned"
