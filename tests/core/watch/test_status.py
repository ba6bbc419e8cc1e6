"""What the watcher says about its folders: a folder that cannot be read is said once (until
its reason changes), and said to be back once it can be read again; on a real filesystem and
a real manifest."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.core.index.availability import EMPTIED
from app.core.index.manifest import Manifest
from app.core.index.records import FileRecord
from app.core.watch.status import FolderProblems


def test_an_unavailable_folder_is_said_once_and_its_return_once(tmp_path: Path) -> None:
    said: list[tuple[str, str, str]] = []
    problems = FolderProblems(lambda state, message, folder: said.append((state, message, folder)))
    usb = tmp_path / "usb"
    usb.mkdir()
    (usb / "a.md").write_text("a")
    manifest = Manifest(tmp_path / "data" / "manifest.sqlite3")
    try:
        manifest.replace_file(FileRecord(str(usb / "a.md"), 1, 1, "h", "indexed"), [])
        assert not problems.check(str(usb), manifest) and said == []  # readable: nothing said
        shutil.rmtree(usb)
        usb.mkdir()  # unmounted: an empty mount point where indexed files were
        assert not problems.check(str(usb), manifest)
        assert not problems.check(str(usb), manifest)  # the same reason: not said again
        [(state, message, folder)] = said
        assert (state, folder) == ("unavailable", str(usb))
        assert f"({EMPTIED})" in message and "passages stay in the index" in message
        (usb / "a.md").write_text("a")  # mounted again
        assert problems.check(str(usb), manifest)  # True: it is back
        assert said[-1] == ("watching", f"{usb} is back; looking for changes.", str(usb))
        assert not problems.check(str(usb), manifest) and len(said) == 2
    finally:
        manifest.close()


def test_a_new_reason_is_said_and_a_folder_never_missing_is_never_back() -> None:
    said: list[tuple[str, str, str]] = []
    problems = FolderProblems(lambda *args: said.append(args))
    assert not problems.mark("/w", None) and said == []
    problems.mark("/w", "permission denied")
    problems.mark("/w", "not found (an unplugged drive, or a folder moved or deleted?)")
    assert [m for _, m, _ in said] == [
        "/w is unavailable (permission denied); its passages stay in the index and watching "
        "resumes when it is back.",
        "/w is unavailable (not found (an unplugged drive, or a folder moved or deleted?)); "
        "its passages stay in the index and watching resumes when it is back.",
    ]
    assert problems.reasons == {
        "/w": "not found (an unplugged drive, or a folder moved or deleted?)"
    }
