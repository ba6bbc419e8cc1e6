"""Small generated fixtures shared by tests (no dependency on ../shared/data)."""

from __future__ import annotations

import io
import os
import random
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

WORDS = [
    "river",
    "stone",
    "lantern",
    "copper",
    "orchard",
    "meadow",
    "harbor",
    "signal",
    "violet",
    "thunder",
    "glacier",
    "ember",
    "compass",
    "falcon",
    "marble",
    "saffron",
    "timber",
    "velvet",
    "quartz",
    "canyon",
    "harvest",
    "beacon",
    "willow",
    "tundra",
    "mosaic",
    "nectar",
    "prairie",
    "summit",
    "cobalt",
    "juniper",
    "pebble",
    "lagoon",
    "ridge",
    "tapestry",
    "fjord",
    "cedar",
]


def paragraph(rng: random.Random, words: int = 60) -> str:
    """A sentence-structured paragraph of made-up but distinct text."""
    out, sentence = [], []
    for i in range(words):
        sentence.append(rng.choice(WORDS))
        if len(sentence) >= rng.randint(8, 16) or i == words - 1:
            out.append(" ".join(sentence).capitalize() + ".")
            sentence = []
    return " ".join(out)


def long_markdown(seed: int = 1, paragraphs: int = 40) -> str:
    rng = random.Random(seed)
    parts = ["# Field notes"]
    for i in range(paragraphs):
        if i % 8 == 0:
            parts.append(f"## Section {i // 8 + 1}")
        parts.append(paragraph(rng, rng.randint(30, 90)))
    return "\n\n".join(parts) + "\n"


def make_pdf(path: Path, pages: list[str], *, user_pw: str | None = None) -> Path:
    """A real PDF with one text block per page (optionally encrypted)."""
    import pymupdf

    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), text, fontsize=11)
    kwargs = {}
    if user_pw is not None:
        kwargs = dict(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw=user_pw)
    doc.save(path, **kwargs)
    doc.close()
    return path


def make_corpus(root: Path) -> Path:
    """A small 'my documents' tree: notes, a PDF, HTML, a binary impostor, an ignored folder."""
    rng = random.Random(7)
    (root / "notes" / "deep").mkdir(parents=True)
    (root / "notes" / "garden.md").write_text(
        "# Garden\n\n## Tomatoes\n\nTomatoes need six hours of direct sun and deep watering "
        "twice a week. Pinch the suckers to keep the plant productive.\n\n## Compost\n\n"
        "A compost heap wants a balance of green nitrogen material and brown carbon material.\n"
    )
    (root / "notes" / "long.md").write_text(long_markdown())
    (root / "notes" / "deep" / "bikes.txt").write_text(
        "The chain on a road bicycle should be replaced every three thousand kilometres.\n\n"
        + paragraph(rng, 80)
        + "\n"
    )
    (root / "notes" / "page.html").write_text(
        "<html><head><title>t</title><style>body{color:red}</style></head><body>"
        "<h1>Sourdough</h1><p>A sourdough starter is fed with equal weights of flour and water"
        " every twelve hours.</p><script>alert('x')</script></body></html>"
    )
    make_pdf(
        root / "report.pdf",
        [
            "Quarterly report. Revenue grew to 4.2 million dollars in the third quarter.",
            "Outlook. The company expects the lighthouse project to finish in March.",
        ],
    )
    (root / "broken.md").write_bytes(b"\x00\x01\x02binary\x00data" * 50)
    (root / ".git").mkdir()
    (root / ".git" / "config.txt").write_text("ignored because hidden")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "readme.md").write_text("ignored dependency docs")
    (root / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(100))
    return root


def eventually(
    check: Callable[[], Any], what: str, timeout: float = 20.0, every: float = 0.05
) -> Any:
    """Poll ``check`` until it returns something truthy; fail after ``timeout`` seconds.

    A wait for something that must happen (a watcher event, a worker reaching a point), with a
    generous limit so a slow machine is not mistaken for a bug; never a speed check.
    """
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached within {timeout:g} s: {what}")
        time.sleep(every)


@contextmanager
def environment_kept() -> Iterator[None]:
    """Undo, on leaving, what the code inside changed in ``os.environ`` (loading the embedding
    model points the Hugging Face caches into its models folder)."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        for key in [k for k in os.environ if k not in saved]:
            del os.environ[key]
        for key, value in saved.items():
            if os.environ.get(key) != value:
                os.environ[key] = value


def footnotes(*args: str) -> subprocess.CompletedProcess[str]:
    """``footnotes ARGS`` run in this process, reported as a finished process would be.

    The exit status is ``main``'s return value (or argparse's ``SystemExit`` code); stdout and
    stderr are what the command printed. Torch and Chroma load once per test session instead of
    once per command.
    """
    from app.cli import main

    out, err = io.StringIO(), io.StringIO()
    with environment_kept(), redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # usage errors (2) and --version (0) exit from argparse
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())
