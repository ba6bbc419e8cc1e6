"""The window renders core Ask events it is fed: no engine process, no Ollama, no index.

The core Ask operation decides everything about a question; the window only draws its events.
So these tests make the events with the core itself (an injected search function, the
stand-in Ollama server), feed them to the window as the ask lane would, stamped with the
session's token, and check what a person sees.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent

from app.core.ask import Asker, AskOptions, AskRequest, Done
from app.core.config import Settings
from app.core.search.retrieval import SearchResult
from app.core.types import Hit, Support
from app.ui.markup import marked_html
from app.ui.payloads import AskUpdate
from tests.fake_ollama import FakeOllama

TOMATOES = "Tomatoes need six hours of direct sun and deep watering twice a week."
COMPOST = "A compost heap wants a balance of green nitrogen material and brown carbon material."
REPLY = (
    "Tomatoes need six hours of direct sun [1]. "
    "A compost heap wants green nitrogen material and brown carbon material [2]. "
    "Tomatoes were first grown on the moon in 1802 [1]."
)
QUESTION = "What does the garden note say about tomatoes and compost?"


@pytest.fixture
def window(qapp: Any, tmp_path: Path) -> Iterator[Any]:
    """The real main window over an empty data folder; its engine is never started."""
    from app.ui.main import build

    gui = build(tmp_path / "data", settings=Settings(ollama_host="http://127.0.0.1:9"), app=qapp)
    gui.quit_app_when_stopped = False
    gui.window.show()
    yield gui.window
    gui.quit()
    assert gui.service.wait_stopped(60)
    gui.window.close()
    gui.window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def hit(rank: int, path: Path, text: str) -> Hit:
    return Hit(rank, str(path), None, 0, len(text), text, 0.9, f"c{rank}", dense_score=0.8)


def events_of(result: SearchResult, host: str = "http://127.0.0.1:9") -> list[Any]:
    """The core Ask operation's events for ``QUESTION`` when search finds ``result``."""
    asker = Asker(lambda q, k, scope: result, None, AskOptions(host=host, model="llama3.2"))
    return list(asker.ask(AskRequest(QUESTION)))


def feed(window: Any, question: str, *events: Any) -> None:
    """Send ``events`` to the window as the service's ask lane would, for a new question."""
    service = window.service
    token = service.new_token()
    window.session.track(question, token)
    for event in events:
        html = None
        if isinstance(event, Done) and event.outcome.answer is not None:
            a = event.outcome.answer
            html = marked_html(a.text, a.sentences, len(a.sources))
        service.ask_updated.emit(AskUpdate(token, event, html))


def test_a_fed_partly_supported_answer_is_drawn_with_its_marks_and_sources(
    window: Any, qtbot: Any, tmp_path: Path
) -> None:
    hits = [hit(1, tmp_path / "garden.md", TOMATOES), hit(2, tmp_path / "compost.md", COMPOST)]
    support = Support(True, 0.93, "A passage in your files closely matches the question.")
    with FakeOllama(reply=REPLY, models=["llama3.2:latest"]) as fake:
        events = events_of(SearchResult(QUESTION, hits, support), fake.url)
    done = events[-1]
    assert isinstance(done, Done) and done.outcome.verdict.level == "partly_supported"

    with qtbot.waitSignal(window.session.finished, timeout=10_000):
        feed(window, QUESTION, *events)

    assert window.banner.level == "partly_supported" and window.banner.supported is False
    assert "1 of 3 sentences is not backed" in window.banner.title.text()
    assert window.banner.next_button.isVisible()
    assert "moon" in window.answer.toPlainText()
    assert window.sources.model_.rowCount() == 2
    assert window.sources_title.text().endswith("2 passages")
    one = SearchResult(QUESTION, hits[:1], support)
    with qtbot.waitSignal(window.session.finished, timeout=10_000):
        feed(window, QUESTION, *events_of(one))  # no server: the answer fails, sources stay
    assert window.sources_title.text().endswith("1 passage")  # not "1 passages"


def test_a_fed_empty_index_ending_invites_a_folder_and_shows_no_answer(
    window: Any, qtbot: Any
) -> None:
    empty = SearchResult(QUESTION, [], Support(False, 0.0, "No passages."), index_empty=True)
    events = events_of(empty)  # the model is not asked: no server is there to ask
    with qtbot.waitSignal(window.session.finished, timeout=10_000):
        feed(window, QUESTION, *events)

    assert window.banner.level == "no_answer"
    assert "add a folder" in window.answer.toPlainText().lower()
    assert window.sources.model_.rowCount() == 0
