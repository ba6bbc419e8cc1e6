"""Which files a sync must read, from the roots scanned on a real filesystem and a real
manifest: new and changed files, what is gone, what is skipped, and what is unavailable (which
keeps its records: an unplugged drive is not a deletion)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.index.availability import EMPTIED
from app.core.index.manifest import Manifest
from app.core.index.plan import Plan, containing_folder, plan, unavailable_watched
from app.core.index.records import FileRecord
from app.core.index.report import IndexReport
from app.core.index.skipped import SkippedFile
from app.core.ingest.scanning import IgnoreRules, normalize


@pytest.fixture
def manifest(tmp_path: Path) -> Iterator[Manifest]:
    m = Manifest(tmp_path / "data" / "manifest.sqlite3")
    yield m
    m.close()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    for name in ("a.md", "b.md", "sub/c.md"):
        (root / name).write_text(f"text of {name}")
    return Path(normalize(root))


def remember(manifest: Manifest, path: Path, status: str = "indexed", error: str | None = None):
    st = os.stat(path)
    record = FileRecord(str(path), st.st_size, st.st_mtime_ns, "hash", status, error)
    manifest.replace_file(record, [])


def planned(manifest: Manifest, roots: list[str], **kw) -> tuple[Plan, IndexReport]:
    report = IndexReport()
    settled = kw.pop("settled", lambda record: True)
    return plan(manifest, roots, IgnoreRules(kw.pop("ignore", [])), report, settled, **kw), report


def names(found: list) -> list[str]:
    return sorted(os.path.basename(getattr(f, "path", f)) for f in found)


def test_new_and_changed_files_are_read_and_unchanged_ones_counted(
    manifest: Manifest, docs: Path
) -> None:
    manifest.add_folder(str(docs))
    remember(manifest, docs / "a.md")
    remember(manifest, docs / "b.md")
    (docs / "b.md").write_text("b.md, edited since and longer")
    result, report = planned(manifest, [str(docs)])
    assert names(result.changed) == ["b.md", "c.md"]
    assert (report.files_seen, report.files_unchanged) == (3, 1)
    assert result.gone == [] and report.unavailable == []
    assert all(fs.within == str(docs) for fs in result.changed)  # where the reader must find it


def test_a_record_that_is_not_settled_is_read_again(manifest: Manifest, docs: Path) -> None:
    remember(manifest, docs / "a.md")
    result, _ = planned(manifest, [str(docs)], settled=lambda record: False)
    assert names(result.changed) == ["a.md", "b.md", "c.md"]


def test_a_file_that_failed_and_did_not_change_is_reported_again_not_read(
    manifest: Manifest, docs: Path
) -> None:
    remember(manifest, docs / "a.md", "failed", "it is not a valid PDF or it is damaged")
    result, report = planned(manifest, [str(docs / "a.md")])
    assert result.changed == []
    assert report.failures == [(str(docs / "a.md"), "it is not a valid PDF or it is damaged")]
    assert (report.files_failed, report.failed_unchanged) == (1, 1)


def test_what_is_deleted_from_a_readable_folder_is_gone(manifest: Manifest, docs: Path) -> None:
    manifest.add_folder(str(docs))
    for name in ("a.md", "sub/c.md"):
        remember(manifest, docs / name)
    shutil.rmtree(docs / "sub")
    result, report = planned(manifest, [str(docs)])
    assert result.gone == [str(docs / "sub" / "c.md")]
    assert report.unavailable == []


def test_a_watched_folder_that_vanished_keeps_its_records(manifest: Manifest, docs: Path) -> None:
    manifest.add_folder(str(docs))
    remember(manifest, docs / "a.md")
    shutil.rmtree(docs)  # an unplugged drive looks like this
    result, report = planned(manifest, [str(docs)])
    assert result.gone == [] and result.changed == []
    [(folder, reason)] = report.unavailable
    assert folder == str(docs) and "not found" in reason
    assert report.not_found == []  # it is indexed: no typo


def test_an_empty_mount_point_of_an_indexed_folder_is_unavailable(
    manifest: Manifest, docs: Path
) -> None:
    manifest.add_folder(str(docs))
    remember(manifest, docs / "a.md")
    shutil.rmtree(docs)
    docs.mkdir()  # the mount point is there, the drive is not mounted on it
    result, report = planned(manifest, [str(docs)])
    assert result.gone == []
    assert report.unavailable == [(str(docs), EMPTIED)]


def test_a_path_given_explicitly_that_no_longer_exists_is_gone(
    manifest: Manifest, docs: Path
) -> None:
    remember(manifest, docs / "a.md")
    (docs / "a.md").unlink()
    result, report = planned(manifest, [str(docs / "a.md")])
    assert result.gone == [str(docs / "a.md")] and report.unavailable == []


def test_a_path_with_nothing_there_and_nothing_indexed_is_not_found(
    manifest: Manifest, tmp_path: Path
) -> None:
    result, report = planned(manifest, [str(tmp_path / "tpyo")])
    assert report.not_found == [str(tmp_path / "tpyo")] and result.gone == []


def test_binary_formats_are_skipped_by_name_once_and_an_unchanged_one_stays_counted(
    manifest: Manifest, docs: Path
) -> None:
    (docs / "backup.zip").write_bytes(b"PK\x03\x04 not read")
    first, report = planned(manifest, [str(docs)])
    [skip] = first.skip
    assert (skip.path, skip.reason, skip.type) == (str(docs / "backup.zip"), "format", ".zip")
    assert report.files_skipped == 1 and "backup.zip" not in names(first.changed)
    manifest.skip_files(first.skip)  # what the indexer records
    again, report = planned(manifest, [str(docs)])
    assert again.skip == [] and report.files_skipped == 1  # known: not recorded again
    (docs / "backup.zip").unlink()
    gone, _ = planned(manifest, [str(docs)])
    assert gone.skipped_gone == [str(docs / "backup.zip")]


def test_a_file_named_explicitly_but_ignored_is_said_to_be_skipped(
    manifest: Manifest, docs: Path
) -> None:
    (docs / "draft.swp").write_text("swap")
    result, report = planned(manifest, [str(docs / "draft.swp")], ignore=["*.swp"])
    assert result.changed == []
    [skipped] = report.skipped
    assert isinstance(skipped, SkippedFile) and skipped.reason == "ignored"


def test_the_data_directory_inside_a_watched_folder_is_never_read(
    manifest: Manifest, docs: Path
) -> None:
    data = docs / "footnotes-data"
    data.mkdir()
    (data / "settings.json").write_text("{}")
    assert "settings.json" in names(planned(manifest, [str(docs)])[0].changed)
    result, _ = planned(manifest, [str(docs)], excluded=[str(data)])
    assert names(result.changed) == ["a.md", "b.md", "c.md"]
    assert planned(manifest, [str(data / "settings.json")], excluded=[str(data)])[0].changed == []


def test_the_folder_a_file_must_lie_in_is_the_outermost_watched_one() -> None:
    watched = {"/w": "/real/w", "/w/inner": "/real/w/inner"}
    assert containing_folder("/w/inner/a.md", watched) == "/real/w"
    assert containing_folder("/real/w/b.md", watched) == "/real/w"


def test_only_watched_folders_holding_the_paths_are_checked(tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    (here / "x.md").write_text("x")
    gone = tmp_path / "gone"
    found = unavailable_watched([str(gone / "a.md")], [str(here), str(gone)])
    assert list(found) == [str(gone)]
    assert unavailable_watched([], [str(gone)]) == {}
