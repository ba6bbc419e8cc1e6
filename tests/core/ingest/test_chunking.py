"""Chunking: exact spans, limits, coverage, Markdown headings, and stability under edits."""

from __future__ import annotations

import hashlib
import random
import re
import statistics
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from app.core.ingest.chunking import MAX_CHARS, MAX_WORDS, chunk_document, chunk_text
from app.core.ingest.context import embedding_text
from app.core.text import text_hash
from app.core.types import Chunk, Document, Page

SYLLABLES = "ka lo mi ren tu sa vor e an dil po qua zen ti mar os le un ber ix".split()  # noqa: SIM905
UNICODE_WORDS = "café naïve straße Ølberg résumé δέλτα кошка 東京 😀 ½ ﬁne".split()  # noqa: SIM905
# An independent estimate of word pieces: runs of letters/digits, ideographs, other symbols.
PIECE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\W_]+|\S")


def word(rng: random.Random, unicode: bool = False) -> str:
    if unicode and rng.random() < 0.2:
        return rng.choice(UNICODE_WORDS)
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((1, 1, 2, 2, 3))))


def sentence(rng: random.Random, words: int | None = None, unicode: bool = False) -> str:
    text = " ".join(word(rng, unicode) for _ in range(words or rng.randint(5, 24)))
    return text[0].upper() + text[1:] + rng.choice(".....?!")


def paragraph(rng: random.Random, unicode: bool = False) -> str:
    return " ".join(sentence(rng, unicode=unicode) for _ in range(rng.randint(1, 5)))


def prose(rng: random.Random, paragraphs: int = 60) -> list[str]:
    return [paragraph(rng) for _ in range(paragraphs)]


def texts(seed: int) -> dict[str, str]:
    """Varied pages made from one seed: the shapes that real files take, and hostile ones."""
    rng = random.Random(seed)
    long_sentence = " ".join(word(rng) for _ in range(900)) + "."
    return {
        "prose": "\n\n".join(prose(rng, 25)),
        "unicode": "\n\n".join(paragraph(rng, unicode=True) for _ in range(25)),
        "tabs": "\n\n\t\n".join("\t" + paragraph(rng).replace(" ", "\t", 5) for _ in range(15)),
        "hard_wrapped": "\n\n".join(
            "\n".join(re.findall(r".{1,70}(?:\s|$)", paragraph(rng))) for _ in range(20)
        ),
        "long_sentence": paragraph(rng) + "\n\n" + long_sentence + "\n\n" + paragraph(rng),
        "long_token": paragraph(rng) + " " + "x" * 5000 + " " + paragraph(rng),
        "one_line_list": " ".join(f"item{i}," for i in range(2000)),
        "cjk": "東京は日本の首都です。" * 80 + "\n\n" + "中文没有空格" * 120,
        "table": "\n".join(
            f"| {rng.randint(0, 10**6):,} | {rng.random():.4f} | -{rng.randint(0, 999)}% |"
            for _ in range(300)
        ),
        "rules": "\n".join("+" + "-" * 70 + "+" for _ in range(40)),
        "blank_runs": "\n\n \n\n\n   \n".join(paragraph(rng) for _ in range(10)) + "\n\n\n   ",
        "markdown": markdown(rng),
        "single_word": "  hello  ",
        "crlf_and_form_feed": "\r\n\r\n".join(prose(rng, 8)) + "\f\n# Not md\r\n" + paragraph(rng),
    }


def markdown(rng: random.Random, sections: int = 8) -> str:
    parts = ["Intro before any heading. " + paragraph(rng)]
    for i in range(sections):
        parts.append(f"{'#' * (1 + i % 3)} Section {i}")
        parts += [paragraph(rng) for _ in range(rng.randint(0, 4))]
        if i % 3 == 1:
            parts.append("```python\n# not a heading\nx = 1\n\n# still code\n```")
    return "\n\n".join(parts)


def check(text: str, chunks: list[Chunk], max_words: int, max_chars: int) -> None:
    """Every invariant a chunk list of one page must satisfy."""
    position = 0
    for chunk in chunks:
        assert chunk.text == text[chunk.start : chunk.end]
        assert chunk.text and chunk.text == chunk.text.strip()
        assert chunk.start >= position, "chunks overlap or are out of order"
        assert not text[position : chunk.start].strip(), "text between chunks was lost"
        assert len(chunk.text) <= max_chars
        assert len(chunk.text.split()) <= max_words
        assert len(PIECE.findall(chunk.text)) <= round(max_words * 1.5)
        assert chunk.text_hash == text_hash(embedding_text(chunk.context, chunk.text))
        position = chunk.end
    assert not text[position:].strip(), "text after the last chunk was lost"


