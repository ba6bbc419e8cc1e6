"""A generated hostile corpus: every kind of file that breaks other indexers, built in tmp_path.

``build(root)`` writes the files and returns one ``Case`` per file (or folder) with the outcome
the indexer must record for it: ``"indexed"``, or a fragment of the failure reason. Nothing here
is committed as a binary; large files are sparse or written in one pass, and the 10,000-page PDF
shares one content stream across its page objects so it builds in about two seconds.
"""

from __future__ import annotations

import io
import os
import random
import stat
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from tests.helpers import make_pdf, paragraph

INDEXED = "indexed"
ABSENT = "absent"  # no record: it lies in a folder that could not be listed
MB = 1_000_000
PAGE_WORDS = "Hostile corpus page"
DEEP_LEVELS = 60
PATH_MAX = os.pathconf("/", "PC_PATH_MAX")


LEGACY_TEXT = {
    "cp1251": "Москва — столица России. Город основан в двенадцатом веке князем Юрием "
    "Долгоруким. Сегодня здесь работают театры, музеи и университеты.\n",
    "shift_jis": "東京は日本の首都です。江戸時代には将軍の城下町として栄えました。"
    "現在では世界有数の大都市です。\n",
    "gb18030": "北京是中华人民共和国的首都。这座城市有三千多年的历史，故宫和长城吸引了无数游客。\n",
}
LEGACY_TEXTS = {"cp1251.txt": "cp1251", "shift_jis.md": "shift_jis", "gb18030.txt": "gb18030"}
# No encoding reads all of it: indexed (cp1252) with a warning that ``status`` lists.
MIXED_ENCODINGS = (
    b"Quillfeather ledger. "
    + "Москва столица".encode("cp1251")
    + b" "
    + "東京は日本の首都です".encode("shift_jis")
    + b" "
    + "北京是中国的首都".encode("gb18030")
    + b" and the Br\xfccke.\n"
)


@dataclass(frozen=True)
class Case:
    """One hostile file or folder and the outcome the index must record for it."""

    name: str
    path: str  # as the scanner sees it (os.fsdecode form: undecodable bytes as surrogates)
    expect: str  # INDEXED, ABSENT, or a fragment of the recorded failure reason
    as_root: str | None = None  # the outcome for a process that ignores file permissions

    def outcome(self, privileged: bool) -> str:
        return self.as_root if privileged and self.as_root is not None else self.expect


def fs_path(root: Path, raw: bytes) -> str:
    """The str form of ``root/raw`` for a file name that need not be valid UTF-8."""
    return os.fsdecode(os.path.join(os.fsencode(root), raw))


def pdf_bytes(tmp: Path, pages: int = 3, seed: int = 3) -> bytes:
    """A real multi-page PDF made by PyMuPDF."""
    rng = random.Random(seed)
    make_pdf(tmp, [paragraph(rng, 120) for _ in range(pages)])
    data = tmp.read_bytes()
    tmp.unlink()
    return data


def many_page_pdf(path: Path, count: int) -> Path:
    """A valid PDF of ``count`` pages whose page objects share one content stream."""
    import pymupdf

    doc = pymupdf.open()
    first = doc.new_page(width=200, height=200)
    first.insert_text((20, 40), PAGE_WORDS)
    contents = doc.xref_get_key(first.xref, "Contents")[1]
    resources = doc.xref_get_key(first.xref, "Resources")[1]
    parent = doc.xref_get_key(first.xref, "Parent")[1]
    kids = [f"{first.xref} 0 R"]
    for _ in range(count - 1):  # raw objects: new_page() re-balances the page tree each time
        xref = doc.get_new_xref()
        doc.update_object(
            xref,
            f"<</Type/Page/Parent {parent}/MediaBox[0 0 200 200]"
            f"/Contents {contents}/Resources {resources}>>",
        )
        kids.append(f"{xref} 0 R")
    pages_xref = int(parent.split()[0])
    doc.xref_set_key(pages_xref, "Kids", "[" + " ".join(kids) + "]")
    doc.xref_set_key(pages_xref, "Count", str(count))
    path.write_bytes(doc.tobytes())
    doc.close()
    return path


