"""Answer Markdown for the answer pane: headings kept small (HTML stays inert: test_ui_main)."""

from __future__ import annotations

from app.ui.markup import render_answer


def test_a_quoted_heading_is_a_bold_line_not_a_title() -> None:
    html = render_answer("# Sourdough starter\n\nFeed it daily [1].\n\n## Flour\nRye works.", 1)
    assert "<h1" not in html and "<h2" not in html
    assert "<p><b>Sourdough starter</b></p>" in html and "<p><b>Flour</b></p>" in html
    assert '<a href="cite:1">[1]</a>' in html