@pytest.mark.parametrize(
    ("seed", "limits"),
    [(seed, (MAX_WORDS, MAX_CHARS)) for seed in range(3)]
    + [(3, (20, 120)), (4, (20, 120)), (5, (400, 3000)), (6, (1, 7))],
)
def test_spans_are_exact_within_limits_and_cover_the_page(
    seed: int, limits: tuple[int, int]
) -> None:
    max_words, max_chars = limits
    for name, text in texts(seed).items():
        for markdown_mode in (False, True):
            chunks = chunk_text(
                text,
                path="/n.md",
                page=None,
                markdown=markdown_mode,
                max_words=max_words,
                max_chars=max_chars,
            )
            assert chunks or not text.strip(), name
            check(text, chunks, max_words, max_chars)


@pytest.mark.parametrize("text", ["", " ", "\n\n\t \n", "\u00a0\u2003\n"])
def test_empty_and_whitespace_pages_make_no_chunks(text: str) -> None:
    assert chunk_text(text, path="/a.txt", page=3) == []


def test_short_text_is_one_chunk_with_page_and_offsets() -> None:
    text = "\n\n  A short note. It fits.\n\nSecond line here.  \n"
    [chunk] = chunk_text(text, path="/a.pdf", page=2)
    assert (chunk.path, chunk.page, chunk.heading) == ("/a.pdf", 2, None)
    assert (chunk.start, chunk.end) == (4, text.rindex(".") + 1)
    assert chunk.text_hash == hashlib.blake2b(chunk.text.encode(), digest_size=16).hexdigest()


def test_long_paragraph_splits_at_sentence_ends() -> None:
    rng = random.Random(7)
    text = " ".join(sentence(rng) for _ in range(60))
    chunks = chunk_text(text, path="/a.txt", page=None)
    assert len(chunks) > 3
    assert all(chunk.text[-1] in ".?!" for chunk in chunks)


def test_long_sentence_splits_at_word_boundaries_and_long_word_is_cut() -> None:
    rng = random.Random(8)
    text = " ".join(word(rng) for _ in range(2000)) + " " + "y" * 2500
    chunks = chunk_text(text, path="/a.txt", page=None, max_words=100, max_chars=600)
    check(text, chunks, 100, 600)
    cut_word = [c for c in chunks if set(c.text) == {"y"}]
    assert [len(c.text) for c in cut_word] == [600, 600, 600, 600, 100]
    for chunk in chunks[: -len(cut_word)]:
        assert chunk.start == 0 or text[chunk.start - 1] == " "
        assert text[chunk.end] == " "


def test_huge_single_line_is_split_in_linear_time() -> None:
    rng = random.Random(9)
    line = " ".join(word(rng) for _ in range(5000))
    text = " ".join([line] * 60)  # ~1.6 MB, one line, no sentence ends
    chunks = chunk_text(text, path="/big.txt", page=None)
    check(text, chunks, MAX_WORDS, MAX_CHARS)
    assert len(chunks) > len(text) // MAX_CHARS


def test_markdown_heading_paths_and_code_fences() -> None:
    text = (
        "Preamble text.\n\n# Install\n\nGet it.\n\n## On Linux ##\nUse apt.\n\n```sh\n"
        "# not a heading\napt install it\n```\n\n~~~\n## nor this\n~~~\n\n### Notes\n\nMore.\n\n"
        "## On Mac\n\nUse brew.\n\n# Usage\n\nRun it.\n    # indented code, not a heading\n"
    )
    doc = Document("/d/readme.md", "markdown", [Page(None, text)])
    chunks = chunk_document(doc)
    check(text, chunks, MAX_WORDS, MAX_CHARS)
    assert [(c.heading, c.text.splitlines()[0]) for c in chunks] == [
        (None, "Preamble text."),
        ("Install", "# Install"),
        ("Install > On Linux", "## On Linux ##"),
        ("Install > On Linux > Notes", "### Notes"),
        ("Install > On Mac", "## On Mac"),
        ("Usage", "# Usage"),
    ]
    assert "# not a heading" in chunks[2].text and "## nor this" in chunks[2].text
    plain = chunk_document(Document("/d/readme.txt", "text", [Page(None, text)]))
    assert all(chunk.heading is None for chunk in plain)


def test_long_markdown_section_keeps_its_heading_path_in_every_chunk() -> None:
    rng = random.Random(10)
    text = "# Guide\n\n## Setup\n\n" + "\n\n".join(prose(rng, 20)) + "\n\n## Next\n\nEnd."
    chunks = chunk_text(text, path="/g.md", page=None, markdown=True)
    check(text, chunks, MAX_WORDS, MAX_CHARS)
    assert chunks[0].text.startswith("# Guide\n\n## Setup\n\n")  # an empty section joins the next
    assert {c.heading for c in chunks[:-1]} == {"Guide > Setup"}
    assert (chunks[-1].heading, chunks[-1].text) == ("Guide > Next", "## Next\n\nEnd.")


