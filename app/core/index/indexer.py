"""The sync engine: scan → diff → parse (worker process) → embed new texts only → write.

Write order keeps the index consistent if the process dies at any moment: vectors go to the
store before the manifest transaction that references them; manifest rows are dropped before
the vectors they referenced are garbage-collected. Vectors nobody references (left by a crash)
are removed at the end of a full sync, after they had the chance to be reused.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import stat
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from app.core.index.manifest import FileRecord, Manifest
from app.core.ingest.loaders import is_supported
from app.core.ingest.parsing import (
    ParseLimits,
    ParseResult,
    ParserPool,
    limit_texts,
    too_large_reason,
)
from app.core.ingest.scanning import FileStat, IgnoreRules, link_problem, normalize, scan

EMBED_BATCH = 256  # new texts gathered across files before one call to the model
# Failures that fixing something other than the file's content cures (its permissions, a
# folder put back): retried on every sync instead of waiting for the file to change. A file
# skipped by a limit is retried once that setting has a new value.
RETRIED_FAILURES = ("permission denied", "the file disappeared", "it is a folder, not a file")
LIMIT_MARK = "(setting "


class CrashPoints:
    """Counts index writes; a crash-test hook that SIGKILLs the process after the N-th one.

    ``$FOOTNOTES_TEST_KILL_AFTER=N`` kills right after write N; ``N:SECONDS`` kills that many
    seconds after it, so the kill lands inside a later write. Only tests set it
    (tests/test_crash.py); unset, this just counts.
    """

    def __init__(self, spec: str | None = None) -> None:
        raw = os.environ.get("FOOTNOTES_TEST_KILL_AFTER", "") if spec is None else spec
        count, _, delay = raw.partition(":")
        self.kill_after = int(count) if count.strip() else 0
        self.delay = float(delay) if delay.strip() else 0.0
        self.steps = 0

    def step(self) -> None:
        self.steps += 1
        if self.kill_after and self.steps == self.kill_after:
            if self.delay > 0:
                timer = threading.Timer(self.delay, os.kill, (os.getpid(), signal.SIGKILL))
                timer.daemon = True
                timer.start()
            else:
                os.kill(os.getpid(), signal.SIGKILL)


WRITES = CrashPoints()


class Embedder(Protocol):
    model_id: str
    dim: int

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray: ...


class Store(Protocol):
    def existing(self, ids: Iterable[str]) -> set[str]: ...
    def add(self, ids: Sequence[str], vectors: np.ndarray) -> None: ...
    def delete(self, ids: Iterable[str]) -> None: ...
    def all_ids(self) -> set[str]: ...


class Cancelled(Exception):
    """The sync was asked to stop; everything written so far is consistent."""


@dataclass
class IndexReport:
    """Counts of one sync run, printed by ``index --json``."""

    files_seen: int = 0
    files_indexed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    files_failed: int = 0
    files_skipped: int = 0
    chunks_total: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    seconds: float = 0.0
    failures: list[tuple[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "files_seen": self.files_seen,
            "files_indexed": self.files_indexed,
            "files_unchanged": self.files_unchanged,
            "files_removed": self.files_removed,
            "files_failed": self.files_failed,
            "files_skipped": self.files_skipped,
            "chunks_total": self.chunks_total,
            "chunks_embedded": self.chunks_embedded,
            "chunks_reused": self.chunks_reused,
            "seconds": round(self.seconds, 3),
            "failures": [{"path": p, "reason": r} for p, r in self.failures],
        }


@dataclass(frozen=True)
class Progress:
    """One step of a sync, for progress bars and logs."""

    event: str  # "planned", "indexed", "unchanged", "failed", "removed", "moved"
    path: str = ""
    done: int = 0
    total: int = 0
    chunks_embedded: int = 0
    detail: str = ""


ProgressFn = Callable[[Progress], None]


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
    ) -> None:
        self.manifest = manifest
        self._embedder = embedder
        self._store = store
        self.ignore = ignore
        self.limits = dataclasses.replace(limits or ParseLimits(), max_bytes=max_file_bytes)
        self._limit_texts = limit_texts(self.limits)
        self.max_file_bytes = max_file_bytes
        self.progress = progress or (lambda p: None)
        self._pool: ParserPool | None = None
        self.lock = threading.RLock()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    @property
    def pool(self) -> ParserPool:
        if self._pool is None:
            self._pool = ParserPool(self.limits)
        return self._pool

    # -- public entry points ---------------------------------------------------------------
    def sync(self, roots: Iterable[str], *, cancel: threading.Event | None = None) -> IndexReport:
        """Make the index match these files/folders as they are now (removals included)."""
        with self.lock:
            return self._sync([normalize(r) for r in roots], cancel, full_gc=True)

    def update_paths(
        self, paths: Iterable[str], *, cancel: threading.Event | None = None
    ) -> IndexReport:
        """Re-check just these paths (files or folders), e.g. from watcher events."""
        with self.lock:
            return self._sync([os.path.abspath(p) for p in paths], cancel, full_gc=False)

    def move(self, old: str, new: str) -> int:
        """A file or folder was renamed/moved: re-point its rows, embedding nothing."""
        with self.lock:
            replaced: list[str] = []
            moved = self.manifest.move(os.path.abspath(old), os.path.abspath(new), replaced)
            WRITES.step()
            if moved:
                self.progress(Progress("moved", new, detail=old))
            self._gc(replaced)  # texts of files the move overwrote
            return moved

    def remove(self, roots: Iterable[str]) -> int:
        """Forget everything at or below these paths (a folder no longer watched)."""
        with self.lock:
            paths: list[str] = []
            for root in roots:
                paths += list(self.manifest.files_under(os.path.abspath(root)))
            if not paths:
                return 0
            dropped = self.manifest.remove_files(paths)
            WRITES.step()
            for path in paths:
                self.progress(Progress("removed", path))
            self._gc(dropped)
            return len(paths)

    def repair(self) -> int:
        """Embed texts the manifest references but the store lacks (store lost, model changed)."""
        with self.lock:
            missing = self.manifest.all_hashes() - self._store().all_ids()
            texts = self.manifest.texts_for_hashes(missing)
            ids = list(texts)
            for i in range(0, len(ids), EMBED_BATCH):
                part = ids[i : i + EMBED_BATCH]
                self._store().add(part, self._embedder().encode([texts[h] for h in part]))
                WRITES.step()
            return len(ids)

    def collect_garbage(self) -> int:
        """Delete vectors no chunk references (left by a crash between the two writes)."""
        with self.lock:
            orphans = self._store().all_ids() - self.manifest.all_hashes()
            if orphans:
                self._store().delete(orphans)
                WRITES.step()
            return len(orphans)

    # -- the sync -------------------------------------------------------------------------
    def _plan(self, roots: list[str], report: IndexReport) -> tuple[list[FileStat], list[str]]:
        found: dict[str, FileStat] = {}
        known: dict[str, FileRecord] = {}
        for root in roots:
            known.update(self.manifest.files_under(root))
            try:
                st = os.stat(root)
            except OSError as exc:
                if os.path.islink(root):  # a link that loops or leads nowhere, as scan says
                    found[root] = link_problem(root, exc)
                continue  # gone: everything known below it is removed
            if os.path.isdir(root):
                scan_root = normalize(root)
                for fs in scan(scan_root, self.ignore):
                    path = root + fs.path[len(scan_root) :]
                    found[path] = dataclasses.replace(fs, path=path)
            elif stat.S_ISREG(st.st_mode) and not self.ignore.ignores_name(
                os.path.basename(root)
            ):  # a pipe or device is never read: it could block the reader forever
                found[root] = FileStat(root, st.st_size, st.st_mtime_ns)
        changed: list[FileStat] = []
        kept: set[str] = set()
        for path, fs in sorted(found.items()):
            if not (fs.folder or is_supported(path)):
                report.files_skipped += 1
                continue
            kept.add(path)
            report.files_seen += 1
            rec = known.get(path)
            if (
                rec is not None
                and rec.size == fs.size
                and rec.mtime_ns == fs.mtime_ns
                and (rec.status == "indexed" or not self._retried(rec.error))
            ):
                report.files_unchanged += 1
                if rec.status == "failed":
                    report.failures.append((path, rec.error or "failed earlier"))
                    report.files_failed += 1
            else:
                changed.append(fs)
        removed = [p for p in known if p not in kept]
        return changed, removed

    def _sync(self, roots: list[str], cancel: threading.Event | None, full_gc: bool) -> IndexReport:
        started = time.perf_counter()
        report = IndexReport()
        changed, removed = self._plan(roots, report)
        self.progress(Progress("planned", total=len(changed)))
        stats = {fs.path: fs for fs in changed}
        garbage: list[str] = []
        pending: list[ParseResult] = []
        done = 0

        def requests() -> Iterable[tuple[str, str | None]]:
            for fs in changed:
                if cancel is not None and cancel.is_set():
                    return
                if fs.error is not None or self._too_large(fs):
                    continue
                rec = self.manifest.file(fs.path)
                yield fs.path, rec.hash if rec is not None and rec.status == "indexed" else None

        for fs in changed:  # unreadable folders, broken links, files too large to read
            if fs.error is not None or self._too_large(fs):
                reason = fs.error or too_large_reason(self.max_file_bytes or 0)
                self._fail(fs, None, reason, report, garbage)
                done += 1
                self.progress(Progress("failed", fs.path, done, len(changed), detail=reason))

        for result in self.pool.parse_many(requests()):
            fs = stats[result.path]
            done += 1
            if result.error is not None:
                self._fail(fs, result.hash, result.error, report, garbage)
                self.progress(Progress("failed", fs.path, done, len(changed), detail=result.error))
            elif result.unchanged:
                self.manifest.touch_file(fs.path, fs.size, fs.mtime_ns)
                WRITES.step()
                report.files_unchanged += 1
                self.progress(Progress("unchanged", fs.path, done, len(changed)))
            else:
                pending.append(result)
                if sum(len(r.chunks) for r in pending) >= EMBED_BATCH:
                    self._flush(pending, stats, report, garbage, done, len(changed))
                    pending = []
            if cancel is not None and cancel.is_set():
                break
        self._flush(pending, stats, report, garbage, done, len(changed))
        if cancel is not None and cancel.is_set():
            self._gc(garbage)
            report.seconds = time.perf_counter() - started
            raise Cancelled()

        if removed:
            garbage += self.manifest.remove_files(removed)
            WRITES.step()
            report.files_removed = len(removed)
            for path in removed:
                self.progress(Progress("removed", path))
        self._gc(garbage)
        if full_gc:
            self.collect_garbage()
        report.chunks_total = self._count_chunks(roots)
        report.seconds = time.perf_counter() - started
        return report

    def _retried(self, error: str | None) -> bool:
        """True for a failure worth another try although the file has not changed."""
        if error is None:
            return False
        if LIMIT_MARK in error:
            return not any(text in error for text in self._limit_texts)
        return error.startswith(RETRIED_FAILURES)

    def _too_large(self, fs: FileStat) -> bool:
        return self.max_file_bytes is not None and fs.size > self.max_file_bytes

    def _fail(
        self, fs: FileStat, digest: str | None, reason: str, report: IndexReport, garbage: list[str]
    ) -> None:
        record = FileRecord(fs.path, fs.size, fs.mtime_ns, digest, "failed", reason)
        garbage += self.manifest.replace_file(record, [])
        WRITES.step()
        report.files_failed += 1
        report.failures.append((fs.path, reason))

    def _flush(
        self,
        results: list[ParseResult],
        stats: dict[str, FileStat],
        report: IndexReport,
        garbage: list[str],
        done: int,
        total: int,
    ) -> None:
        if not results:
            return
        texts = {c.text_hash: c.text for r in results for c in r.chunks}
        have = self._store().existing(texts) if texts else set()
        missing = [h for h in texts if h not in have]
        if missing:
            vectors = self._embedder().encode([texts[h] for h in missing])
            self._store().add(missing, vectors)
            WRITES.step()
        n_chunks = sum(len(r.chunks) for r in results)
        report.chunks_embedded += len(missing)
        report.chunks_reused += n_chunks - len(missing)
        fresh = set(missing)  # each new text is counted once, for the first file that has it
        for r in results:
            fs = stats[r.path]
            record = FileRecord(
                r.path, fs.size, fs.mtime_ns, r.hash, "indexed", None, r.kind, r.pages
            )
            garbage += self.manifest.replace_file(record, r.chunks)
            WRITES.step()
            report.files_indexed += 1
            mine = fresh & {c.text_hash for c in r.chunks}
            fresh -= mine
            detail = f"{len(r.chunks)} passages"
            self.progress(Progress("indexed", r.path, done, total, len(mine), detail))

    def _gc(self, candidates: list[str]) -> None:
        unused = self.manifest.unreferenced(candidates) if candidates else []
        if unused:
            self._store().delete(unused)
            WRITES.step()

    def _count_chunks(self, roots: list[str]) -> int:
        total = 0
        for root in roots:
            total += sum(rec.chunks for rec in self.manifest.files_under(root).values())
        return total
