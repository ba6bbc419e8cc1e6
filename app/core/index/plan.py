"""Which files a sync must read: the roots scanned and compared with the manifest.

Unavailable is not gone: a root that cannot be read (permission denied, an I/O error) and
anything below a watched folder that cannot be read now (an unplugged drive, a missing mount)
keep their records, and the sync reports them in ``IndexReport.unavailable``; so does a watched
folder whose files are indexed that is now entirely empty (an unmounted drive's mount point).
Only what is gone from a place that can be read is removed: a deleted file or folder inside an
available watched folder, or a path given explicitly (not watched) that no longer exists.

Each file to read carries the real folder it must still lie in when the reader opens it
(``FileStat.within``): the watched folder holding it, else the root as it resolves now. A path
that already leads out of it, and anything in the ``excluded`` folders (the data directory,
wherever it lies), is never read; what the index held there counts as gone.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Callable, Sequence

from app.core.index.availability import GONE_ERRNOS, folder_problem, reason_for
from app.core.index.manifest import FileRecord, Manifest
from app.core.index.report import IndexReport
from app.core.index.skipped import SkippedFile
from app.core.ingest.failures import FailureKind
from app.core.ingest.loaders import is_supported
from app.core.ingest.scanning import (
    FileStat,
    IgnoreRules,
    is_within,
    link_problem,
    normalize,
    scan,
    within_any,
)
from app.core.ingest.skips import SkipReason, file_type, known_binary


@dataclasses.dataclass
class Plan:
    """What a sync must do: files to read, known paths gone, and files to record as skipped."""

    changed: list[FileStat]
    gone: list[str]
    skip: list[SkippedFile]  # newly skipped by name: the indexer records them
    skipped_gone: list[str]  # skipped rows of paths no longer there (or now read)


def plan(
    manifest: Manifest,
    roots: list[str],
    ignore: IgnoreRules,
    report: IndexReport,
    settled: Callable[[FileRecord], bool],
    excluded: Sequence[str] = (),
) -> Plan:
    """Files to read (new, changed, or whose record is not ``settled``), known paths gone,
    and files skipped on purpose.

    Counts what it sees in ``report``, and lists there the roots and watched folders that
    could not be read (their records are kept, never counted as gone).
    """
    found: dict[str, FileStat] = {}
    known: dict[str, FileRecord] = {}
    skipped_known: dict[str, SkippedFile] = {}
    unavailable: dict[str, str] = {}
    watched = set(manifest.folders())
    excluded = [normalize(e) for e in excluded]
    real_watched = {folder: normalize(folder) for folder in watched}
    for root in roots:
        bound = containing_folder(root, real_watched)
        if within_any(normalize(root), excluded) or not is_within(normalize(root), bound):
            known.update(manifest.files_under(root))  # led out, or the data dir: never read
            continue
        try:
            st = os.stat(root)
        except OSError as exc:
            if os.path.islink(root):  # a link that loops or leads nowhere, as scan says
                found[root] = link_problem(root, exc)
            elif exc.errno not in GONE_ERRNOS:  # there, but refused: not gone
                unavailable[root] = reason_for(exc)
                continue
            records = manifest.files_under(root)
            skipped_known.update(manifest.skipped_under(root))
            if not records and root not in found and root not in skipped_known:
                report.not_found.append(root)
            known.update(records)
            continue  # gone, unless the watched folder it was in is unavailable (see below)
        if os.path.isdir(root):
            under = manifest.files_under(root)
            problem = folder_problem(root, indexed=bool(under) and root in watched)
            if problem is not None:
                unavailable[root] = problem
                continue
            known.update(under)
            skipped_known.update(manifest.skipped_under(root))
            scan_root = normalize(root)
            for fs in scan(scan_root, ignore, excluded):
                path = root + fs.path[len(scan_root) :]
                found[path] = dataclasses.replace(fs, path=path, within=bound)
                if fs.folder and fs.error is not None:  # a sub-folder refused: keep its files
                    unavailable[path] = fs.error
            continue
        known.update(manifest.files_under(root))
        skipped_known.update(manifest.skipped_under(root))
        if not stat.S_ISREG(st.st_mode):
            continue  # never a pipe or device
        if ignore.ignores_name(os.path.basename(root)):  # named, but ignored: say so
            reason = SkipReason.IGNORED.value
            report.skip(SkippedFile(root, st.st_size, st.st_mtime_ns, reason, file_type(root)))
        else:
            found[root] = FileStat(root, st.st_size, st.st_mtime_ns, within=bound)
    changed: list[FileStat] = []
    kept: set[str] = set()
    skip: list[SkippedFile] = []
    for path, fs in sorted(found.items()):
        kept.add(path)
        if not fs.folder and fs.error is None and not is_supported(path):
            prior = skipped_known.get(path)
            if prior is not None and (prior.size, prior.mtime_ns) == (fs.size, fs.mtime_ns):
                report.skip(prior)  # unchanged: still what it was (binary, say)
                continue
            if known_binary(path):
                new = SkippedFile(
                    path, fs.size, fs.mtime_ns, SkipReason.FORMAT.value, file_type(path)
                )
                report.skip(new)
                skip.append(new)
                continue
        report.files_seen += 1
        rec = known.get(path)
        if rec is not None and fs.error_kind is FailureKind.UNREADABLE:  # not gone: kept as is
            unavailable[path] = fs.error or "could not be read now"
            continue
        if rec is not None and rec.size == fs.size and rec.mtime_ns == fs.mtime_ns and settled(rec):
            report.files_unchanged += 1
            if rec.status == "failed":
                report.failures.append((path, rec.error or "failed earlier"))
                report.files_failed += 1
                report.failed_unchanged += 1
        else:
            changed.append(fs)
    gone = [p for p in known if p not in kept]
    unavailable.update(unavailable_watched(gone, sorted(watched)))
    report.unavailable.extend(sorted(unavailable.items()))
    skipped_gone = [p for p in skipped_known if p not in kept and not within_any(p, unavailable)]
    return Plan(changed, [p for p in gone if not within_any(p, unavailable)], skip, skipped_gone)


def containing_folder(root: str, watched: dict[str, str]) -> str:
    """The real folder whatever is found from ``root`` must lie in: the outermost watched
    folder holding it (``watched`` maps each to its real path; a link out of it is never
    followed), else ``root`` as it resolves now (a path given explicitly may be a link: what
    it leads to at this moment is what is read)."""
    for folder in sorted(watched, key=len):
        real = watched[folder]
        if is_within(root, folder) or is_within(root, real):
            return real
    return normalize(root)


def unavailable_watched(paths: list[str], watched: list[str]) -> dict[str, str]:
    """The watched folders holding any of ``paths`` that cannot be read now, with the reason."""
    found: dict[str, str] = {}
    for folder in watched:
        if any(is_within(p, folder) for p in paths):
            problem = folder_problem(folder, indexed=True)
            if problem is not None:
                found[folder] = problem
    return found
