"""OCR through the product path: character accuracy, known-sentence page-first rate, pages/min.

Renders real text-PDF pages from ../shared/data/corpus (R manuals, filings) into image-only PDFs
and PNGs at 150 and 300 dpi, reads them with ``parse_file`` (the parser worker's code, OCR
included, no cache), and compares each page's OCR text with the page's original text layer:
character accuracy = 1 - edit distance / reference length, on whitespace-normalised text.
Then indexes the 300 dpi image-only PDFs in a fresh data directory and searches a sentence taken
from each page's text layer: the share whose first hit is that page. The same index built again
with the OCR cache filled gives the share of indexing time that OCR takes.

    .venv/bin/python bench/bench_ocr.py [--pages 8] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import print_table, require_data

from app.core.config import Settings
from app.core.engine import Engine
from app.core.ingest.ocr import usable_text
from app.core.ingest.parsing import ParseLimits, parse_file

TARGETS = {150: 0.94, 300: 0.97}


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, one numpy row at a time (insertions by a running minimum)."""
    if not a or not b:
        return max(len(a), len(b))
    bv = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    idx = np.arange(len(b) + 1)
    prev = idx.copy()
    av = np.frombuffer(a.encode("utf-32-le"), dtype=np.uint32)
    for i, code in enumerate(av, start=1):
        sub = prev[:-1] + (bv != code)
        row = np.empty_like(prev)
        row[0] = i
        row[1:] = np.minimum(sub, prev[1:] + 1)
        row = np.minimum.accumulate(row - idx) + idx  # insertions: row[j] <= row[j-1] + 1
        prev = row
    return int(prev[-1])


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def pick_pages(count: int, seed: int) -> list[tuple[Path, int, str]]:
    """(pdf, 0-based page, text layer) of prose-rich pages from the manuals and the filings."""
    import pymupdf

    corpus = require_data("corpus")
    rng = random.Random(seed)
    chosen: list[tuple[Path, int, str]] = []
    for folder in ("manuals", "filings"):
        pdfs = sorted((corpus / folder).glob("*.pdf"))
        rng.shuffle(pdfs)
        want = count // 2 if folder == "manuals" else count - len(chosen)
        for pdf in pdfs:
            if want <= 0:
                break
            with pymupdf.open(pdf) as doc:
                index = rng.randrange(min(doc.page_count, 60))
                text = doc[index].get_text()
                if usable_text(text) and 800 <= len(norm(text)) <= 4000:
                    chosen.append((pdf, index, text))
                    want -= 1
    return chosen


def render(pages: list[tuple[Path, int, str]], dpi: int, out: Path) -> list[Path]:
    """One image-only PDF and one PNG per page, rendered at ``dpi``."""
    import pymupdf

    files = []
    for n, (pdf, index, _) in enumerate(pages):
        with pymupdf.open(pdf) as doc:
            page = doc[index]
            pix = page.get_pixmap(dpi=dpi)
            scan = pymupdf.open()
            target = scan.new_page(width=page.rect.width, height=page.rect.height)
            target.insert_image(target.rect, pixmap=pix)
            files.append(out / f"p{n:02d}_{dpi}.pdf")
            scan.save(files[-1])
            scan.close()
            files.append(out / f"p{n:02d}_{dpi}.png")
            pix.save(files[-1])
    return files


def sentence_of(text: str, rng: random.Random) -> str:
    """A run of 10-16 words from the middle of a page's text layer."""
    words = norm(text).split()
    size = min(len(words), rng.randint(10, 16))
    start = rng.randrange(max(1, len(words) - size))
    return " ".join(words[start : start + size])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=8, help="pages to OCR at each dpi (default 8)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    pages = pick_pages(args.pages, args.seed)
    work = Path(tempfile.mkdtemp(prefix="bench-ocr-"))
    rows = []
    try:
        for dpi in (150, 300):
            folder = work / f"dpi{dpi}"
            folder.mkdir()
            files = render(pages, dpi, folder)
            for kind in ("pdf", "png"):
                accs, seconds = [], 0.0
                for path in [f for f in files if f.suffix == f".{kind}"]:
                    n = int(path.name[1:3])
                    started = time.perf_counter()
                    result = parse_file(str(path), None, ParseLimits(ocr_cache=None))
                    seconds += time.perf_counter() - started
                    assert result.error is None, (path, result.error)
                    hyp = norm(" ".join(c.text for c in result.chunks))
                    ref = norm(pages[n][2])
                    accs.append(1 - edit_distance(ref, hyp) / max(len(ref), 1))
                mean = sum(accs) / len(accs)
                rows.append(
                    [
                        f"{dpi} dpi {kind}",
                        len(accs),
                        f"{mean:.2%}",
                        f"{min(accs):.2%}",
                        f"{len(accs) / seconds * 60:.1f}",
                        f">= {TARGETS[dpi]:.0%} " + ("ok" if mean >= TARGETS[dpi] else "MISSED"),
                    ]
                )
        print_table(["input", "pages", "char acc", "worst", "pages/min", "target"], rows)
        first, index_s, cached_s = page_first(pages, work, args.seed)
        print(f"\nknown sentence finds its page first: {first:.0%} (target >= 90%)")
        share = max(0.0, index_s - cached_s) / index_s if index_s else 0.0
        print(
            f"indexing the 300 dpi scans: {index_s:.1f} s; again with OCR cached: "
            f"{cached_s:.1f} s; OCR's share of indexing time: {share:.0%}"
        )
        print(f"pages: {', '.join(f'{p.name} p{i + 1}' for p, i, _ in pages)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def page_first(
    pages: list[tuple[Path, int, str]], work: Path, seed: int
) -> tuple[float, float, float]:
    """Index the 300 dpi image-only PDFs, search a sentence of each page: the share found
    first; and the indexing time without and with the OCR cache filled."""
    docs = work / "docs"
    docs.mkdir()
    for path in (work / "dpi300").glob("*.pdf"):
        shutil.copy(path, docs / path.name)
    settings = Settings(embedding_backend="torch")
    engine = Engine(work / "data", settings=settings)
    try:
        report = engine.index([str(docs)])
        rng = random.Random(seed)
        found = 0
        for n, (_, _, text) in enumerate(pages):
            hits = engine.search(sentence_of(text, rng), 5).hits
            found += bool(hits) and Path(hits[0].path).name == f"p{n:02d}_300.pdf"
    finally:
        engine.close()
    again = Engine(work / "data2", settings=settings)
    shutil.copytree(work / "data" / "ocr-cache", work / "data2" / "ocr-cache")
    try:
        cached = again.index([str(docs)])
    finally:
        again.close()
    return found / len(pages), report.seconds, cached.seconds


if __name__ == "__main__":
    raise SystemExit(main())
