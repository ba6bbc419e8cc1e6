"""Zip containers (.docx, .epub) checked before a parser opens them: every member inflated as a
stream, the total and each text part capped, and the inflation ratio watched as it is read.

python-docx and MuPDF inflate a part whole into memory before they parse it, so a 1.2 MB
.docx whose ``word/document.xml`` inflates to 1.2 GB took the reader to 3 GB before it failed.
Here each member is read a megabyte at a time (the zip's declared sizes are not trusted: a
bomb may lie about them) and refused as soon as it passes a cap, with a sentence that says it
may be a decompression bomb. The parsers then open only what passed. Media members (images,
fonts) count towards the total but have no ratio cap: a blank scan compresses a thousandfold
and is still a real picture.
"""

from __future__ import annotations

import io
import os
import zipfile

from app.core.ingest.failures import FailureKind, LoadError

STEP = 1 << 20  # inflated bytes asked for at a time
DEFAULT_TOTAL = 256 * 1024 * 1024  # inflated bytes of all members when no size limit is set
MAX_PART = 64 * 1024 * 1024  # one text part (a document.xml, a chapter); real ones are < 20 MB
MAX_RATIO = 200  # inflated / packed for a text part, once it is past RATIO_FROM bytes
RATIO_FROM = 8 * 1024 * 1024  # small parts may compress as well as they like
MAX_MEMBERS = 20_000  # a real book or document has hundreds
TEXT_PARTS = {".xml", ".rels", ".xhtml", ".html", ".htm", ".opf", ".ncx", ".css", ".txt", ""}


def bomb(label: str, name: str, why: str) -> LoadError:
    """The refusal of a container one of whose members inflates past a cap."""
    return LoadError(
        f"its {name} {why}; the {label} may be a decompression bomb, so it was not read",
        FailureKind.TOO_LARGE,
    )


def check_zip(data: bytes, label: str, cap: int | None = None) -> None:
    """Inflate every member of the zip in ``data`` as a stream, raising ``LoadError`` when it
    is not a zip (``label`` names what it should be: "Word (.docx) document") or a member
    passes a cap: all members together over ``cap`` (the file size limit), one text part over
    ``MAX_PART``, or a text part past ``RATIO_FROM`` inflating over ``MAX_RATIO`` times its
    packed size. Nothing is kept: memory stays at one step per member."""
    total_cap = DEFAULT_TOTAL if cap is None else cap
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError):
        raise LoadError(f"it is not a valid {label} or it is damaged") from None
    if len(members) > MAX_MEMBERS:
        raise bomb(label, "zip", f"holds {len(members):,} parts, more than {MAX_MEMBERS:,}")
    total = 0
    with archive:
        for info in members:
            if info.is_dir():
                continue
            text = os.path.splitext(info.filename)[1].lower() in TEXT_PARTS
            name = info.filename[:80]
            packed = max(info.compress_size, 1)
            read = 0
            try:
                with archive.open(info) as fh:
                    while chunk := fh.read(STEP):
                        read += len(chunk)
                        total += len(chunk)
                        if total > total_cap:
                            raise bomb(
                                label,
                                "content",
                                f"inflates to more than {total_cap / 1e6:g} MB, the file "
                                "size limit (setting max_file_mb)",
                            )
                        if text and read > MAX_PART:
                            raise bomb(label, name, f"inflates to more than {MAX_PART >> 20} MB")
                        if text and read > RATIO_FROM and read > MAX_RATIO * packed:
                            raise bomb(
                                label,
                                name,
                                f"inflates to more than {MAX_RATIO} times its packed size",
                            )
            except LoadError:
                raise
            except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):
                raise LoadError(f"it is not a valid {label} or it is damaged") from None
            except RuntimeError:  # an encrypted member (zipfile asks for a password)
                raise LoadError(
                    f"the {label} is protected by a password", FailureKind.ENCRYPTED
                ) from None
