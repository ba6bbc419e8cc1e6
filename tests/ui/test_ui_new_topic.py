"""A new topic starts afresh in the window and in quick ask: an unrelated second question gets
a thread of its own, said in one quiet line with "Continue the last thread instead", and its
answer is written without the earlier turns; a real follow-up stays in its thread."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from tests.ui_fixtures import *  # noqa: F403 - the fixtures
from tests.ui_fixtures import ask, wait_ready

FIRST = "What do tomatoes need?"
OTHER = "How often should a bicycle chain be replaced?"


def last_prompt(fake_ollama: Any) -> str:
    return str(fake_ollama.answers()[-1].body["messages"][-1]["content"])


def listed_ids(qtbot: Any, window: Any, count: int) -> list[str]:
    threads = window.history_panel.threads
    qtbot.waitUntil(lambda: threads.count() == count, timeout=10_000)
    return [str(threads.item(i).data(Qt.ItemDataRole.UserRole)) for i in range(threads.count())]


def test_an_unrelated_question_starts_a_new_thread_and_can_continue_the_last(
    make_gui: Any, qtbot: Any, fake_ollama: Any
) -> None:
    fake_ollama.echo = True  # answers from source 1 of the prompt it is sent
    gui = make_gui("topics")
    w = gui.window
    wait_ready(qtbot, gui)
    first = ask(qtbot, w, FIRST)
    qtbot.waitUntil(lambda: w.thread_id is not None, timeout=10_000)
    tomatoes = w.thread_id
    assert not w.thread_note.isVisible()  # a first question is no new topic

    other = ask(qtbot, w, OTHER)
    qtbot.waitUntil(lambda: w.thread_id not in (None, tomatoes), timeout=10_000)
    assert other.new_topic_from == tomatoes and other.turn == 1
    assert w.thread_note.isVisible() and FIRST in w.thread_note.label.text()
    assert w.thread_note.button.text() == "Continue the last thread instead"
    shown = w.answer.toPlainText()
    assert "chain" in shown.lower() and "tomato" not in shown.lower()  # nothing of the first
    assert "Earlier question" not in last_prompt(fake_ollama)
    assert fake_ollama.rewrites() == []
    assert set(listed_ids(qtbot, w, 2)) == {tomatoes, w.thread_id}
    assert w.history_panel.turns.count() == 1

    # One click: asked again as a follow-up of the tomatoes, the new thread gone.
    with qtbot.waitSignal(w.session.finished, timeout=60_000) as blocker:
        qtbot.mouseClick(w.thread_note.button, Qt.MouseButton.LeftButton)
    again = blocker.args[0]
    assert again.question == OTHER and again.new_topic_from is None
    qtbot.waitUntil(lambda: w.thread_id == tomatoes, timeout=10_000)
    assert again.thread_id == tomatoes and again.turn == 2
    assert f"Earlier question: {FIRST}" in last_prompt(fake_ollama)
    assert listed_ids(qtbot, w, 1) == [tomatoes]
    qtbot.waitUntil(lambda: w.history_panel.turns.count() == 2, timeout=10_000)
    assert not w.thread_note.isVisible()

    # A real follow-up stays in its thread, with no line about a new one.
    follow = ask(qtbot, w, "And the compost?")
    assert (follow.thread_id, follow.turn, follow.new_topic_from) == (tomatoes, 3, None)
    assert not w.thread_note.isVisible() and first.thread_id == tomatoes


def test_quick_ask_starts_a_new_topic_afresh_and_follows_a_follow_up(
    make_gui: Any, qtbot: Any, fake_ollama: Any
) -> None:
    gui = make_gui("quick-topics")
    wait_ready(qtbot, gui)
    quick = gui.show_quick_ask()

    def quick_ask(question: str) -> Any:
        quick.question.setText(question)
        with qtbot.waitSignal(quick.session.finished, timeout=60_000) as blocker:
            qtbot.keyClick(quick.question, Qt.Key.Key_Return)
        return blocker.args[0]

    first = quick_ask(FIRST)
    assert first.thread_id is not None and not quick.thread_note.isVisible()
    follow = quick_ask("How often should they be watered?")
    assert (follow.thread_id, follow.turn) == (first.thread_id, 2)
    assert f"Earlier question: {FIRST}" in last_prompt(fake_ollama)
    other = quick_ask(OTHER)
    assert other.thread_id not in (None, first.thread_id) and other.turn == 1
    assert other.new_topic_from == first.thread_id and quick.thread_note.isVisible()
    assert "Earlier question" not in last_prompt(fake_ollama)
    with qtbot.waitSignal(quick.session.finished, timeout=60_000) as blocker:
        qtbot.mouseClick(quick.thread_note.button, Qt.MouseButton.LeftButton)
    assert (blocker.args[0].thread_id, blocker.args[0].turn) == (first.thread_id, 3)