def sparse_file(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no disk space (a hole)."""
    with path.open("wb") as fh:
        fh.truncate(size)
    return path


def one_line(path: Path, size: int) -> Path:
    """A single line of words, ``size`` bytes long, with no newline anywhere."""
    unit = b"river stone lantern copper orchard meadow harbor signal violet thunder. "
    path.write_bytes((unit * (size // len(unit) + 1))[:size])
    return path


def nest(root: Path, levels: int, name: str = "d") -> Path:
    """``levels`` folders, one inside the other."""
    folder = root.joinpath(*[f"{name}{i:02d}" for i in range(levels)])
    folder.mkdir(parents=True)
    return folder


def too_deep(root: Path, levels: int = 40) -> str:
    """Folders nested past PATH_MAX (built with dir_fd), holding one note; returns the top."""
    top = root / "too_deep"
    top.mkdir()
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    name = "n" * 200
    try:
        for _ in range(levels):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        note = os.open("note.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(note, b"A note buried deeper than any path can name.\n")
        os.close(note)
    finally:
        os.close(fd)
    path = str(top)
    while len(os.fsencode(path)) < PATH_MAX:  # the first folder whose path is too long to use
        path = os.path.join(path, name)
    return path


def png_of_zeros(width: int, height: int) -> bytes:
    """A valid 8-bit greyscale PNG of ``width`` x ``height`` black pixels: tiny on disk, huge
    once decoded (20000 x 20000 is 400 MB; claimed sizes past that make a decompression bomb)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    packer = zlib.compressobj(9)
    row = bytes(width + 1)  # filter byte + pixels
    rows = min(height, max(1, 40_000_000 // width))  # may stop short: the header must refuse it
    idat = b"".join(packer.compress(row) for _ in range(rows)) + packer.flush()
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def image_bytes(fmt: str, frames: int = 1, text: str = "") -> bytes:
    """An image in ``fmt`` (Pillow), white, with ``text`` drawn large on each frame."""
    from PIL import Image, ImageDraw

    images = []
    for i in range(frames):
        image = Image.new("RGB", (900, 200), "white")
        if text:
            ImageDraw.Draw(image).text((20, 60), f"{text} {i + 1}", fill="black", font_size=40)
        images.append(image)
    out = io.BytesIO()
    images[0].save(out, fmt, save_all=frames > 1, append_images=images[1:])
    return out.getvalue()


def build(root: Path, *, big: bool = True, undecodable_failure: bool = True) -> list[Case]:
    """Write the hostile corpus under ``root``.

    ``big=False`` leaves out the 200 MB and 50 MB files; ``undecodable_failure=False`` leaves
    out the one failing file whose name is not UTF-8 (it needs JSON output that escapes it).
    """
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(11)
    cases: list[Case] = []

    def add(name: str, rel: str, expect: str, as_root: str | None = None) -> None:
        cases.append(Case(name, str(root / rel), expect, as_root))

    # -- empty and damaged files ------------------------------------------------------------
    for suffix, expect in (
        ("txt", INDEXED),
        ("md", INDEXED),
        ("pdf", "the file is empty"),
        ("docx", "the file is empty"),
        ("epub", "the file is empty"),
    ):
        (root / f"empty.{suffix}").touch()
        add(f"zero-byte .{suffix}", f"empty.{suffix}", expect)
    pdf = pdf_bytes(root / "scratch.pdf")
    (root / "truncated.pdf").write_bytes(pdf[: len(pdf) * 3 // 5])
    add("truncated PDF", "truncated.pdf", "the PDF is incomplete")
    corrupted = bytearray(pdf)
    start = len(pdf) // 3
    corrupted[start : start + 400] = rng.randbytes(400)
    (root / "corrupted.pdf").write_bytes(bytes(corrupted))
    add("corrupted PDF (MuPDF repairs it)", "corrupted.pdf", INDEXED)
    (root / "header_only.pdf").write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    add("PDF header only", "header_only.pdf", "not a valid PDF")
    (root / "random.pdf").write_bytes(rng.randbytes(4096))
    add("random bytes named .pdf", "random.pdf", "not a valid PDF")
    (root / "not_a_book.epub").write_bytes(b"PK\x03\x04" + rng.randbytes(2000))
    add("random zip bytes named .epub", "not_a_book.epub", "not a valid EPUB")
    (root / "not_word.docx").write_bytes(b"<html>an error page</html>")
    add("HTML named .docx", "not_word.docx", "not a valid Word")
    make_pdf(root / "password.pdf", ["A secret ledger of copper prices."], user_pw="hunter2")
    add("PDF with a password", "password.pdf", "protected by a password")

    # -- over the limits ---------------------------------------------------------------------
    many_page_pdf(root / "pages_10000.pdf", 10_000)
    add("PDF of 10,000 pages", "pages_10000.pdf", "setting max_pages")
    if big:
        sparse_file(root / "huge_200mb.txt", 200 * MB)
        add("200 MB text file", "huge_200mb.txt", "setting max_file_mb")
        one_line(root / "one_line_50mb.txt", 50 * MB)
        add("single 50 MB line", "one_line_50mb.txt", "setting max_chunks_per_file")

    # -- images (read by OCR) --------------------------------------------------------------
    png = image_bytes("PNG", text="A receipt for copper kettles")
    (root / "truncated.png").write_bytes(png[: len(png) // 2])
    add("truncated PNG", "truncated.png", "damaged or cut short")
    (root / "random.jpg").write_bytes(rng.randbytes(5000))
    add("random bytes named .jpg", "random.jpg", "not a valid image")
    (root / "huge_20000.png").write_bytes(png_of_zeros(20_000, 20_000))
    add("20000 x 20000 image", "huge_20000.png", "megapixels")
    (root / "bomb.png").write_bytes(png_of_zeros(200_000, 200_000))
    add("decompression bomb PNG", "bomb.png", "megapixels")
    (root / "animated.gif").write_bytes(image_bytes("GIF", frames=3))
    add("animated GIF", "animated.gif", INDEXED)
    (root / "blank.png").write_bytes(image_bytes("PNG"))
    add("image with no text", "blank.png", INDEXED)

    # -- odd contents ------------------------------------------------------------------------
    (root / "binary.md").write_bytes(b"\x7fELF\x02\x01\x01\x00" + rng.randbytes(3000))
    add("binary data named .md", "binary.md", "binary data")
    (root / "invalid_utf8.txt").write_bytes(
        b"Caf\xe9 cr\xe8me and na\xefve r\xe9sum\xe9s \xff\xfe in a kettle lagoon.\n"
    )
    add("invalid UTF-8", "invalid_utf8.txt", INDEXED)
    (root / "mixed_endings.txt").write_bytes(
        b"First line with unix ending.\nSecond with windows.\r\nThird, old mac.\rFourth.\n\r\n"
    )
    add("mixed line endings", "mixed_endings.txt", INDEXED)
    for name, encoding in LEGACY_TEXTS.items():  # no BOM, not UTF-8: read in their encoding
        (root / name).write_bytes(LEGACY_TEXT[encoding].encode(encoding))
        add(f"{encoding} text", name, INDEXED)
    (root / "mixed_encodings.txt").write_bytes(MIXED_ENCODINGS)
    add("three encodings in one file (a warning)", "mixed_encodings.txt", INDEXED)

    # -- odd names ---------------------------------------------------------------------------
    names = [(b"caf\xe9 latin-1 name.txt", INDEXED), (b"\xff\xfe\xfd bytes.md", INDEXED)]
    if undecodable_failure:
        names.append((b"broken \xe9.pdf", "not a valid PDF"))
    for raw, expect in names:
        path = fs_path(root, raw)
        body = b"garbage" if raw.endswith(b".pdf") else b"A note whose name is not UTF-8 text.\n"
        with open(os.fsencode(path), "wb") as fh:
            fh.write(body + raw)
        cases.append(Case(f"non-UTF-8 name {raw!r}", path, expect))
    for name in ("📚 reading list 🎉.md", "  spaces  around  .txt", "line\nbreak\tand tab.txt"):
        (root / name).write_text(f"Notes filed under an awkward name: {name!r}.\n")
        add(f"name {name!r}", name, INDEXED)

    # -- folders ---------------------------------------------------------------------------
    deep = nest(root / "nested", DEEP_LEVELS)
    (deep / "bottom.txt").write_text("The bottom of a sixty-level folder tree.\n")
    add(f"{DEEP_LEVELS} nested folders", str(deep.relative_to(root) / "bottom.txt"), INDEXED)
    cases.append(Case("nested past PATH_MAX", too_deep(root), "File name too long"))
    loops = root / "loops"
    loops.mkdir()
    (loops / "real.txt").write_text("The only real file among the links.\n")
    os.symlink("loop_b.txt", loops / "loop_a.txt")
    os.symlink("loop_a.txt", loops / "loop_b.txt")
    os.symlink("self.md", loops / "self.md")
    os.symlink("..", loops / "parent")  # a folder loop: symlinked folders are not entered
    os.symlink("missing.txt", loops / "dangling.txt")
    add("real file beside links", "loops/real.txt", INDEXED)
    add("symlink loop a->b", "loops/loop_a.txt", "symbolic link that loops")
    add("symlink loop b->a", "loops/loop_b.txt", "symbolic link that loops")
    add("symlink to itself", "loops/self.md", "symbolic link that loops")
    add("dangling symlink", "loops/dangling.txt", "link to a file that does not exist")

    # -- permissions (root ignores them unless its DAC capabilities are dropped) ------------
    locked = root / "locked.txt"
    locked.write_text("Nobody may read this note about the harbor.\n")
    locked.chmod(0)
    add("unreadable file", "locked.txt", "permission denied", as_root=INDEXED)
    closed = root / "closed_folder"
    closed.mkdir()
    (closed / "inside.txt").write_text("Behind a folder nobody may list.\n")
    closed.chmod(0)
    add("unreadable folder", "closed_folder", "folder could not be read: Permission denied",
        as_root=ABSENT)  # fmt: skip
    add("file in unreadable folder", "closed_folder/inside.txt", ABSENT, as_root=INDEXED)
    return cases


def reads_everything(root: Path) -> bool:
    """True when this process reads files whatever their permissions (root, CAP_DAC_OVERRIDE)."""
    try:
        (root / "locked.txt").read_bytes()
    except PermissionError:
        return False
    return True


def unlock(root: Path) -> None:
    """Give back the permissions ``build`` took away, so tmp_path can be cleaned up."""
    for path in (root / "locked.txt", root / "closed_folder"):
        if path.exists():
            path.chmod(stat.S_IRWXU)
