"""Nothing a file says reaches the terminal raw: names, passages and reasons are shown visibly."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from app.cli.common import visible
from tests.helpers import footnotes

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="such names are POSIX-only")

CLEAR = "\x1b[2J\x1b[H"  # erase the screen, cursor home
TITLE = "\x1b]0;pwned\x07"  # OSC 0: the window title
LINK = "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"  # OSC 8: a hyperlink
FORGED = "\r\n[1] /home/you/notes.md  (0.990)\nSupported (0.99): strong evidence"
PLANTED = f"The orchard ledger lists forty apple trees.{CLEAR}{TITLE}{LINK}{FORGED}\u202eevil\n"
RAW = ("\x1b", "\r", "\x07", "\u202e")


def test_visible_shows_every_steering_character() -> None:
    shown = visible(PLANTED)
    assert not any(c in shown for c in RAW) and "\n" not in shown
    assert shown.startswith("The orchard ledger lists forty apple trees.␛[2J␛[H␛]0;pwned␇")
    assert "<U+202E>evil" in shown and "\\x9b" in visible("\x9b")
    assert visible("line one\nline two\x1b[A", newlines=True) == "line one\nline two␛[A"


@pytest.fixture
def planted(tmp_path: Path, cli_data_dir: Path) -> tuple[Path, Path]:
    """A folder with a file whose name and text forge screen control, and one that fails."""
    docs = tmp_path / "docs"
    docs.mkdir()
    name = f"ledger{CLEAR}{TITLE}\nSupported (0.99) fake.md"
    (docs / name).write_text(f"# Ledger\n\n{PLANTED}")
    (docs / f"broken{CLEAR}\r.pdf").write_bytes(b"%PDF-1.4 not really")
    return cli_data_dir, docs


def assert_clean(out: str) -> None:
    """No raw control character (but newlines) and no forged line in what was printed."""
    assert not any(c in out for c in RAW), repr(out)
    assert not any(line.startswith("Supported (0.99)") for line in out.splitlines()), out


@pytest.mark.slow
def test_search_status_and_index_print_file_text_visibly(planted: tuple[Path, Path]) -> None:
    data, docs = planted
    indexed = footnotes("--data-dir", str(data), "index", str(docs))
    assert "failed: " in indexed.stdout and "broken␛[2J" in indexed.stdout
    assert_clean(indexed.stdout + indexed.stderr)
    found = footnotes("--data-dir", str(data), "search", "apple trees orchard ledger")
    assert found.returncode == 0, found.stderr
    assert_clean(found.stdout)
    assert "ledger␛[2J␛[H␛]0;pwned␇␊Supported (0.99) fake.md" in found.stdout
    status = footnotes("--data-dir", str(data), "status")
    assert "broken␛[2J" in status.stdout
    assert_clean(status.stdout)
    listed = footnotes("--data-dir", str(data), "folders", "add", str(docs / "x\x1b[2J"))
    assert_clean(listed.stdout + listed.stderr)


@pytest.mark.slow
def test_json_output_keeps_the_exact_text(planted: tuple[Path, Path]) -> None:
    data, docs = planted
    footnotes("--data-dir", str(data), "index", str(docs), "--json")
    out = footnotes("--data-dir", str(data), "search", "apple trees orchard", "--json").stdout
    assert "\x1b" not in out  # JSON escapes it...
    hits = json.loads(out)["hits"]
    assert any(CLEAR in h["text"] and TITLE in h["path"] for h in hits)  # ...and keeps it exact


def test_threads_list_and_show_print_a_planted_answer_visibly(cli_data_dir: Path) -> None:
    from app.core.threads.store import ThreadStore, Turn

    store = ThreadStore(cli_data_dir / "threads.sqlite3")
    try:
        tid = store.create(f"apples{CLEAR}")
        answer = f"Forty trees [1].{FORGED}\nThe end."
        store.add_turn(tid, Turn("How many apple trees?", "apple trees", answer, model="m"))
    finally:
        store.close()
    listed = footnotes("--data-dir", str(cli_data_dir), "threads", "list")
    assert tid in listed.stdout and "apples␛[2J" in listed.stdout
    assert_clean(listed.stdout)
    shown = footnotes("--data-dir", str(cli_data_dir), "threads", "show", tid)
    assert "Forty trees [1].␍" in shown.stdout and "\nThe end." in shown.stdout
    assert not any(c in shown.stdout for c in RAW)  # an answer's own line breaks stay


@pytest.mark.slow
def test_ask_prints_passages_names_and_the_answer_visibly(planted: tuple[Path, Path]) -> None:
    """A planted passage (and a model that repeats it) cannot clear the screen or forge the
    verdict line of ``ask``; the JSON keeps the text exactly."""
    from tests.fake_ollama import FakeOllama

    data, docs = planted
    footnotes("--data-dir", str(data), "index", str(docs))
    with FakeOllama(reply=f"The ledger lists forty apple trees [1].{CLEAR}{FORGED}") as fake:
        shown = footnotes(
            "--data-dir", str(data), "--ollama-host", fake.url, "ask", "how many apple trees?"
        )
        assert shown.returncode == 0, shown.stderr
        out_text = shown.stdout + shown.stderr
        assert not any(c in out_text for c in RAW), repr(out_text)
        # The real verdict stays the first line; a line the model copied from the passage is
        # part of the answer below it, and nothing can erase or overwrite what came before.
        assert shown.stdout.splitlines()[0].startswith("Supported (retrieval strong")
        assert "ledger␛[2J␛[H" in shown.stdout  # the file's name, shown
        out = footnotes(
            "--data-dir", str(data), "--ollama-host", fake.url, "ask", "apple trees?", "--json"
        )
    assert CLEAR in json.loads(out.stdout)["answer"]
