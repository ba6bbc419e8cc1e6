"""Parse files in a separate worker process with a time and memory limit.

``parse_file`` reads one file into passages; ``run_worker`` is the process that runs it under a
memory cap, one request at a time. The caller's side (pipelined requests, time limits, a
crashed worker restarted at the cost of one file) is ``reader_pool.ParserPool``.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import multiprocessing as mp
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

from app.core.ingest.failures import FailureKind
from app.core.types import Chunk

log = logging.getLogger(__name__)
START_METHOD_ENV = "FOOTNOTES_START_METHOD"  # spawn, forkserver or fork: forces one (tests)
STARTED = "started"
PAGE = "page"  # ("page", done, total): OCR progress inside one file; extends its time limit
READ = "read"  # ("read", page, pages): a long document's text being read; no extra time
STARTUP_TIMEOUT_S = 120.0  # a worker process that cannot even start is a broken install


@dataclass(frozen=True)
class ParseLimits:
    """Resource limits for one file."""

    timeout_s: float = 120.0
    memory_mb: int = 3072
    max_pages: int = 5000
    max_chunks: int = 20000
    max_bytes: int | None = None  # also checked by the indexer from the scan, before parsing
    ocr: bool = True  # read scanned pages and images by OCR (setting ocr_enabled)
    ocr_cache: str | None = None  # folder of OCR results by file hash (None: no cache)
    ocr_page_s: float = 60.0  # each OCR'd page extends the file's time limit by this much
    excluded: tuple[str, ...] = ()  # real folders never read, wherever a link leads (data dir)


def too_large_reason(max_bytes: int) -> str:
    """Why a file over the size limit was skipped, naming the setting."""
    return f"it is larger than the {max_bytes / 1e6:g} MB file size limit (setting max_file_mb)"


def timeout_reason(timeout_s: float) -> str:
    """Why a file whose reading ran out of time was skipped, naming the setting."""
    return f"reading it took longer than the {timeout_s:g} s limit (setting parse_timeout_s)"


def limit_values(limits: ParseLimits) -> dict[FailureKind, str]:
    """Each limit's value as its setting reads, stored with a limit failure to spot stale ones.

    A limit that is off (no ``max_bytes``) has no value, so what it once refused is retried.
    """
    values = {
        FailureKind.TOO_MANY_PAGES: str(limits.max_pages),
        FailureKind.TOO_MANY_PASSAGES: str(limits.max_chunks),
        FailureKind.TIMEOUT: f"{limits.timeout_s:g}",
        FailureKind.OCR_OFF: "on" if limits.ocr else "off",
    }
    if limits.max_bytes is not None:
        values[FailureKind.TOO_LARGE] = f"{limits.max_bytes / 1e6:g}"
    return values


@dataclass
class ParseResult:
    """What the worker made of one file: chunks, 'unchanged', or a failure reason and kind."""

    path: str
    hash: str | None = None
    kind: str | None = None
    pages: int = 0
    chunks: list[Chunk] = field(default_factory=list)
    unchanged: bool = False
    error: str | None = None
    error_kind: FailureKind | None = None
    ocr_pages: list[int] = field(default_factory=list)  # pages whose text OCR read
    warning: str | None = None  # indexed, with a doubt (an encoding guessed); status lists it
    skipped: str | None = None  # not read on purpose (``skips.SkipReason``): binary data


PageProgress = Callable[[int, int], None]
# (path, hash it was indexed with) or (path, hash, the real folder it must lie in)
ParseRequest = tuple[str, str | None] | tuple[str, str | None, str | None]


def failed(path: str, reason: str, kind: FailureKind, digest: str | None = None) -> ParseResult:
    """The result for a file that could not be indexed."""
    return ParseResult(path, hash=digest, error=reason, error_kind=kind)


def bytes_hash(data: bytes) -> str:
    """A file's content hash, as stored in the manifest."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def start_method(preferred: str) -> str:
    """The multiprocessing start method for a worker: ``$FOOTNOTES_START_METHOD`` when set
    (a test forces ``spawn``, the one every platform has), else ``preferred`` where this
    platform offers it (forkserver is POSIX-only), else ``spawn``."""
    available = mp.get_all_start_methods()
    forced = os.environ.get(START_METHOD_ENV, "").strip().lower()
    if forced in available:
        return forced
    if forced:
        log.warning("%s=%s is not available here; using %s", START_METHOD_ENV, forced, preferred)
    return preferred if preferred in available else "spawn"


def set_memory_cap(memory_mb: int) -> bool:
    """Cap this process's address space (POSIX ``setrlimit``); False where there is no
    ``resource`` module (Windows) or the cap is refused (macOS may refuse ``RLIMIT_AS``):
    the worker then runs with the time limit alone."""
    try:
        import resource
    except ImportError:
        return False
    if memory_mb <= 0:
        return True
    cap = memory_mb * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (ValueError, OSError):
        return False
    return True


