"""Which files a sync must read: the roots scanned and compared with the manifest."""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Callable

from app.core.index.manifest import FileRecord, Manifest
from app.core.index.report import IndexReport
from app.core.ingest.loaders import is_supported
from app.core.ingest.scanning import FileStat, IgnoreRules, link_problem, normalize, scan


def plan(
    manifest: Manifest,
    roots: list[str],
    ignore: IgnoreRules,
    report: IndexReport,
    settled: Callable[[FileRecord], bool],
) -> tuple[list[FileStat], list[str]]:
    """Files to read (new, changed, or whose record is not ``settled``) and known paths gone.

    Counts what it sees in ``report``; a root that vanished takes everything known below it.
    """
    found: dict[str, FileStat] = {}
    known: dict[str, FileRecord] = {}
    for root in roots:
        known.update(manifest.files_under(root))
        try:
            st = os.stat(root)
        except OSError as exc:
            if os.path.islink(root):  # a link that loops or leads nowhere, as scan says
                found[root] = link_problem(root, exc)
            continue  # gone: everything known below it is removed
        if os.path.isdir(root):
            scan_root = normalize(root)
            for fs in scan(scan_root, ignore):
                path = root + fs.path[len(scan_root) :]
                found[path] = dataclasses.replace(fs, path=path)
        elif stat.S_ISREG(st.st_mode) and not ignore.ignores_name(os.path.basename(root)):
            found[root] = FileStat(root, st.st_size, st.st_mtime_ns)  # never a pipe or device
    changed: list[FileStat] = []
    kept: set[str] = set()
    for path, fs in sorted(found.items()):
        if not (fs.folder or is_supported(path)):
            report.files_skipped += 1
            continue
        kept.add(path)
        report.files_seen += 1
        rec = known.get(path)
        if rec is not None and rec.size == fs.size and rec.mtime_ns == fs.mtime_ns and settled(rec):
            report.files_unchanged += 1
            if rec.status == "failed":
                report.failures.append((path, rec.error or "failed earlier"))
                report.files_failed += 1
        else:
            changed.append(fs)
    return changed, [p for p in known if p not in kept]