def test_pages_are_chunked_separately_with_their_numbers() -> None:
    rng = random.Random(11)
    pages = [Page(n, "\n\n".join(prose(rng, 6))) for n in (1, 2, 3)]
    chunks = chunk_document(Document("/b.pdf", "pdf", pages))
    for page in pages:
        own = [c for c in chunks if c.page == page.number]
        check(page.text, own, MAX_WORDS, MAX_CHARS)
        assert own
    assert [c.page for c in chunks] == sorted(c.page or 0 for c in chunks)


def test_typical_chunk_sizes() -> None:
    rng = random.Random(12)
    sizes = [
        len(c.text.split())
        for _ in range(5)
        for c in chunk_text("\n\n".join(prose(rng)), path="/p.txt", page=None)
    ]
    assert 60 <= statistics.median(sizes) <= 150
    assert sum(size < 25 for size in sizes) / len(sizes) < 0.05


def chunk_texts(paragraphs: list[str]) -> list[str]:
    return [c.text for c in chunk_text("\n\n".join(paragraphs), path="/p.txt", page=None)]


def changed(before: list[str], after: list[str]) -> tuple[int, int]:
    """(chunk texts that are new, chunk texts that are gone) between two versions."""
    old, new = Counter(before), Counter(after)
    return sum((new - old).values()), sum((old - new).values())


EDITS: list[Callable[[random.Random, str], str]] = [
    lambda rng, p: re.sub(r"\w+", word(rng), p, count=1),  # change a word
    lambda rng, p: p + " " + sentence(rng),  # add a sentence
    lambda rng, p: p[: p.find(". ") + 1] if ". " in p else sentence(rng) + " " + p,  # cut
]


def test_editing_one_paragraph_changes_at_most_two_chunks_usually() -> None:
    added, removed = [], []
    for seed in range(15):
        rng = random.Random(seed)
        doc = prose(rng)
        before = chunk_texts(doc)
        for index in range(10, 50, 4):
            edited = list(doc)
            edited[index] = rng.choice(EDITS)(rng, doc[index])
            new, gone = changed(before, chunk_texts(edited))
            assert new >= 1 and gone >= 1
            added.append(new)
            removed.append(gone)
    assert sum(n <= 2 for n in added) / len(added) >= 0.9
    assert sum(n <= 2 for n in removed) / len(removed) >= 0.9
    assert statistics.mean(added) <= 1.6
    assert max(added) <= 4


def test_inserting_a_paragraph_near_the_top_keeps_later_chunks() -> None:
    kept = []
    for seed in range(15):
        rng = random.Random(100 + seed)
        doc = prose(rng)
        before = chunk_texts(doc)
        after = set(chunk_texts([*doc[:2], paragraph(rng), *doc[2:]]))
        kept.append(sum(text in after for text in before) / len(before))
    assert statistics.mean(kept) >= 0.9
    assert min(kept) >= 0.8


def test_edit_in_one_markdown_section_leaves_other_sections_alone() -> None:
    rng = random.Random(13)
    sections = [[f"## Part {i}", *prose(rng, rng.randint(1, 8))] for i in range(10)]
    flat = ["\n\n".join(s) for s in sections]
    before = chunk_text("\n\n".join(flat), path="/m.md", page=None, markdown=True)
    sections[4][-1] += " " + sentence(rng)
    flat[4] = "\n\n".join(sections[4])
    after = chunk_text("\n\n".join(flat), path="/m.md", page=None, markdown=True)
    unchanged = [c.text for c in before if c.heading != "Part 4"]
    assert unchanged == [c.text for c in after if c.heading != "Part 4"]


def test_renamed_file_gives_identical_texts_and_hashes() -> None:
    text = markdown(random.Random(14))
    a = chunk_document(Document("/old/name.md", "markdown", [Page(None, text)]))
    b = chunk_document(Document("/new/other.md", "markdown", [Page(None, text)]))
    assert [(c.start, c.end, c.text, c.text_hash, c.heading) for c in a] == [
        (c.start, c.end, c.text, c.text_hash, c.heading) for c in b
    ]
    assert {c.path for c in b} == {"/new/other.md"}


def test_chunks_are_the_same_in_another_process() -> None:
    code = (
        "import random, sys; sys.path.insert(0, '.');"
        "from tests.core.ingest.test_chunking import prose;"
        "from app.core.ingest.chunking import chunk_text;"
        "text = '\\n\\n'.join(prose(random.Random(5)));"
        "print([c.text_hash for c in chunk_text(text, path='p', page=None)])"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[3],
        env={"PYTHONHASHSEED": "123"},
    )
    here = chunk_text("\n\n".join(prose(random.Random(5))), path="p", page=None)
    assert run.stdout.strip() == str([c.text_hash for c in here])


def test_rejects_non_positive_limits() -> None:
    with pytest.raises(ValueError):
        chunk_text("text", path="p", page=None, max_words=0)
