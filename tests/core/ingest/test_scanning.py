"""Walking folders for indexable files on a real filesystem: ignore rules, no symlinks out of
the folder, no loops, and what could not be read reported with its kind."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from app.core.config import DEFAULT_IGNORE
from app.core.ingest.failures import FailureKind
from app.core.ingest.scanning import (
    IgnoreRules,
    is_within,
    link_problem,
    no_longer_watched,
    normalize,
    scan,
    within_any,
)


def names(root: Path, rules: IgnoreRules, excluded: tuple[str, ...] = ()) -> list[str]:
    return [
        os.path.relpath(fs.path, root) for fs in scan(str(root), rules, excluded) if not fs.error
    ]


def tree(root: Path, *paths: str) -> Path:
    for rel in paths:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"text of {rel}")
    return root


def test_the_default_rules_leave_out_hidden_build_and_editor_files(tmp_path: Path) -> None:
    root = tree(
        tmp_path / "docs",
        "notes.md",
        "sub/deep/plan.txt",
        ".git/config",
        "node_modules/pkg/readme.md",
        "draft.md~",
        ".notes.md.swp",
        "~$report.docx",
        "download.part",
    )
    assert names(root, IgnoreRules(DEFAULT_IGNORE)) == ["notes.md", "sub/deep/plan.txt"]


def test_a_pattern_with_a_slash_matches_the_path_below_the_folder(tmp_path: Path) -> None:
    root = tree(tmp_path / "docs", "drafts/old/a.md", "old/b.md", "keep/old/c.md")
    rules = IgnoreRules(["drafts/old/*", "# a comment", "  "])
    assert rules.patterns == ["drafts/old/*"]
    assert names(root, rules) == ["keep/old/c.md", "old/b.md"]
    assert rules.ignores(str(root / "drafts/old/a.md"), str(root))
    assert not rules.ignores(str(root / "keep/old/c.md"), str(root))


def test_files_come_with_what_change_detection_needs(tmp_path: Path) -> None:
    root = tree(tmp_path / "docs", "a.txt")
    [found] = scan(str(root), IgnoreRules([]))
    st = os.stat(root / "a.txt")
    assert (found.path, found.size, found.mtime_ns) == (
        str(root / "a.txt"),
        st.st_size,
        st.st_mtime_ns,
    )
    assert found.error is None and not found.folder


def test_links_are_kept_only_to_files_inside_and_folders_are_never_entered(tmp_path: Path) -> None:
    root = tree(tmp_path / "docs", "real.md", "sub/inner.md")
    tree(tmp_path / "outside", "secret.md")
    (root / "inside-link.md").symlink_to(root / "real.md")
    (root / "out-link.md").symlink_to(tmp_path / "outside" / "secret.md")
    (root / "folder-link").symlink_to(root / "sub")
    (root / "loop").symlink_to(root)
    assert names(root, IgnoreRules([])) == ["inside-link.md", "real.md", "sub/inner.md"]


def test_a_link_that_loops_or_leads_nowhere_is_reported_as_a_broken_link(tmp_path: Path) -> None:
    root = tree(tmp_path / "docs", "a.md")
    (root / "gone.md").symlink_to(root / "missing.md")
    (root / "self.md").symlink_to(root / "self.md")
    broken = {os.path.basename(fs.path): fs for fs in scan(str(root), IgnoreRules([])) if fs.error}
    assert set(broken) == {"gone.md", "self.md"}
    assert broken["gone.md"].error == "it is a symbolic link to a file that does not exist"
    assert broken["self.md"].error == "it is a symbolic link that loops back on itself"
    assert {fs.error_kind for fs in broken.values()} == {FailureKind.BROKEN_LINK}


def test_link_problems_are_worded_by_their_error() -> None:
    other = link_problem("/d/x", OSError(errno.EIO, "Input/output error"))
    assert other.error == "it is a symbolic link that cannot be followed: Input/output error"
    assert (other.size, other.mtime_ns) == (0, 0)  # nothing there to stat


def test_the_data_directory_inside_a_watched_folder_is_never_yielded(tmp_path: Path) -> None:
    root = tree(tmp_path / "docs", "a.md", "data/manifest.sqlite3", "data/chroma/x.bin")
    (root / "link-into-data.md").symlink_to(root / "data" / "manifest.sqlite3")
    found = names(root, IgnoreRules([]), excluded=(str(root / "data"),))
    assert found == ["a.md"]


def test_a_folder_that_cannot_be_listed_is_reported_and_the_rest_is_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree(tmp_path / "docs", "a.md", "locked/b.md", "z.md")
    real = os.scandir

    def refusing(path: str | os.PathLike[str] = ".") -> object:  # as for a user without rights
        if os.fspath(path) == str(root / "locked"):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", refusing)
    found = list(scan(str(root), IgnoreRules([])))
    [refused] = [fs for fs in found if fs.error]
    assert refused.folder and refused.error_kind is FailureKind.FOLDER_UNREADABLE
    assert refused.error == "folder could not be read: Permission denied"
    assert [os.path.basename(fs.path) for fs in found if not fs.error] == ["a.md", "z.md"]


def test_paths_within_folders_are_told_by_whole_components() -> None:
    assert is_within("/d/notes/a.md", "/d/notes") and is_within("/d/notes", "/d/notes")
    assert is_within("/d/notes/a.md", "/d/notes/")
    assert not is_within("/d/notes-old/a.md", "/d/notes")
    assert within_any("/d/b/x", ["/d/a", "/d/b"]) and not within_any("/d/c", ["/d/a"])


def test_a_path_a_person_gave_is_made_absolute_and_real(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path)
    assert normalize("alias/../alias") == str((tmp_path / "real").resolve())


def test_what_leaves_the_index_when_a_folder_is_no_longer_watched() -> None:
    known = ["/d/a/x.md", "/d/a/inner/y.md", "/d/b/z.md"]
    assert no_longer_watched("/d/a/inner", ["/d/a"], known) == []  # still inside a watched one
    assert no_longer_watched("/d/a", ["/d/a/inner"], known) == ["/d/a/x.md", "/d/b/z.md"]
    assert no_longer_watched("/d/a", [], known) == ["/d/a"]  # the folder and all below it
