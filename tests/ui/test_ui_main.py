"""The main window driven offscreen: ask, stream, cite, verdict, safety, cancel, geometry."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from app.core.ask import Done, Ending, Piece
from app.ui.theme import colors
from tests.ui_fixtures import *  # noqa: F403 - the fixtures
from tests.ui_fixtures import anchor_point, ask, fragments, wait_ready, wait_signal


def test_window_appears_before_the_engine_is_ready(make_gui: Any, qtbot: Any) -> None:
    gui = make_gui()
    assert "Footnotes" in gui.window.windowTitle()
    assert gui.window.isVisible()
    assert gui.window.question.isEnabled()  # typing works while the model loads
    wait_ready(qtbot, gui)


def test_ask_streams_then_citation_shows_source_two(make_gui: Any, qtbot: Any) -> None:
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    renders: list[str] = []
    w.answer.textChanged.connect(lambda: renders.append(w.answer.toPlainText()))
    # a question about both notes: both are sent (the passages are chosen by evidence)
    outcome = ask(qtbot, w, "What does the garden note say about tomatoes and compost?")

    assert outcome.error is None and outcome.answer is not None
    partial = [r for r in renders if r and len(r) < len(outcome.answer.text) - 5]
    assert partial, "the answer was not shown while it streamed"
    assert "Tomatoes need six hours" in w.answer.toPlainText()
    hrefs = {f.anchorHref() for f in fragments(w.answer) if f.isAnchor()}
    assert hrefs == {"cite:1", "cite:2"}

    hit2 = w.sources.model_.hit(2)
    assert hit2 is not None
    with wait_signal(qtbot, gui.service.passage_loaded, 20_000):
        qtbot.mouseClick(
            w.answer.viewport(), Qt.MouseButton.LeftButton, pos=anchor_point(w.answer, "cite:2")
        )
    assert w.sources.current() == 2
    assert w.passage.n == 2 and w.passage.hit == hit2
    qtbot.waitUntil(lambda: w.passage.highlighted_text() == hit2.text, timeout=10_000)
    selection = w.passage.text.extraSelections()[0]
    assert selection.format.background().color().name() == colors().passage_bg
    assert w.passage.text.toPlainText() != hit2.text or hit2.start == 0  # shown in context

    # each row says what its passage begins with (passages of one page look alike otherwise),
    # and its tooltip what the bar beside it measures
    rows = w.sources.model_.rows
    assert [r.gist for r in rows] == [" ".join(r.hit.text.split()[:30]) for r in rows]
    assert len({r.gist for r in rows}) == len(rows)
    tip = w.sources.model_.data(w.sources.model_.index(0), Qt.ItemDataRole.ToolTipRole)
    assert "similarity to the question" in tip


def test_unsupported_sentence_marked_and_hover_highlights_support(
    make_gui: Any, qtbot: Any
) -> None:
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    outcome = ask(qtbot, w, "What does the garden note say about tomatoes and compost?")
    marks = outcome.answer.sentences
    assert [m.supported for m in marks] == [True, True, False]
    start, _ = w.answer.sentence_range(2)
    cursor = w.answer.textCursor()
    cursor.setPosition(start + 2)
    fmt = cursor.charFormat()
    assert fmt.underlineStyle() == fmt.UnderlineStyle.WaveUnderline
    assert fmt.background().color().name() == colors().unsupported_bg
    assert "2 of 3" not in w.status.label.text()
    assert "1 of 3 sentences is not backed by your files" in w.status.label.text()

    supporting = marks[0].support_spans[0][0]
    w.show_source(supporting)
    qtbot.waitUntil(lambda: w.passage.n == supporting)
    w.answer.hover_sentence(0)  # what the pointer does over the first sentence
    strong = [s for s in w.passage.text.extraSelections()[1:]]
    assert strong, "the supporting span was not highlighted more strongly"
    n, s, e = marks[0].support_spans[0]
    hit = w.sources.model_.hit(n)
    assert strong[0].cursor.selectedText() == hit.text[s:e]
    w.answer.hover_sentence(-1)
    assert len(w.passage.text.extraSelections()) == 1


def test_off_topic_question_shows_unsupported_banner(
    make_gui: Any, qtbot: Any, fake_ollama: Any
) -> None:
    fake_ollama.reply = "An unladen swallow flies at eleven metres per second [1]."
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    ask(qtbot, w, "What is the airspeed velocity of an unladen swallow?")
    assert w.banner.isVisible()
    assert w.banner.title.text().endswith("Unsupported by your files")
    assert w.banner.reason.text()  # the plain-words reason
    assert w.banner.supported is False


def test_refuse_mode_does_not_ask_the_model(make_gui: Any, qtbot: Any, fake_ollama: Any) -> None:
    gui = make_gui(unsupported_mode="refuse")
    w = gui.window
    wait_ready(qtbot, gui)
    outcome = ask(qtbot, w, "Who won the 1998 football world cup?")
    assert outcome.note and "not asked" in outcome.note
    assert fake_ollama.chats() == []
    assert "Not answered" in w.answer.toPlainText()
    assert w.sources.model_.rowCount() > 0  # the closest passages are still listed


def test_html_in_documents_and_answers_is_inert(
    make_gui: Any, qtbot: Any, fake_ollama: Any
) -> None:
    fake_ollama.reply = (
        'The hangar report mentions zeppelins [1]. <img src="file:///etc/hosts"> '
        "[see](javascript:alert(1)) <a href='file:///etc/passwd'>x</a> [7]."
    )
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    ask(qtbot, w, "What does the zeppelin hangar report say?")
    formats = fragments(w.answer)
    assert not any(f.isImageFormat() for f in formats)
    assert {f.anchorHref() for f in formats if f.isAnchor()} == {"cite:1"}
    assert '<img src="file:///etc/hosts">' in w.answer.toPlainText()
    row = next(r for r in w.sources.model_.rows if r.hit.path.endswith("odd.md"))
    w.show_source(row.n)
    qtbot.waitUntil(lambda: w.passage.hit is row.hit)
    text = w.passage.text.toPlainText()
    assert '<a href="file:///etc/passwd">click here</a>' in text  # shown as text
    tip = w.sources.model_.data(w.sources.model_.index(row.n - 1), Qt.ItemDataRole.ToolTipRole)
    assert "<img" not in tip and "<a " not in tip


def test_errors_appear_in_the_window(make_gui: Any, qtbot: Any) -> None:
    gui = make_gui(ollama_host="http://127.0.0.1:9")  # nothing listens there
    w = gui.window
    wait_ready(qtbot, gui)
    outcome = ask(qtbot, w, "How much sun do tomatoes need?")
    assert outcome.error
    assert w.errors.isVisible() and "Ollama" in w.errors.message.text()
    assert w.sources.model_.rowCount() > 0
    # said once, in the error bar: the banner blames neither the files nor repeats it, and
    # with no answer no source is "not used in the answer"
    assert w.banner.title.text() == "No answer came back" and not w.banner.reason.isVisible()
    assert all(row.mark() == ("", "muted_fg") for row in w.sources.model_.rows)
    assert w.status.label.text() != "Ready."
    # new settings may fix it: the bar goes, and the next question says whether it stands
    with wait_signal(qtbot, gui.service.settings_applied, 10_000):
        gui.service.apply_settings(gui.service.settings)
    assert not w.errors.isVisible()


def test_escape_cancels_and_new_question_replaces_old(
    make_gui: Any, qtbot: Any, fake_ollama: Any
) -> None:
    fake_ollama.stall_after = 3
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    w.question.setText("How much sun do tomatoes need?")
    with qtbot.waitSignal(w.session.finished, timeout=30_000) as blocker:
        qtbot.keyClick(w.question, Qt.Key.Key_Return)
        qtbot.waitUntil(fake_ollama.stalled.is_set, timeout=30_000)
        qtbot.keyClick(w.question, Qt.Key.Key_Escape)
    assert blocker.args[0].cancelled
    assert "Stopped." in w.answer.toPlainText()
    assert w.banner.supported is not True  # a stopped answer is never shown green
    assert "✓" not in w.banner.title.text()

    fake_ollama.stall_after = None
    fake_ollama.token_delay = 0.2
    done: list[Any] = []
    pieces: list[Any] = []

    def collect(update: Any) -> None:
        if isinstance(update.event, Done):
            done.append(update)
        elif isinstance(update.event, Piece):
            pieces.append(update)

    gui.service.ask_updated.connect(collect)
    w.question.setText("What does compost want?")
    qtbot.keyClick(w.question, Qt.Key.Key_Return)
    first = w.session.token
    qtbot.waitUntil(lambda: any(p.token == first for p in pieces), timeout=30_000)
    fake_ollama.token_delay = 0.0
    outcome = ask(qtbot, w, "When will the lighthouse project finish?")
    assert not outcome.cancelled and outcome.answer.text
    qtbot.waitUntil(lambda: any(d.token == first for d in done), timeout=30_000)
    ended = next(d for d in done if d.token == first).event.outcome
    assert ended.ending is Ending.CANCELLED  # the new question won


def test_history_and_geometry_are_remembered(make_gui: Any, qtbot: Any, tmp_path: Any) -> None:
    gui = make_gui("remember")
    w = gui.window
    wait_ready(qtbot, gui)
    ask(qtbot, w, "How much sun do tomatoes need?")
    w.resize(760, 503)
    size = w.size()
    w.question.clear()
    qtbot.keyClick(w.question, Qt.Key.Key_Up)
    assert w.question.text() == "How much sun do tomatoes need?"
    qtbot.keyClick(w.question, Qt.Key.Key_Down)
    assert w.question.text() == ""
    gui.quit()  # saves the geometry; one writer per data directory
    assert gui.service.wait_stopped(60)
    assert (tmp_path / "remember" / "ui.ini").exists()

    again = make_gui("remember")
    assert size.height() == 503 and again.window.size().height() == 503  # width: screen-bound
    assert again.window.question.history[-1] == "How much sun do tomatoes need?"
    wait_ready(qtbot, again)


def test_an_answer_cut_short_is_kept_and_marked_incomplete(
    make_gui: Any, qtbot: Any, fake_ollama: Any
) -> None:
    fake_ollama.close_after = 6  # the server drops the connection after six pieces
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    outcome = ask(qtbot, w, "How much sun do tomatoes need?")
    assert outcome.error and outcome.answer is not None and outcome.answer.partial
    shown = w.answer.toPlainText()
    assert outcome.answer.text.strip() and outcome.answer.text.strip()[:20] in shown
    assert "incomplete" in shown and w.errors.isVisible()
