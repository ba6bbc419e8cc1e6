"""The verdict in the window and quick ask, Settings' status colours, and pulling a model,
driven offscreen against the stand-in Ollama server."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from app.ui.theme import colors
from tests.ui_fixtures import *  # noqa: F403 - the fixtures
from tests.ui_fixtures import ask, wait_ready, wait_signal

COPIED = "Tomatoes need six hours of direct sun and deep watering twice a week [1]."
INVENTED = "The lunar archive was founded by Captain Zanzibar Quillfeather in 1642."
QUESTION = "How much sun do tomatoes need?"


def test_partly_supported_is_never_green_and_steps_through_what_is_not_backed(
    make_gui: Any, qtbot: Any, fake_ollama: Any
) -> None:
    fake_ollama.reply = f"{COPIED} {INVENTED} Tomatoes were first grown on the moon in 1802 [1]."
    fake_ollama.token_delay = 0.02
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    while_streaming: list[tuple[str | None, bool | None, str]] = []
    w.session.piece_arrived.connect(
        lambda _: while_streaming.append(
            (w.banner.level, w.banner.supported, w.banner.title.text())
        )
    )
    outcome = ask(qtbot, w, QUESTION)

    assert while_streaming, "no piece arrived"
    assert {level for level, _, _ in while_streaming} == {"checking"}
    assert all(ok is not True and "Supported" not in t for _, ok, t in while_streaming)
    assert outcome.verdict.level == "partly_supported"
    b = w.banner
    assert b.isVisible() and b.level == "partly_supported" and b.supported is False
    assert "2 of 3 sentences are not backed" in b.title.text()
    assert colors().ok_fg not in b.title.styleSheet()
    assert b.next_button.isVisible()
    qtbot.mouseClick(b.next_button, Qt.MouseButton.LeftButton)
    assert w.answer.pinned == 1
    b.next_button.click()
    assert w.answer.pinned == 2
    b.next_button.click()
    assert w.answer.pinned == 1  # round again

    fake_ollama.reply = COPIED
    ask(qtbot, w, QUESTION)
    assert b.level == "supported" and b.supported is True and b.title.text().startswith("✓")
    assert not b.next_button.isVisible()

    fake_ollama.reply = "The sources do not contain the answer."
    ask(qtbot, w, QUESTION)
    assert b.level == "no_answer" and b.supported is False
    assert b.title.text() == "No answer in your files"
    assert colors().banner_bg not in b.styleSheet()  # neutral, not the red alarm

    # Off-topic: weak evidence makes it unsupported, and F8 still steps through what no
    # passage backs.
    # (the one passage sent for it is the compost note: the passages are chosen by evidence)
    compost = "A compost heap wants a balance of green nitrogen material and brown carbon [1]."
    fake_ollama.reply = f"{compost} {INVENTED}"
    ask(qtbot, w, "What is the boiling point of liquid nitrogen on Mars?")
    assert b.level == "unsupported" and b.verdict.unsupported_sentences >= 1
    assert b.next_button.isVisible()
    # no green check beside an answer the banner calls unsupported
    marks = [row.mark() for row in w.sources.model_.rows]
    assert all(color != "ok_fg" for _, color in marks)
    assert any("may not answer the question" in text for text, _ in marks)
    b.next_button.click()
    assert w.answer.pinned >= 0

    quick = gui.show_quick_ask()
    fake_ollama.reply = f"{COPIED} {INVENTED}"
    quick.question.setText(QUESTION)
    with qtbot.waitSignal(quick.session.finished, timeout=60_000):
        qtbot.keyClick(quick.question, Qt.Key.Key_Return)
    assert quick.banner.level == "partly_supported"
    assert "1 of 2 sentences is not backed" in quick.banner.title.text()
    quick.banner.next_button.click()
    assert quick.answer.pinned == 1


def test_fallback_model_is_named_once_and_settings_say_amber_or_red(
    make_gui: Any, qtbot: Any, fake_ollama: Any
) -> None:
    fake_ollama.models = ["nomic-embed-text:latest", "qwen2.5:3b"]
    fake_ollama.reply = COPIED
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    first = ask(qtbot, w, QUESTION)
    assert first.answer.model == "qwen2.5:3b" and first.verdict.level == "supported"
    assert "'llama3.2' is not installed" in w.status.label.text()
    assert w.errors.isVisible() and "qwen2.5:3b" in w.errors.message.text()
    assert w.errors.action.isVisible() and "llama3.2" in w.errors.action.text()
    ask(qtbot, w, QUESTION)
    assert "not installed" not in w.status.label.text()  # said once

    dialog = gui.show_settings()
    qtbot.waitUntil(lambda: dialog.status_level == "missing", timeout=20_000)
    assert colors().warn_fg in dialog.host_status.styleSheet()
    assert "answers use “qwen2.5:3b”" in dialog.host_status.text()
    assert dialog.pull_button.isVisible() and "llama3.2" in dialog.pull_button.text()
    dialog.host.setText("http://127.0.0.1:9")
    dialog.check_host()
    qtbot.waitUntil(lambda: dialog.status_level == "down", timeout=20_000)
    assert colors().unsupported_line in dialog.host_status.styleSheet()
    assert not dialog.pull_button.isVisible()
    dialog.host.setText(fake_ollama.url)
    dialog.model.setCurrentText("qwen2.5:3b")
    dialog.check_host()
    qtbot.waitUntil(lambda: dialog.status_level == "ok", timeout=20_000)
    assert colors().ok_fg in dialog.host_status.styleSheet()
    dialog.reject()


def test_no_chat_model_offers_a_pull_with_progress_and_cancel(
    make_gui: Any, qtbot: Any, fake_ollama: Any
) -> None:
    fake_ollama.models = ["nomic-embed-text:latest"]
    fake_ollama.reply = COPIED
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    outcome = ask(qtbot, w, QUESTION)
    assert outcome.answer.error_kind == "model_missing"
    assert w.errors.isVisible() and "ollama pull llama3.2" in w.errors.message.text()
    assert w.errors.action.isVisible() and "llama3.2" in w.errors.action.text()
    assert w.banner.level == "no_answer"

    fake_ollama.pull_delay = 0.3
    dialog = w.pull_model()
    qtbot.waitUntil(lambda: dialog.bar.maximum() == 1000, timeout=20_000)  # sizes arrived
    with wait_signal(qtbot, dialog.puller.finished, 20_000):
        dialog.button.click()  # Cancel
    assert dialog.done_ is not None and dialog.done_.cancelled
    assert "Cancelled" in dialog.detail.text() and fake_ollama.models == ["nomic-embed-text:latest"]
    dialog.accept()

    fake_ollama.pull_delay = 0.0
    with qtbot.waitSignal(w.errors.action_requested, timeout=5_000):
        w.errors.action.click()
    dialog = w.findChildren(type(dialog))[-1]
    qtbot.waitUntil(lambda: dialog.done_ is not None, timeout=20_000)
    assert dialog.done_.ok and dialog.bar.value() == 1000
    assert "llama3.2:latest" in fake_ollama.models and not w.errors.isVisible()
    dialog.accept()
    again = ask(qtbot, w, QUESTION)
    assert again.error is None and again.verdict.level == "supported"
