"""The Text tab reflows prose: a paragraph's hard line breaks are joined, code, tables and
lists keep their lines, and the passage's highlight still covers the passage's words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.core.types import Hit
from app.ui.reflow import reflow
from tests.ui_fixtures import wait_signal

WRAPPED = (
    "# Lighthouses\n"
    "\n"
    "The keeper climbs the tower every evening at dusk to light the lamp, and\n"
    "  winds the clockwork that turns the lens until the sun comes up again in\n"
    "the morning. The log records each night's weather.\n"
    "\n"
    "```\n"
    "lamp = Lamp(power=1000)\n"
    "lamp.light()\n"
    "```\n"
    "\n"
    "| night | weather |\n"
    "| 1     | fog     |\n"
    "\n"
    "- oil for the lamp and spare wicks for the winter months ahead of us all\n"
    "- a new glass\n"
    "\n"
    "Keeper: Ann Smith\n"
    "Since: 1921\n"
)
PASSAGE = "clockwork that turns the lens until the sun comes up again in\nthe morning. The log"


def test_prose_is_joined_and_structure_keeps_its_lines() -> None:
    shown = reflow(WRAPPED).text
    assert (
        "to light the lamp, and winds the clockwork that turns the lens until the sun comes "
        "up again in the morning. The log records each night's weather." in shown
    )
    for kept in (
        "```\nlamp = Lamp(power=1000)\nlamp.light()\n```",
        "| night | weather |\n| 1     | fog     |",
        "ahead of us all\n- a new glass",
        "Keeper: Ann Smith\nSince: 1921",
        "# Lighthouses\n\nThe keeper",
    ):
        assert kept in shown


def test_every_offset_maps_onto_the_same_character() -> None:
    flowed = reflow(WRAPPED)
    for old, char in enumerate(WRAPPED):
        if not char.isspace():
            assert flowed.text[flowed.at(old)] == char, old
    assert flowed.at(len(WRAPPED)) == len(flowed.text)


@pytest.fixture
def window(qapp: Any, tmp_path: Path) -> Iterator[Any]:
    """A window whose engine is never started: the Text tab loads files by itself."""
    from app.ui.main import build

    gui = build(tmp_path / "data", settings=Settings(ollama_host="http://127.0.0.1:9"), app=qapp)
    gui.quit_app_when_stopped = False
    gui.window.show()
    try:
        yield gui.window
    finally:
        gui.quit()
        assert gui.service.wait_stopped(60)
        gui.window.deleteLater()


def test_the_text_tab_reflows_and_the_highlight_covers_the_passage(
    window: Any, qtbot: Any, tmp_path: Path
) -> None:
    note = tmp_path / "lighthouse.md"
    note.write_text(WRAPPED, encoding="utf-8")
    start = WRAPPED.index(PASSAGE)
    hit = Hit(1, str(note), None, start, start + len(PASSAGE), PASSAGE, 0.9, "c1")
    view = window.passage
    with wait_signal(qtbot, window.service.passage_loaded, 20_000):
        view.show_source(1, hit)
    qtbot.waitUntil(lambda: "Keeper" in view.text.toPlainText())
    shown = view.text.toPlainText()
    assert "lamp, and winds the clockwork" in shown  # one paragraph, one line
    assert "lamp = Lamp(power=1000)\nlamp.light()" in shown  # code keeps its lines
    assert view.highlighted_text() == (
        "clockwork that turns the lens until the sun comes up again in the morning. The log"
    )
    view.set_strong([(PASSAGE.index("the morning"), PASSAGE.index("the morning") + 11)])
    selections = view.text.extraSelections()
    assert selections[1].cursor.selectedText() == "the morning"


COPYRIGHT = (  # the shape of /usr/share/doc/*/copyright (Debian's machine-readable format)
    "Files: debian/*\n"
    "Copyright: 1999, Leon Breedt <ljb@debian.org>\n"
    " 2005, Luk Claes <luk@debian.org>\n"
    "License: curl\n"
    "\n"
    "License: curl\n"
    " All rights reserved.\n"
    " .\n"
    " Permission to use, copy, modify, and distribute this software for any purpose\n"
    " with or without fee is hereby granted, provided that the above copyright\n"
    " notice and this permission notice appear in all copies.\n"
    " .\n"
    " 1. Redistributions of source code must retain the above copyright\n"
    "    notice, this list of conditions and the following disclaimer.\n"
    " .\n"
    "    somewhere reasonably visible in your documentation and in any relevant\n"
    "    files or online help data or similar, as the PCRE licence says of itself.\n"
)


def test_a_debian_copyright_file_reads_as_paragraphs() -> None:
    """Its licence texts were shown with their hard line breaks; its fields and entries keep
    their lines, its " ." lines are the blank lines they stand for."""
    flowed = reflow(COPYRIGHT)
    shown = flowed.text
    assert (
        " Permission to use, copy, modify, and distribute this software for any purpose with "
        "or without fee is hereby granted, provided that the above copyright notice and this "
        "permission notice appear in all copies.\n\n 1. Redistributions"
    ) in shown
    assert "must retain the above copyright notice, this list of conditions" in shown
    assert "in any relevant files or online help" in shown  # indented: a margin, not code
    assert "<ljb@debian.org>\n 2005, Luk Claes <luk@debian.org>\nLicense: curl\n" in shown
    assert "All rights reserved.\n\n Permission" in shown and " .\n" not in shown
    dots = {m.start() + 1 for m in re.finditer(r"(?m)^ \.$", COPYRIGHT)}
    for old, char in enumerate(COPYRIGHT):  # the highlight still finds each word
        if not char.isspace() and old not in dots:
            assert shown[flowed.at(old)] == char
