"""The sync engine: scan → diff → parse (worker process) → write passages → embed behind.

Two stages. Each file read is written at once — its row, its passages and their full-text
rows in one transaction — so it is found by its words seconds after it is read; the texts no
stored vector covers are listed (``pending``). The embedding stage (``vector_stage``) drains
that list in batches: vectors go to the store, then the list forgets them. A process killed
at any moment leaves a consistent index: a listed text without its vector is embedded by the
next sync; a vector stored but still listed is recognised and not embedded twice. Manifest
rows are dropped before the vectors they referenced are deleted; vectors nobody references
(left by a crash) are removed at the end of a full sync.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from app.core.faults import NO_FAULTS, Faults
from app.core.index.embedding import Embedder
from app.core.index.manifest import FileRecord, Manifest
from app.core.index.plan import Plan, plan
from app.core.index.report import (
    Cancelled,
    IndexReport,
    Progress,
    ProgressEvent,
    ProgressFn,
)
from app.core.index.schema import INDEX_FORMAT
from app.core.index.skipped import SkippedFile
from app.core.index.vector_stage import EMBED_BATCH, Store, VectorStage
from app.core.ingest.failures import FailureKind, is_retried
from app.core.ingest.parsing import (
    ParseLimits,
    ParseRequest,
    ParseResult,
    limit_values,
    too_large_reason,
)
from app.core.ingest.reader_pool import ParserPool
from app.core.ingest.scanning import FileStat, IgnoreRules, normalize
from app.core.ingest.skips import file_type
from app.core.text import counted

# Share of a run's files (the smallest) read and written before any vector is computed; for
# the rest, a batch of vectors is computed whenever the reader has no file ready.
OVERLAP_SHARE = 0.9

__all__ = [
    "EMBED_BATCH",
    "Cancelled",
    "Embedder",
    "IndexReport",
    "Indexer",
    "Progress",
    "ProgressEvent",
    "ProgressFn",
    "Store",
]


class _ScanStopped(Exception):
    """A cancel seen between two OCR pages of one file (the reader is killed mid-file)."""


class Indexer:
    """Brings the manifest and the vector store up to date with files on disk. One writer."""

    def __init__(
        self,
        manifest: Manifest,
        embedder: Callable[[], Embedder],
        store: Callable[[], Store],
        *,
        ignore: IgnoreRules,
        limits: ParseLimits | None = None,
        max_file_bytes: int | None = None,
        progress: ProgressFn | None = None,
        fingerprint: Callable[[], str | None] | None = None,
        faults: Faults = NO_FAULTS,
    ) -> None:
        self.manifest = manifest
        self.faults = faults  # told of every index write (tests kill or fail there)
        self._embedder = embedder
        self._store = store
        self.ignore = ignore
        self.limits = dataclasses.replace(limits or ParseLimits(), max_bytes=max_file_bytes)
        self._limit_values = limit_values(self.limits)
        self.max_file_bytes = max_file_bytes
        self._progress: ProgressFn = progress or (lambda p: None)
        self._pool: ParserPool | None = None
        self._ocr_at = (0, 0)  # (files done, files planned) while a scan is read, for progress
        self._cancel: threading.Event | None = None  # the running sync's, checked per OCR page
        self.lock = threading.RLock()
        self.vectors = VectorStage(manifest, embedder, store, self.lock, fingerprint, faults)
        self.vectors.progress = self._progress

    @property
    def progress(self) -> ProgressFn:
        """Where progress events go (both stages)."""
        return self._progress

    @progress.setter
    def progress(self, fn: ProgressFn) -> None:
        self._progress = self.vectors.progress = fn

    def close(self) -> None:
        """Stop the parser worker (a later sync starts a new one)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    @property
    def pool(self) -> ParserPool:
        """The parser worker, started on first use."""
        if self._pool is None:
            self._pool = ParserPool(self.limits)
            self._pool.on_page = self._on_ocr_page
            self._pool.on_read = self._on_page_read
        return self._pool

    # -- public entry points ---------------------------------------------------------------
    def sync(
        self, roots: Iterable[str], *, cancel: threading.Event | None = None, drain: bool = True
    ) -> IndexReport:
        """Make the index match these files/folders as they are now (removals included);
        ``drain``: compute every waiting vector before returning (else the caller does, in
        slices: ``vectors.embed_pending``)."""
        paths = [normalize(r) for r in roots]
        with self.lock:
            # a rebuilt manifest reads them again (a path not there adds nothing to it)
            self.manifest.roots.indexed(p for p in paths if os.path.lexists(p))
            return self._sync(paths, cancel, True, drain)

    def update_paths(
        self, paths: Iterable[str], *, cancel: threading.Event | None = None, drain: bool = True
    ) -> IndexReport:
        """Re-check just these paths (files or folders), e.g. from watcher events."""
        with self.lock:
            return self._sync([os.path.abspath(p) for p in paths], cancel, False, drain)

    def move(self, old: str, new: str) -> int:
        """A file or folder was renamed/moved: re-point its rows, embedding nothing."""
        with self.lock:
            self.vectors.unverify()
            replaced: list[str] = []
            moved = self.manifest.move(os.path.abspath(old), os.path.abspath(new), replaced)
            self.faults.wrote("moved")
            if moved:
                self.progress(Progress("moved", new, detail=old))
            self.vectors.forget(replaced)  # texts of files the move overwrote
            return moved

    def remove(self, roots: Iterable[str]) -> int:
        """Forget everything at or below these paths (a folder no longer watched)."""
        with self.lock:
            paths: list[str] = []
            folders = [os.path.abspath(root) for root in roots]
            self.manifest.roots.forget(folders)  # left on purpose: a rebuild leaves them out
            self.manifest.forget_skipped(folders=folders)
            for root in folders:
                paths += list(self.manifest.files_under(root))
            if not paths:
                return 0
            self.vectors.unverify()
            dropped = self.manifest.remove_files(paths)
            self.faults.wrote("removed")
            for path in paths:
                self.progress(Progress("removed", path))
            self.vectors.forget(dropped)
            return len(paths)

    # -- the sync -------------------------------------------------------------------------
    def _plan(self, roots: list[str], report: IndexReport) -> Plan:
        """Scan the roots and diff with the manifest: files to read, known paths now gone,
        and files skipped on purpose (recorded here, so each is counted once)."""
        found = plan(self.manifest, roots, self.ignore, report, self._settled, self.limits.excluded)
        if found.skip or found.skipped_gone:
            self.manifest.forget_skipped(found.skipped_gone)
            self.vectors.forget(self.manifest.skip_files(found.skip))
            self.faults.wrote("skipped")
        return found

    def _settled(self, rec: FileRecord) -> bool:
        """A file whose record stands while its size and mtime do (nothing to retry, rebuild)."""
        return (rec.status == "indexed" or not self._retried(rec)) and not self._outdated(rec)

    def _sync(
        self, roots: list[str], cancel: threading.Event | None, full_gc: bool, drain: bool
    ) -> IndexReport:
        """Read changed files and write each atomically, drop the gone, then embed new texts."""
        started = time.perf_counter()
        report = IndexReport()
        self.manifest.raise_formats()  # a newer format that reads only other types of file
        planned = self._plan(roots, report)
        changed, removed = planned.changed, planned.gone
        # Smallest first: most files (notes, pages) become searchable within seconds, and the
        # few large documents that follow are read while vectors are computed (see below).
        changed.sort(key=lambda fs: fs.size)
        if changed or removed:
            self.vectors.unverify()
        self.progress(Progress("planned", total=len(changed)))
        stats = {fs.path: fs for fs in changed}
        garbage: list[str] = []
        done = encoded = 0
        overlap_from = int(OVERLAP_SHARE * len(changed))

        def requests() -> Iterable[ParseRequest]:
            """Files to parse, with the hash they were indexed with (to skip unchanged content)
            and the real folder each must still lie in when it is opened."""
            for fs in changed:
                if cancel is not None and cancel.is_set():
                    return
                if fs.error is not None or self._too_large(fs):
                    continue
                rec = self.manifest.file(fs.path)
                current = rec is not None and rec.status == "indexed" and not self._outdated(rec)
                yield fs.path, rec.hash if current and rec is not None else None, fs.within

        for fs in changed:  # unreadable folders, broken links, files too large to read
            if fs.error is not None or self._too_large(fs):
                reason = fs.error or too_large_reason(self.max_file_bytes or 0)
                kind = fs.error_kind if fs.error is not None else FailureKind.TOO_LARGE
                self._fail(fs, None, reason, kind, report, garbage)
                done += 1
                self.progress(Progress("failed", fs.path, done, len(changed), detail=reason))

        def embed_while_reading() -> bool:
            """One batch of vectors while the reader works on the next (large) file."""
            nonlocal encoded
            if not drain or done < overlap_from or (cancel is not None and cancel.is_set()):
                return False
            if self.vectors.waiting() < EMBED_BATCH:
                return False
            encoded += self.vectors.embed_pending(max_batches=1)
            return True

        self._ocr_at, self._cancel = (0, len(changed)), cancel
        self.pool.on_idle = embed_while_reading
        try:
            for result in self._parsed(requests()):
                done += 1
                self._ocr_at = (done, len(changed))
                self._record(result, stats[result.path], report, garbage, done, len(changed))
                if cancel is not None and cancel.is_set():
                    break
        finally:
            self.pool.on_idle = None
        if cancel is not None and cancel.is_set():
            self.vectors.forget(garbage)  # what was read stays searchable; vectors come next
            report.seconds = time.perf_counter() - started
            raise Cancelled()

        if removed:
            garbage += self.manifest.remove_files(removed)
            self.faults.wrote("removed")
            report.files_removed = len(removed)
            for path in removed:
                self.progress(Progress("removed", path))
        self.vectors.forget(garbage)
        report.chunks_embedded = encoded + (self.vectors.embed_pending(cancel) if drain else 0)
        report.chunks_reused = max(0, report.chunks_written - report.chunks_embedded)
        if full_gc:
            self.vectors.collect_garbage()
            self._collect_ocr_cache()
        report.chunks_total = self._count_chunks(roots)
        report.seconds = time.perf_counter() - started
        return report

    @staticmethod
    def _outdated(rec: FileRecord) -> bool:
        """Indexed with an older index format: read and embed it again (search goes on)."""
        return rec.status == "indexed" and rec.format < INDEX_FORMAT

    def _retried(self, rec: FileRecord) -> bool:
        """True for a failure worth another try although the file has not changed."""
        return is_retried(rec.error_kind, rec.error_limit, self._limit_values)

    def _too_large(self, fs: FileStat) -> bool:
        """Over the file size limit by the scan's size (never read, never hashed)."""
        return self.max_file_bytes is not None and fs.size > self.max_file_bytes

    def _fail(
        self,
        fs: FileStat,
        digest: str | None,
        reason: str,
        kind: FailureKind | None,
        report: IndexReport,
        garbage: list[str],
    ) -> None:
        """Record a failed file with its reason and kind (for a limit, the limit's value)."""
        kind = kind or FailureKind.UNKNOWN
        limit = self._limit_values.get(kind)
        record = FileRecord(
            fs.path,
            fs.size,
            fs.mtime_ns,
            digest,
            "failed",
            reason,
            error_kind=kind,
            error_limit=limit,
            format=INDEX_FORMAT,
        )
        garbage += self.manifest.replace_file(record, [])
        self.faults.wrote("file")
        report.files_failed += 1
        report.failures.append((fs.path, reason))

    def _record(
        self,
        r: ParseResult,
        fs: FileStat,
        report: IndexReport,
        garbage: list[str],
        done: int,
        total: int,
    ) -> None:
        """Write one file's parse result: its failure, an unchanged mark, or its row and
        passages (searchable by their words from then on)."""
        if r.skipped is not None:  # binary data: counted as skipped, never as failed
            file = SkippedFile(fs.path, fs.size, fs.mtime_ns, r.skipped, file_type(fs.path))
            garbage += self.manifest.skip_files([file])
            self.faults.wrote("skipped")
            report.skip(file)
            report.files_seen -= 1  # seen as a file to read; it is counted as skipped instead
            self.progress(Progress("skipped", fs.path, done, total, detail=r.skipped))
            return
        if r.error is not None:
            self._fail(fs, r.hash, r.error, r.error_kind, report, garbage)
            self.progress(Progress("failed", fs.path, done, total, detail=r.error))
            return
        if r.unchanged:
            self.manifest.touch_file(fs.path, fs.size, fs.mtime_ns)
            self.faults.wrote("unchanged")
            report.files_unchanged += 1
            self.progress(Progress("unchanged", fs.path, done, total))
            return
        record = FileRecord(
            r.path, fs.size, fs.mtime_ns, r.hash, "indexed", r.warning, r.kind, r.pages,
            format=INDEX_FORMAT,
        )  # fmt: skip
        fresh: list[str] = []
        garbage += self.manifest.replace_file(record, r.chunks, r.ocr_pages, fresh)
        self.faults.wrote("file")
        report.files_indexed += 1
        report.chunks_written += len(r.chunks)
        report.pages_ocr += len(r.ocr_pages)
        detail = counted(len(r.chunks), "passage")
        self.progress(
            Progress("indexed", r.path, done, total, len(fresh), detail, passages=len(r.chunks))
        )

    def _parsed(self, requests: Iterable[ParseRequest]) -> Iterator[ParseResult]:
        """The pool's results; ends early when a cancel stops a long scan between pages."""
        try:
            yield from self.pool.parse_many(requests)
        except _ScanStopped:
            return  # the pool killed the reader; the caller sees the cancel and stops

    def _collect_ocr_cache(self) -> int:
        """Delete OCR results of contents no file has any more (edited or deleted scans)."""
        folder = self.limits.ocr_cache
        if not folder or not os.path.isdir(folder):
            return 0
        known = self.manifest.file_hashes()
        removed = 0
        try:
            for sub in os.scandir(folder):
                if not sub.is_dir(follow_symlinks=False):
                    continue
                for entry in os.scandir(sub.path):
                    digest = entry.name.removesuffix(".json")
                    if entry.name.endswith(".json") and digest not in known:
                        os.unlink(entry.path)
                        removed += 1
        except OSError:  # a cache that cannot be tidied costs disk space, never the sync
            pass
        return removed

    def set_ocr(self, enabled: bool) -> None:
        """Turn OCR on or off for the next files read (a new reader process takes it up)."""
        if self.limits.ocr == enabled:
            return
        self.limits = dataclasses.replace(self.limits, ocr=enabled)
        self._limit_values = limit_values(self.limits)
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def _on_ocr_page(self, path: str, done: int, total: int) -> None:
        """Report OCR progress inside a long scan (files done so far, and pages read)."""
        if self._cancel is not None and self._cancel.is_set():
            raise _ScanStopped
        files_done, files_total = self._ocr_at
        page = min(done + 1, total)
        detail = f"OCR page {page} of {total}" if done < total else "OCR done"
        self.progress(
            Progress("ocr", path, files_done, files_total, detail=detail, page=page, pages=total)
        )

    def _on_page_read(self, path: str, page: int, pages: int) -> None:
        """Report a long document's text being read: page 40 of 200 (the window's estimate
        of the time this file still needs comes from these)."""
        if self._cancel is not None and self._cancel.is_set():
            raise _ScanStopped
        files_done, files_total = self._ocr_at
        detail = f"page {page:,} of {pages:,}"
        self.progress(
            Progress("page", path, files_done, files_total, detail=detail, page=page, pages=pages)
        )

    def _count_chunks(self, roots: list[str]) -> int:
        """Chunks stored for files at or below the roots."""
        total = 0
        for root in roots:
            total += sum(rec.chunks for rec in self.manifest.files_under(root).values())
        return total
