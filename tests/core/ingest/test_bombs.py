"""Decompression bombs in every container the loaders open (.docx, .epub, .gz) are refused as
they are inflated, with a sentence, and the reader's memory stays small.

The probe's .docx of 1.2 MB whose ``word/document.xml`` inflates to 1.2 GB took the reader to
2.4-3.1 GB before it was called "not a valid Word document"; an .epub the same way to 1.3 GB.
"""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from app.core.ingest.containers import MAX_PART, check_zip
from app.core.ingest.failures import FailureKind, LoadError
from app.core.ingest.parsing import ParseLimits, parse_file

REPO = Path(__file__).resolve().parents[3]
LIMITS = ParseLimits(max_bytes=100_000_000)
PARA = b"<w:p><w:r><w:t>" + b"A" * 4000 + b"</w:t></w:r></w:p>"


def make_docx_bytes(paragraphs: list[str]) -> bytes:
    """A real .docx made by python-docx."""
    import docx

    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def docx_bomb(path: Path, inflated: int) -> Path:
    """A real .docx whose document.xml inflates to ``inflated`` bytes (of one long word)."""
    real = zipfile.ZipFile(io.BytesIO(make_docx_bytes(["Kiln"])))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name in real.namelist():
            if name != "word/document.xml":
                z.writestr(name, real.read(name))
        with z.open("word/document.xml", "w", force_zip64=True) as fh:
            fh.write(
                b'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.'
                b'openxmlformats.org/wordprocessingml/2006/main"><w:body>'
            )
            for _ in range(inflated // (len(PARA) * 256) + 1):
                fh.write(PARA * 256)
            fh.write(b"</w:body></w:document>")
    return path


def epub_bomb(path: Path, inflated: int) -> Path:
    """A real .epub whose one chapter inflates to ``inflated`` bytes."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        z.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
            'opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" '
            'media-type="application/oebps-package+xml"/></rootfiles></container>',
        )
        z.writestr(
            "content.opf",
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0" '
            'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
            '<dc:title>Bomb</dc:title><dc:identifier id="id">x</dc:identifier></metadata>'
            '<manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>'
            '</manifest><spine><itemref idref="c1"/></spine></package>',
        )
        with z.open("c1.xhtml", "w", force_zip64=True) as fh:
            fh.write(b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body>')
            para = b"<p>" + b"A " * 2000 + b"</p>"
            for _ in range(inflated // (len(para) * 256) + 1):
                fh.write(para * 256)
            fh.write(b"</body></html>")
    return path


def gz_bomb(path: Path, inflated: int) -> Path:
    with gzip.open(path, "wb", compresslevel=9) as fh:
        block = b"A" * (1 << 20)
        for _ in range(inflated >> 20):
            fh.write(block)
    return path


@pytest.mark.parametrize("make, name", [(docx_bomb, "bomb.docx"), (epub_bomb, "bomb.epub")])
def test_a_zip_container_whose_part_inflates_past_the_cap_is_a_bomb(
    tmp_path: Path, make, name: str
) -> None:
    bomb = make(tmp_path / name, MAX_PART + (1 << 20))
    assert bomb.stat().st_size < 200_000  # small on disk: only its content is over
    result = parse_file(str(bomb), None, LIMITS)
    assert result.error_kind is FailureKind.TOO_LARGE, result.error
    assert "may be a decompression bomb" in (result.error or "")
    assert "inflates to more than 200 times its packed size" in (result.error or "")


def test_the_total_of_all_parts_is_capped_by_the_file_size_limit() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(5):
            z.writestr(f"word/media/image{i}.png", bytes(3_000_000))  # media: no ratio cap
    check_zip(buf.getvalue(), "Word (.docx) document", cap=20_000_000)  # 15 MB: fine
    with pytest.raises(LoadError, match="more than 10 MB, the file size limit") as err:
        check_zip(buf.getvalue(), "Word (.docx) document", cap=10_000_000)
    assert err.value.kind is FailureKind.TOO_LARGE


def test_a_gzip_that_inflates_far_past_any_texts_ratio_is_a_bomb(tmp_path: Path) -> None:
    bomb = gz_bomb(tmp_path / "notes.txt.gz", 40 << 20)  # 40 MB of one letter in ~40 KB
    result = parse_file(str(bomb), None, LIMITS)
    assert result.error_kind is FailureKind.TOO_LARGE
    assert "may be a decompression bomb" in (result.error or ""), result.error


def test_real_documents_still_pass(tmp_path: Path) -> None:
    docx = tmp_path / "kiln.docx"
    docx.write_bytes(make_docx_bytes(["The pottery kiln fires at 1240 degrees."]))
    result = parse_file(str(docx), None, LIMITS)
    assert result.error is None and "1240 degrees" in result.chunks[0].text


MEASURE = """
import json, resource, sys
from app.core.ingest.parsing import ParseLimits
from app.core.ingest.reader_pool import ParserPool
pool = ParserPool(ParseLimits(max_bytes=100_000_000))
results = list(pool.parse_many([(p, None) for p in sys.argv[1:]]))
pool.close()
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"peak_mb": peak_kb / 1024, "errors": [r.error for r in results]}))
"""


@pytest.mark.slow  # builds three bombs of 1.2 GB (about 20 s) and reads them in a worker
def test_the_probes_bombs_keep_the_reader_under_600_mb(tmp_path: Path) -> None:
    size = 1_200_000_000
    bombs = [
        docx_bomb(tmp_path / "bomb.docx", size),
        epub_bomb(tmp_path / "bomb.epub", size),
        gz_bomb(tmp_path / "bomb.txt.gz", size),
    ]
    assert all(b.stat().st_size < 2_000_000 for b in bombs)
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *map(str, bombs)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=280,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert all("decompression bomb" in (e or "") for e in out["errors"]), out["errors"]
    assert out["peak_mb"] < 600, out  # the reader process (3 GB for the .docx before)
