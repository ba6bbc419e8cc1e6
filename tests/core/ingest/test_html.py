"""HTML to the visible text of the page, laid out as a browser would in plain text."""

from __future__ import annotations

from app.core.ingest.html import html_to_text

PAGE = (
    "<html><head><title>Tab title</title><style>p { color: red }</style></head><body>"
    "<h1>Heading</h1><p>One  two\nthree</p><p>Four<br>five</p>"
    "<script>alert('hidden')</script>"
    "<table><tr><td>cell a</td><td>cell b</td></tr></table>"
    "<pre>  x = 1\n    y = 2</pre>"
    "<p>&amp; &lt;b&gt; tea&nbsp;time</p></body></html>"
)


def test_blocks_are_paragraphs_and_breaks_are_lines() -> None:
    text = html_to_text(PAGE)
    assert text.startswith("Heading\n\nOne two three\n\nFour\nfive\n\n")


def test_what_a_browser_does_not_show_is_left_out() -> None:
    text = html_to_text(PAGE)
    assert "Tab title" not in text and "color" not in text and "hidden" not in text
    assert html_to_text("<noscript>no</noscript><template>t</template>ok") == "ok"


def test_cells_are_one_row_a_line_preformatted_text_kept_and_entities_decoded() -> None:
    text = html_to_text(PAGE)
    assert "\n\ncell a | cell b\n\n" in text  # a table is a block of its own
    assert "  x = 1\n    y = 2" in text
    assert text.endswith("& <b> tea\u00a0time")  # a no-break space stays one


def test_body_content_ends_a_head_left_open() -> None:
    page = "<head><meta charset=utf-8><p>body without a closed head</p>"
    assert html_to_text(page) == "body without a closed head"


def test_a_carriage_return_entity_comes_back_as_no_cr() -> None:
    assert "\r" not in html_to_text("<pre>a&#13;\nb</pre>")