def parse_file(
    path: str,
    known_hash: str | None,
    limits: ParseLimits,
    on_page: PageProgress | None = None,
    on_read: PageProgress | None = None,
    within: str | None = None,
) -> ParseResult:
    """Read, hash, load and chunk one file (runs inside the worker; usable in-process in tests).

    The file is read once: the hash and the text come from the same bytes, so a file replaced
    while it is parsed can never be stored with one version's hash and another's passages.
    The open file must really lie in ``within`` (the watched folder's real path, when given)
    and outside ``limits.excluded``, or it is refused unread.
    Scanned pages are OCR'd (``on_page`` hears of each), through the cache of the file's hash;
    ``on_read`` hears every tenth page of a long document as its text is read.
    """
    from app.core.ingest.chunking import chunk_document
    from app.core.ingest.loaders import DocumentError, UnsupportedFile, load_bytes, read_file
    from app.core.ingest.ocr import OcrOptions, PageOcr

    too_large = too_large_reason(limits.max_bytes) if limits.max_bytes is not None else ""
    try:
        data = read_file(path, limits.max_bytes, too_large, within=within, excluded=limits.excluded)
    except DocumentError as exc:
        return failed(path, exc.reason, exc.kind)
    digest = bytes_hash(data)
    if digest == known_hash:
        return ParseResult(path, hash=digest, unchanged=True)
    ocr = PageOcr(OcrOptions(enabled=limits.ocr, cache_dir=limits.ocr_cache), digest, on_page)
    try:
        doc = load_bytes(
            path,
            data,
            max_pages=limits.max_pages,
            ocr=ocr,
            on_read=on_read,
            max_bytes=limits.max_bytes,
        )
    except UnsupportedFile as exc:
        if exc.skip is None:  # binary data in a file whose name says text: a failure
            return failed(path, exc.reason, exc.kind, digest)
        return ParseResult(path, hash=digest, skipped=exc.skip.value, error_kind=exc.kind)
    except DocumentError as exc:
        ocr.save()  # pages read before a later page failed are not read again
        return failed(path, exc.reason, exc.kind, digest)
    del data
    chunks = chunk_document(doc)
    if doc.scanned_unread and not chunks:
        reason = ocr_off_reason(doc.kind, doc.scanned_unread)
        return failed(path, reason, FailureKind.OCR_OFF, digest)
    if len(chunks) > limits.max_chunks:
        return ParseResult(
            path,
            hash=digest,
            kind=doc.kind,
            error=f"it would make {len(chunks):,} passages, more than the limit of "
            f"{limits.max_chunks:,} per file (setting max_chunks_per_file)",
            error_kind=FailureKind.TOO_MANY_PASSAGES,
        )
    ocr_pages = [p.number for p in doc.pages if p.ocr and p.number is not None]
    warning = doc.warning
    if not chunks and doc.kind != "code":  # indexed, not read again until it changes, but
        # nothing can find it (an empty source file, "__init__.py", is a program's, not news)
        warning = "; ".join(w for w in (doc.warning, NO_TEXT) if w)
    return ParseResult(
        path,
        hash=digest,
        kind=doc.kind,
        pages=len(doc.pages),
        chunks=chunks,
        ocr_pages=ocr_pages,
        warning=warning,
    )


NO_TEXT = "it holds no text: nothing in it can be found"


def ocr_off_reason(kind: str, pages: int) -> str:
    """Why a scanned file has no passages while OCR is off, naming the setting."""
    scans = "page is a scan" if pages == 1 else "pages are scans"
    what = "it is an image" if kind == "image" else f"{pages:,} of its {scans}"
    return f"scanned, OCR off: {what} with no text layer (turn on OCR in Settings: ocr_enabled)"


def run_worker(conn: Connection, limits: ParseLimits) -> None:
    """The worker process: imports first, then the memory cap, then one file per request."""
    import signal

    # Ctrl-C is the parent's to handle: it stops the run and ends this process cleanly.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for module in (
        "app.core.ingest.chunking",
        "app.core.ingest.loaders",
    ):  # outside any file's limit
        importlib.import_module(module)

    set_memory_cap(limits.memory_mb)
    while True:
        try:
            request = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if request is None:
            return
        path, known, *rest = request
        within = rest[0] if rest else None
        conn.send(STARTED)  # the caller's time limit runs from here, not from our start-up
        try:
            result = parse_file(
                path, known, limits, _progress_sender(conn), _progress_sender(conn, READ), within
            )
        except MemoryError:
            memory = f"reading it needed more than the {limits.memory_mb:,} MB memory limit"
            result = failed(path, memory, FailureKind.MEMORY)
        except RecursionError:
            result = failed(
                path, "its structure is nested too deeply to read", FailureKind.TOO_DEEP
            )
        except Exception as exc:  # a parser bug must cost one file, not the run
            bug = f"unexpected error while reading: {exc!r}"[:500]
            result = failed(path, bug, FailureKind.PARSER_ERROR)
        try:
            conn.send(result)
        except MemoryError:
            conn.send(failed(path, "its text is too large to pass on", FailureKind.MEMORY))
        except OSError:
            return  # the caller went away (it was stopped, or gave up on this file)


def _progress_sender(conn: Connection, tag: str = PAGE) -> PageProgress:
    """Send page progress to the caller (OCR pages also extend the file's time limit)."""

    def send(done: int, total: int) -> None:
        conn.send((tag, done, total))

    return send
