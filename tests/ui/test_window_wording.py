"""What the window says of itself: titles that name the app once, every shortcut in the sheet,
and an export file name a person recognises (the thread's title)."""

from __future__ import annotations

from app.ui.menus import SHORTCUTS
from app.ui.thread_control import export_name


def test_the_shortcut_sheet_lists_f8() -> None:
    keys = [key for key, _ in SHORTCUTS]
    assert "F8" in keys


def test_the_export_proposes_the_threads_title() -> None:
    assert export_name("What is capital expenditure?", "t-81f2") == "What is capital expenditure.md"
    assert export_name("a/b: c*d", "t-1") == "a b c d.md"  # no character a file system refuses
    assert export_name("", "t-81f2") == "footnotes-t-81f2.md"


def test_dialog_titles_leave_the_app_name_to_qt(qapp, tmp_path) -> None:
    from PySide6.QtCore import QSettings

    from app.core.config import Settings
    from app.ui.main import build
    from app.ui.settings_dialog import SettingsDialog

    gui = build(tmp_path / "data", settings=Settings(ollama_host="http://127.0.0.1:9"), app=qapp)
    gui.quit_app_when_stopped = False
    try:
        ini = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
        dialog = SettingsDialog(gui.service, ini)
        assert dialog.windowTitle() == "Settings"  # Qt shows "Settings — Footnotes", once
        dialog.deleteLater()
        quick = gui.show_quick_ask()
        assert quick.windowTitle() == "Quick ask"  # not "Footnotes — Quick ask — Footnotes"
        quick.hide()
    finally:
        gui.quit()
        assert gui.service.wait_stopped(60)
        gui.window.deleteLater()


def test_the_first_ctrl_h_shows_the_history_tab_behind_folders(qapp, qtbot, tmp_path) -> None:
    from app.core.config import Settings
    from app.ui.main import build
    from app.ui.side_docks import in_front

    gui = build(tmp_path / "data", settings=Settings(ollama_host="http://127.0.0.1:9"), app=qapp)
    gui.quit_app_when_stopped = False
    window = gui.window
    try:
        window.show()
        qtbot.waitExposed(window)
        docks = window.docks
        assert in_front(docks.folders) and not in_front(docks.history)  # History: a tab behind
        window.actions_.toggle_history.trigger()
        qtbot.waitUntil(lambda: in_front(docks.history))
        assert docks.history.isVisible()
        window.actions_.toggle_folders.trigger()  # Folders is behind now: it comes to the front
        qtbot.waitUntil(lambda: in_front(docks.folders))
        window.actions_.toggle_folders.trigger()  # in front: hidden
        qtbot.waitUntil(lambda: not docks.folders.isVisible())
    finally:
        gui.quit()
        assert gui.service.wait_stopped(60)
        window.close()
        window.deleteLater()


def test_the_sources_list_says_which_passages_the_model_read_in_part_or_not_at_all(qapp) -> None:
    """After an answer over a long page cut to its lines about the question, the list says
    so of that page, and says a passage left out was not sent (not that the context was
    full, which is seldom why)."""
    from PySide6.QtCore import Qt

    from app.core.ask import source_usage
    from app.core.prompt.answering import Answer, Source
    from app.core.types import Hit
    from app.ui.sources_panel import SourcesModel

    hits = [
        Hit(i, f"/d/{i}.md", None, 0, 40, f"Passage {i} of the cash flow statement.", 0.9, f"c{i}")
        for i in (1, 2, 3)
    ]
    answer = Answer(
        "Capital spending rose [2].", "m", [Source(1, hits[0]), Source(2, hits[1], ((0, 9),))]
    )
    usage = source_usage(answer, None)
    assert usage is not None and usage.read_in_part == {2}
    model = SourcesModel()
    model.set_hits(hits)
    model.set_usage(usage)
    tips = [model.data(model.index(i), Qt.ItemDataRole.ToolTipRole) for i in range(3)]
    assert "read only part of it" in tips[1]
    assert "read only" not in tips[0] and "read only" not in tips[2]
    assert model.rows[2].mark()[0] == "not sent to the model"


def test_a_turn_reopened_from_the_history_knows_which_source_was_read_in_part() -> None:
    from app.core.ask import source_usage
    from app.core.threads.store import StoredSource, Turn
    from app.ui.stored_turn import outcome_from_turn

    text = "Purchases of property, plant and equipment\n(1,577)\n(1,373)\nDividends paid\n(3,193)"
    sources = [
        StoredSource(1, "/d/a.md", None, 0, 20, "The cash flow statement.", "h1"),
        StoredSource(2, "/d/b.pdf", 51, 0, len(text), text, "h2", None, [[0, 58]]),
    ]
    turn = Turn("Capex?", "capex", "It was 1,577 [2].", sources, {"level": "supported"}, n=1)
    state = outcome_from_turn(turn, "t-1")
    assert state.answer is not None
    assert [s.sent for s in state.answer.sources] == [None, ((0, 58),)]
    usage = source_usage(state.answer, state.verdict)
    assert usage is not None and usage.read_in_part == {2}
