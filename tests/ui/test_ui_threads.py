"""Threads in the window: follow-ups in context, "Searched for", the History panel across a
restart, New thread (Ctrl+N), delete, export and the Settings switch, on the real app."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.ui_fixtures import *  # noqa: F403 - the fixtures
from tests.ui_fixtures import ask, wait_ready, wait_signal


def listed(qtbot: Any, window: Any, count: int) -> list[str]:
    """Wait until the History panel lists ``count`` threads; their titles."""
    threads = window.history_panel.threads

    def done() -> bool:
        return threads.count() == count

    qtbot.waitUntil(done, timeout=10_000)
    from app.ui.threads_panel import TITLE

    return [threads.item(i).data(TITLE) for i in range(threads.count())]


@pytest.mark.slow
def test_a_follow_up_is_searched_in_context_and_the_thread_survives_a_restart(
    make_gui: Any, qtbot: Any, fake_ollama: Any, tmp_path: Path
) -> None:
    gui = make_gui("threads")
    w = gui.window
    wait_ready(qtbot, gui)
    first = ask(qtbot, w, "What do tomatoes need?")
    assert first.search_query == "What do tomatoes need?" and w.searched_for.isVisible()
    qtbot.waitUntil(lambda: w.thread_id is not None, timeout=10_000)
    thread_id = w.thread_id
    assert listed(qtbot, w, 1) == ["What do tomatoes need?"]

    # The stand-in answers the rewrite with an answer, not a query: the merge is searched.
    second = ask(qtbot, w, "How often should they be watered?")
    assert "tomatoes" in second.search_query and second.search_method == "fallback"
    assert w.searched_for.query.text() == second.search_query
    assert second.result.hits[0].path.endswith("garden.md")
    [rewrite] = fake_ollama.rewrites()
    assert "What do tomatoes need?" in rewrite.body["messages"][-1]["content"]
    qtbot.waitUntil(lambda: w.history_panel.turns.count() == 2, timeout=10_000)
    assert w.thread_id == thread_id
    live = w.history_panel.turns.item(1).text().splitlines()[1]
    assert second.verdict.level.replace("_", " ") in live and "llama3.2" in live

    gui.quit()
    assert gui.service.wait_stopped(60)
    again = make_gui("threads")
    w2 = again.window
    assert listed(qtbot, w2, 1) == ["What do tomatoes need?"]
    w2.history_panel.thread_chosen.emit(thread_id)
    qtbot.waitUntil(lambda: w2.thread_id == thread_id and w2.outcome is not None, timeout=10_000)
    shown = w2.outcome
    assert shown.question == "How often should they be watered?" and shown.turn == 2
    assert "six hours" in w2.answer.toPlainText()
    assert w2.sources.model_.rowCount() == len(shown.answer.sources) > 0
    assert shown.verdict is not None and w2.banner.verdict is not None
    assert w2.history_panel.turns.count() == 2
    # each answer is listed with when it was asked, its verdict and the model that answered
    second_line = w2.history_panel.turns.item(1).text().splitlines()[1]
    assert shown.verdict.level.replace("_", " ") in second_line and "llama3.2" in second_line
    w2.history_panel.turn_chosen.emit(1)
    assert w2.outcome.question == "What do tomatoes need?"

    # A follow-up in the reopened thread carries its earlier turns.
    wait_ready(qtbot, again)
    third = ask(qtbot, w2, "And the compost?")
    qtbot.waitUntil(lambda: third.turn == 3, timeout=10_000)
    assert third.thread_id == thread_id

    # Export: Markdown with a footnote for each citation, each quoting a real passage.
    out = tmp_path / "thread.md"
    w2.threads.choose_export_path = lambda _suggested: str(out)
    w2.activateWindow()
    w2.question.setFocus()  # where the cursor almost always is: Ctrl+E must still export
    with wait_signal(qtbot, again.service.history.thread_exported, 10_000):
        qtbot.keyClick(w2.question, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    text = out.read_text()
    refs = set(re.findall(r"\[\^(\d+)\](?!:)", text))
    defs = dict(re.findall(r"^\[\^(\d+)\]: (.*)$", text, re.MULTILINE))
    assert refs and refs == set(defs) and "⚠" in text  # the moon sentence is unsupported


def test_new_thread_delete_and_history_off(make_gui: Any, qtbot: Any, fake_ollama: Any) -> None:
    gui = make_gui("more")
    w = gui.window
    wait_ready(qtbot, gui)
    assert w.actions_.new_thread.shortcut().toString() == "Ctrl+N"
    ask(qtbot, w, "What do tomatoes need?")
    qtbot.waitUntil(lambda: w.thread_id is not None, timeout=10_000)
    first = w.thread_id
    w.actions_.new_thread.trigger()
    assert w.thread_id is None and w.answer.toPlainText() == "" and not w.searched_for.isVisible()

    # Ctrl+N while an answer is coming: it stops, and the button is "Ask" again
    fake_ollama.stall_after = 2
    w.question.setText("What does compost want?")
    qtbot.keyClick(w.question, Qt.Key.Key_Return)
    qtbot.waitUntil(fake_ollama.stalled.is_set, timeout=30_000)
    assert w.ask_button.text() == "Stop"
    w.actions_.new_thread.trigger()
    assert w.ask_button.text() == "Ask" and not w.session.running
    fake_ollama.stall_after = None
    ask(qtbot, w, "How often should a bicycle chain be replaced?")
    qtbot.waitUntil(lambda: w.thread_id not in (None, first), timeout=10_000)
    assert fake_ollama.rewrites() == []  # a new thread's first question is searched as typed
    listed(qtbot, w, 2)

    w.threads.confirm_delete = lambda _title: False
    w.history_panel.delete_requested.emit(first)
    w.threads.confirm_delete = lambda _title: True
    w.history_panel.delete_requested.emit(first)
    assert listed(qtbot, w, 1) == ["How often should a bicycle chain be replaced?"]

    import dataclasses

    assert w.thread_id is not None and w.history_panel.turns.count() == 1
    with wait_signal(qtbot, gui.service.settings_applied, 10_000):
        gui.service.apply_settings(dataclasses.replace(gui.service.settings, history_enabled=False))
    # history off: the open thread is closed, so nothing kept is listed or exported as open
    assert w.thread_id is None and w.history_panel.turns.count() == 0
    w.actions_.new_thread.trigger()
    outcome = ask(qtbot, w, "What do tomatoes need?")
    assert outcome.answer is not None and outcome.answer.text
    assert w.thread_id is None and outcome.thread_id is None
    with wait_signal(qtbot, gui.service.history.history_cleared, 10_000) as cleared:
        gui.service.history.clear()
    assert cleared.args[0].count == 1


def test_the_searched_query_can_be_edited_and_run_again(make_gui: Any, qtbot: Any) -> None:
    gui = make_gui("edit")
    w = gui.window
    wait_ready(qtbot, gui)
    ask(qtbot, w, "What do tomatoes need?")
    w.searched_for.query.setText("bicycle chain kilometres")
    with qtbot.waitSignal(w.session.finished, timeout=60_000) as blocker:
        qtbot.keyClick(w.searched_for.query, Qt.Key.Key_Return)
    outcome = blocker.args[0]
    assert outcome.search_query == "bicycle chain kilometres" and outcome.search_method == "edited"
    assert outcome.question == "What do tomatoes need?"
    assert outcome.result.hits[0].path.endswith("bikes.txt")

    from PySide6.QtWidgets import QApplication

    w.actions_.copy_answer.trigger()  # the answer as Markdown with footnotes
    copied = QApplication.clipboard().text()
    assert copied.startswith("# What do tomatoes need?") and "[^1]: [" in copied


def test_quick_ask_hands_its_thread_to_the_main_window(make_gui: Any, qtbot: Any) -> None:
    gui = make_gui("quick")
    wait_ready(qtbot, gui)
    quick = gui.show_quick_ask()
    quick.question.setText("What do tomatoes need?")
    with qtbot.waitSignal(quick.session.finished, timeout=60_000) as blocker:
        qtbot.keyClick(quick.question, Qt.Key.Key_Return)
    thread_id = blocker.args[0].thread_id
    assert thread_id is not None
    first = quick.sources.item(0)
    qtbot.mouseClick(
        quick.sources.viewport(),
        Qt.MouseButton.LeftButton,
        pos=quick.sources.visualItemRect(first).center(),
    )
    w = gui.window
    assert w.thread_id == thread_id
    follow = ask(qtbot, w, "How often should they be watered?")
    assert (follow.thread_id, follow.turn) == (thread_id, 2)
