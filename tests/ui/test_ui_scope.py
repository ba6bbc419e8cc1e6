"""The scope control: its menus and chip, and questions in the window and quick ask that get
their passages only from within the scope (through the engine process)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import QDialogButtonBox

from app.core.search.scope import Scope, ScopeChoices
from app.ui.scope_bar import PeriodDialog, ScopeBar, period_dates
from tests.ui_fixtures import *  # noqa: F403 - the fixtures
from tests.ui_fixtures import ask, wait_ready, wait_signal

SUN = "How much sun do tomatoes need?"


def action(menu: Any, data: str) -> Any:
    """The entry of a scope menu for ``data``, as the menu shows it when it opens."""
    menu.aboutToShow.emit()
    return next(a for a in menu.actions() if a.data() == data)


def test_menus_build_the_scope_and_the_chip_shows_it(qtbot: Any) -> None:
    bar = ScopeBar()
    qtbot.addWidget(bar)
    bar.show()
    assert bar.chip.isHidden() and bar.scope().everything
    bar.set_choices(ScopeChoices(("/docs/Notes", "/docs/Work"), ("pdf", "md")))

    with qtbot.waitSignal(bar.scope_changed) as changed:
        action(bar.folders_menu, "/docs/Notes").trigger()
    assert changed.args[0] == Scope(paths=("/docs/Notes",))
    action(bar.types_menu, "pdf").trigger()
    action(bar.period_menu, "7d").trigger()
    assert bar.scope(today=date(2024, 3, 10)) == Scope(
        ("/docs/Notes",), ("pdf",), since=date(2024, 3, 4)
    )
    assert bar.chip.isVisible()
    assert bar.chip_label.text() == "In: Notes · pdf · last 7 days"
    assert action(bar.folders_menu, "/docs/Notes").isChecked()
    assert not action(bar.folders_menu, "/docs/Work").isChecked()

    action(bar.types_menu, "pdf").trigger()  # unticked
    assert bar.scope(today=date(2024, 3, 10)).types == ()
    with qtbot.waitSignal(bar.scope_changed) as cleared:
        qtbot.mouseClick(bar.clear_button, Qt.MouseButton.LeftButton)
    assert cleared.args[0].everything and bar.chip.isHidden()
    assert action(bar.period_menu, "any").isChecked()


def test_custom_period_from_its_dialog(qtbot: Any) -> None:
    bar = ScopeBar()
    qtbot.addWidget(bar)
    bar.show()
    action(bar.period_menu, "custom").trigger()
    dialog = bar._dialog
    assert isinstance(dialog, PeriodDialog) and dialog.isVisible()
    dialog.since.setDate(QDate(2024, 5, 31))  # after "to": the pair is put in order
    dialog.until.setDate(QDate(2024, 1, 1))
    dialog.use_since.setChecked(True)
    dialog.use_until.setChecked(True)
    with qtbot.waitSignal(bar.scope_changed):
        dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()
    assert bar.scope() == Scope(since=date(2024, 1, 1), until=date(2024, 5, 31))
    assert bar.chip_label.text() == "2024-01-01 – 2024-05-31"


def test_periods_count_back_from_the_day_of_the_question() -> None:
    today = date(2024, 3, 1)
    assert period_dates("7d", today) == (date(2024, 2, 24), None)
    assert period_dates("30d", today) == (date(2024, 2, 1), None)  # a leap year
    assert period_dates("year", today) == (date(2024, 1, 1), None)
    assert period_dates("any", today) == (None, None)


def test_window_asks_within_the_scope(
    make_gui: Any, qtbot: Any, fake_ollama: Any, indexed: tuple[Path, Path]
) -> None:
    corpus = indexed[0].resolve()
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    with wait_signal(qtbot, gui.service.scope_choices_listed, 20_000) as listed:
        w.scope_bar.menu.aboutToShow.emit()  # what opening the Scope menu does
    offered = listed.args[0]
    assert offered.folders == (str(corpus),) and set(offered.types) == {"md", "txt", "pdf"}

    action(w.scope_bar.types_menu, "pdf").trigger()
    assert w.scope_bar.chip.isVisible() and w.scope_bar.chip_label.text() == "pdf"
    outcome = ask(qtbot, w, SUN)  # the best passages are in garden.md, outside the scope
    hits = outcome.result.hits
    assert hits and {h.path for h in hits} == {str(corpus / "report.pdf")}
    assert w.sources.model_.rowCount() == len(hits)
    prompt = fake_ollama.chats()[-1].body["messages"][-1]["content"]
    assert "report.pdf" in prompt and "garden.md" not in prompt

    w.scope_bar.clear()
    w.scope_bar.set_folders([str(corpus / "notes")])
    w.actions_.new_thread.trigger()  # each question on its own, not a follow-up
    outcome = ask(qtbot, w, "When is the lighthouse project expected to finish?")
    assert outcome.result.hits
    assert all(h.path.startswith(str(corpus / "notes") + "/") for h in outcome.result.hits)

    w.scope_bar.clear()
    w.actions_.new_thread.trigger()
    outcome = ask(qtbot, w, SUN)
    assert outcome.result.hits[0].path == str(corpus / "notes" / "garden.md")


def test_nothing_in_scope_and_quick_ask_scope(
    make_gui: Any, qtbot: Any, fake_ollama: Any, indexed: tuple[Path, Path]
) -> None:
    corpus = indexed[0].resolve()
    gui = make_gui()
    w = gui.window
    wait_ready(qtbot, gui)
    w.scope_bar.set_period("custom", since=date(2100, 1, 1))
    outcome = ask(qtbot, w, SUN)
    assert outcome.result.hits == [] and outcome.note
    assert outcome.note.startswith("Nothing in this scope")
    assert "Nothing in this scope" in w.answer.toPlainText()
    assert fake_ollama.chats() == []

    quick = gui.show_quick_ask()
    assert quick.scope_bar.scope().everything  # each window keeps its own scope
    quick.scope_bar.set_types(["pdf"])
    quick.question.setText(SUN)
    with qtbot.waitSignal(quick.session.finished, timeout=60_000) as done:
        qtbot.keyClick(quick.question, Qt.Key.Key_Return)
    hits = done.args[0].result.hits
    assert hits and {h.path for h in hits} == {str(corpus / "report.pdf")}
    assert quick.scope_bar.chip.isVisible()
