"""The hostile corpus (tests/hostile_corpus.py) on a real filesystem, Chroma and SQLite.

Every hostile file ends with a recorded outcome (indexed, or failed with a reason a person
understands, listed by ``status``), the index stays consistent, and a file that hit a limit,
a time-out or a parser crash is not read again until it (or the limit) changes.
Root reads files whatever their permissions: the CLI run drops root's CAP_DAC_OVERRIDE and
CAP_DAC_READ_SEARCH in the child (prctl PR_CAPBSET_DROP) so "permission denied" is real there.
"""

from __future__ import annotations

import ctypes
import io
import json
import multiprocessing
import os
import platform
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.core.index.indexer import Progress
from app.core.ingest.loaders import load_document
from tests import hostile_corpus as hc
from tests.helpers import eventually, long_markdown, make_pdf

REPO = Path(__file__).resolve().parents[3]
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, PR_CAPBSET_DROP = 1, 2, 24


@pytest.fixture
def hostile(tmp_path: Path):
    """Build the corpus in tmp_path; give permissions back afterwards so it can be removed."""
    built: list[Path] = []

    def build(name: str = "hostile", **kwargs: Any) -> tuple[Path, list[hc.Case]]:
        root = tmp_path / name
        built.append(root)
        return root, hc.build(root, **kwargs)

    yield build
    for root in built:
        hc.unlock(root)


def outcome(engine, path: str) -> str:
    rec = engine.manifest.file(path)
    if rec is None:
        return hc.ABSENT
    return hc.INDEXED if rec.status == "indexed" else f"failed: {rec.error}"


def assert_outcome(engine, case: hc.Case, expect: str, failures: dict[str, str]) -> None:
    got = outcome(engine, case.path)
    if expect in (hc.INDEXED, hc.ABSENT):
        assert got == expect, f"{case.name}: {got}"
    else:
        assert got.startswith("failed: ") and expect in got, f"{case.name}: {got}"
        assert failures[case.path] == got.removeprefix("failed: "), case.name


def assert_consistent(engine, *, full: bool = True) -> None:
    """Manifest and FTS agree; every chunk's text has a vector (and, after a full sync, only)."""
    manifest, store = engine.manifest, engine.store()
    assert manifest.check() == []
    hashes, ids = manifest.all_hashes(), store.all_ids()
    assert hashes <= ids
    if full:
        assert ids == hashes


def assert_exact_spans(engine, path: str) -> None:
    """Each stored passage is exactly the loaded text between its offsets."""
    doc = load_document(path)
    for row in engine.manifest.chunks_of(path):
        page = doc.pages[(row.page or 1) - 1].text
        assert page[row.start : row.end] == row.text


def recorder() -> tuple[list[Progress], Callable[[Progress], None]]:
    events: list[Progress] = []
    return events, events.append


def planned(events: list[Progress]) -> int:
    """How many files the last sync sent to be read (or recorded as failed without reading)."""
    return [p.total for p in events if p.event == "planned"][-1]


@pytest.mark.slow
def test_every_hostile_file_ends_with_a_recorded_outcome(hostile, make_engine) -> None:
    root, cases = hostile()
    privileged = hc.reads_everything(root)
    engine = make_engine()
    events, progress = recorder()
    report = engine.index([str(root)], progress=progress)

    status = engine.status()
    failures = {f["path"]: f["reason"] for f in status["failures"]}
    for case in cases:
        assert_outcome(engine, case, case.outcome(privileged), failures)
    assert report.files_failed == len(failures) == status["files_failed"]
    assert dict(report.failures) == failures
    assert_consistent(engine)
    for case in cases:
        if outcome(engine, case.path) == hc.INDEXED:
            assert_exact_spans(engine, case.path)

    by_name = {c.name: failures.get(c.path, "") for c in cases}
    assert "limit of 5,000 (setting max_pages)" in by_name["PDF of 10,000 pages"]
    assert "100 MB file size limit (setting max_file_mb)" in by_name["200 MB text file"]
    assert "limit of 20,000 per file (setting max_chunks_per_file)" in by_name["single 50 MB line"]
    mixed = engine.manifest.chunks_of(str(root / "mixed_endings.txt"))
    assert [r.text for r in mixed] == ["First line with unix ending.\nSecond with windows.\n"
                                       "Third, old mac.\nFourth."]  # fmt: skip
    assert "Café crème" in engine.manifest.chunks_of(str(root / "invalid_utf8.txt"))[0].text
    for name, encoding in hc.LEGACY_TEXTS.items():  # read in their own encodings, no mojibake
        text = hc.LEGACY_TEXT[encoding].rstrip("\n")
        assert [r.text for r in engine.manifest.chunks_of(str(root / name))] == [text]

    undecodable = {
        c.path for c in cases if c.name.startswith("non-UTF-8") and c.expect == "indexed"
    }
    hits = engine.search("a note whose name is not UTF-8 text", k=3).hits
    assert {h.path for h in hits if "not UTF-8" in h.text} == undecodable
    assert all(h.lexical_rank is not None for h in hits if h.path in undecodable)  # FTS too
    assert all(os.path.exists(os.fsencode(h.path)) for h in hits)
    assert json.loads(json.dumps(status))["failures"] == status["failures"]

    again = engine.index([str(root)], progress=progress)
    retried = sum("permission denied" in c.outcome(privileged) for c in cases)
    assert planned(events) == retried  # nothing else is read again, failed files included
    assert again.chunks_embedded == 0 and again.files_indexed == 0
    assert dict(again.failures) == failures
    assert_consistent(engine)


def test_a_time_out_is_recorded_and_not_retried_until_the_file_changes(
    tmp_path: Path, make_engine
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    slow = hc.one_line(folder / "slow.txt", 30 * hc.MB)  # seconds of chunking
    (folder / "fine.md").write_text(long_markdown(seed=5, paragraphs=4))
    engine = make_engine(settings=Settings(parse_timeout_s=1.0))
    events, progress = recorder()
    engine.index([str(folder)], progress=progress)
    reason = "reading it took longer than the 1 s limit (setting parse_timeout_s)"
    assert outcome(engine, str(slow)) == f"failed: {reason}"
    assert outcome(engine, str(folder / "fine.md")) == hc.INDEXED

    again = engine.index([str(folder)], progress=progress)
    assert planned(events) == 0 and again.failures == [(str(slow), reason)]

    slow.write_text("Now a short note about a kettle.\n")
    engine.index([str(folder)], progress=progress)
    assert planned(events) == 1 and outcome(engine, str(slow)) == hc.INDEXED
    assert_consistent(engine)


WRITE_SYSCALL = {"x86_64": "1", "aarch64": "64"}


def parser_pid() -> int:
    workers = [p for p in multiprocessing.active_children() if p.name == "footnotes-parser"]
    assert len(workers) == 1
    return int(workers[0].pid or 0)


def kill_parser(*, once_sending: int = 0) -> None:
    """SIGKILL this process's parser worker, as a segfault or the OOM killer would.

    With ``once_sending``, first wait until the worker is blocked writing a message of at least
    that many bytes (read from /proc/PID/syscall): it is then surely inside that file.
    """
    pid = parser_pid()

    def sending() -> bool:
        fields = Path(f"/proc/{pid}/syscall").read_text().split()
        return fields[0] == WRITE_SYSCALL[platform.machine()] and int(fields[3], 16) >= once_sending

    if once_sending:
        eventually(sending, "the parser begins sending the passages", timeout=120, every=0.01)
    os.kill(pid, signal.SIGKILL)


@pytest.mark.slow  # ~16 s (1 MB files parsed and embedded twice): full suite only
def test_a_parser_crash_costs_one_file_which_is_not_retried_until_it_changes(
    tmp_path: Path, make_engine
) -> None:
    """The worker is killed while it holds the victim, blocked sending its passages.

    Requests are pipelined (smallest file first), so the victim is with the worker when the
    damaged PDF before it is reported, and its 1 MB result cannot be sent while the caller is
    busy with that report.
    """
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a_damaged.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    paragraph = long_markdown(seed=9, paragraphs=1).split("\n\n")[1]
    victim = folder / "b_victim.md"
    victim.write_text(f"{paragraph}\n\n" * (hc.MB // len(paragraph)))  # > socket buffers
    # read after the victim (a sync reads the smallest files first)
    after = "The sync goes on after the crash.\n\n"
    (folder / "c_after.txt").write_text(after * (victim.stat().st_size // len(after) + 1))
    engine = make_engine()

    def crash_on_damaged(p: Progress) -> None:
        if p.event == "failed" and p.path.endswith("a_damaged.pdf"):
            kill_parser(once_sending=500_000)

    engine.index([str(folder)], progress=crash_on_damaged)
    assert outcome(engine, str(victim)) == "failed: the document reader crashed on it (signal 9)"
    assert outcome(engine, str(folder / "c_after.txt")) == hc.INDEXED
    assert_consistent(engine)

    events, progress = recorder()
    kill_parser()  # the idle worker dies between syncs: not the next file's fault
    again = engine.index([str(folder)], progress=progress)
    assert planned(events) == 0 and again.files_failed == 2
    with victim.open("a") as fh:
        fh.write("One more line.\n")
    engine.index([str(folder)], progress=progress)
    assert planned(events) == 1 and outcome(engine, str(victim)) == hc.INDEXED
    assert_exact_spans(engine, str(victim))
    assert_consistent(engine)


def test_undecodable_names_are_found_again_not_re_indexed(tmp_path: Path, make_engine) -> None:
    from app.core.watch.watcher import Watcher

    folder = tmp_path / "docs"
    folder.mkdir()
    first = hc.fs_path(folder, b"r\xe9sum\xe9 latin-1.txt")
    with open(os.fsencode(first), "wb") as fh:
        fh.write(b"Harbor lanterns are lit at dusk by the keeper.\n")
    engine = make_engine()
    engine.add_folder(str(folder))
    events, progress = recorder()
    watcher = Watcher(engine, on_progress=progress)
    watcher.start()
    try:
        assert watcher.wait_idle(60)
        assert outcome(engine, first) == hc.INDEXED
        second = hc.fs_path(folder, b"\xff\xfe note.md")
        with open(os.fsencode(second), "wb") as fh:
            fh.write(b"Copper kettles hum on the stove in winter.\n")
        eventually(lambda: outcome(engine, second) == hc.INDEXED, "the new file is indexed", 30)
        assert watcher.wait_idle(60)
        assert outcome(engine, second) == hc.INDEXED
        renamed = hc.fs_path(folder, b"moved \xe9.md")
        os.rename(os.fsencode(second), os.fsencode(renamed))
        eventually(lambda: outcome(engine, renamed) == hc.INDEXED, "the rename is seen", 30)
        assert watcher.wait_idle(60)
    finally:
        watcher.stop()
    indexed = [p.path for p in events if p.event == "indexed"]
    assert sorted(indexed) == sorted([first, second])  # once each; the rename embeds nothing
    assert outcome(engine, second) == hc.ABSENT and outcome(engine, renamed) == hc.INDEXED

    events.clear()
    again = engine.index([str(folder)], progress=progress)
    assert planned(events) == 0 and again.files_unchanged == 2 and again.chunks_embedded == 0
    engine.indexer().update_paths([first, renamed])
    assert planned(events) == 0
    hits = engine.search("copper kettles hum on the stove", k=1).hits
    assert hits[0].path == renamed and os.path.exists(os.fsencode(hits[0].path))
    assert engine.manifest.files_under(str(folder)).keys() == {first, renamed}
    assert_consistent(engine)


def test_files_deleted_or_replaced_between_scan_and_read(tmp_path: Path, make_engine) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    names = ("gone.txt", "now_folder.txt", "swapped.txt", "now_fifo.txt", "steady.txt")
    for name in names:
        (folder / name).write_text(f"The first version of {name}.\n")
    engine = make_engine()
    _, progress = recorder()

    def meddle(p: Progress) -> None:  # after the scan, before any file is read
        if p.event != "planned":
            return
        (folder / "gone.txt").unlink()
        (folder / "now_folder.txt").unlink()
        (folder / "now_folder.txt").mkdir()
        (folder / "now_folder.txt" / "inner.md").write_text("A note inside the new folder.\n")
        (folder / "swapped.txt").write_text("A second, longer version replaced the first one.\n")
        (folder / "now_fifo.txt").unlink()
        os.mkfifo(folder / "now_fifo.txt")  # opening it for reading would block forever

    engine.index([str(folder)], progress=meddle)
    assert outcome(engine, str(folder / "gone.txt")) == (
        "failed: the file disappeared before it could be read"
    )
    assert outcome(engine, str(folder / "now_folder.txt")) == "failed: it is a folder, not a file"
    assert outcome(engine, str(folder / "now_fifo.txt")) == (
        "failed: it is not a regular file (a pipe, socket or device)"
    )
    swapped = engine.manifest.chunks_of(str(folder / "swapped.txt"))
    assert [r.text for r in swapped] == ["A second, longer version replaced the first one."]
    assert outcome(engine, str(folder / "steady.txt")) == hc.INDEXED
    assert_consistent(engine)

    report = engine.index([str(folder)], progress=progress)  # the next sync tidies up
    assert report.files_removed == 3  # gone, the folder's old file row, the pipe
    assert set(engine.manifest.files_under(str(folder))) == {
        str(folder / "now_folder.txt" / "inner.md"),
        str(folder / "swapped.txt"),
        str(folder / "steady.txt"),
    }
    assert engine.manifest.failures() == []
    assert_consistent(engine)

    # The watcher's path: update_paths sees the file, which is gone before it is read.
    steady = folder / "steady.txt"
    steady.write_text("An edit the watcher reported.\n")
    engine.indexer(lambda p: p.event == "planned" and steady.unlink())
    engine.indexer().update_paths([str(steady)])
    assert outcome(engine, str(steady)) == "failed: the file disappeared before it could be read"
    engine.indexer(progress).update_paths([str(steady)])
    assert outcome(engine, str(steady)) == hc.ABSENT
    steady.symlink_to("nowhere.txt")  # an event for a link to nothing: recorded as a scan does
    engine.indexer().update_paths([str(steady)])
    assert outcome(engine, str(steady)) == (
        "failed: it is a symbolic link to a file that does not exist"
    )
    assert_consistent(engine, full=False)


def test_a_folder_replaced_by_a_file_and_back(tmp_path: Path, make_engine) -> None:
    root = tmp_path / "docs"
    chapter = root / "chapter.md"
    chapter.mkdir(parents=True)
    (chapter / "one.md").write_text("Chapter one: the glacier.\n")
    (chapter / "two.md").write_text("Chapter two: the canyon.\n")
    engine = make_engine()
    engine.index([str(root)])
    assert set(engine.manifest.files_under(str(root))) == {
        str(chapter / "one.md"),
        str(chapter / "two.md"),
    }

    shutil.rmtree(chapter)
    chapter.write_text("# Chapter\n\nOne file now holds the whole chapter about the fjord.\n")
    report = engine.index([str(root)])
    assert report.files_removed == 2 and report.files_indexed == 1
    assert set(engine.manifest.files_under(str(root))) == {str(chapter)}
    assert_consistent(engine)

    chapter.unlink()  # and back, the way the watcher reports it: one path
    chapter.mkdir()
    (chapter / "three.md").write_text("Chapter three: the tundra.\n")
    engine.indexer().update_paths([str(chapter)])
    assert set(engine.manifest.files_under(str(root))) == {str(chapter / "three.md")}
    assert engine.search("the tundra chapter", k=1).hits[0].path == str(chapter / "three.md")
    assert_consistent(engine, full=False)


def test_limits_are_named_settings_and_raising_one_retries_its_files(
    tmp_path: Path, make_engine
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "big.txt").write_text("A plain note. " * 1500)  # 21,000 bytes
    make_pdf(folder / "three.pdf", ["Page one.", "Page two.", "Page three."])
    (folder / "long.md").write_text(long_markdown(seed=3, paragraphs=12))
    assert max(os.path.getsize(folder / n) for n in ("three.pdf", "long.md")) < 10_000
    tight = Settings(max_file_mb=0.01, max_pages=2, max_chunks_per_file=3)
    engine = make_engine("data", settings=tight)
    engine.index([str(folder)])
    reasons = dict(engine.manifest.failures())
    assert reasons[str(folder / "big.txt")] == (
        "it is larger than the 0.01 MB file size limit (setting max_file_mb)"
    )
    assert reasons[str(folder / "three.pdf")] == (
        "it has 3 pages, more than the limit of 2 (setting max_pages)"
    )
    assert reasons[str(folder / "long.md")].endswith(
        "passages, more than the limit of 3 per file (setting max_chunks_per_file)"
    )
    events, progress = recorder()
    engine.index([str(folder)], progress=progress)
    assert planned(events) == 0  # same limits: not read again
    engine.close()

    roomy = make_engine("data", settings=Settings())  # the person raised the limits
    report = roomy.index([str(folder)], progress=progress)
    assert planned(events) == 3 and report.files_indexed == 3 and report.failures == []
    assert_consistent(roomy)


def without_root_file_override() -> Callable[[], None] | None:
    """A preexec_fn that gives up root's right to ignore file permissions, for the child only.

    Dropping CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the bounding set means the
    executed program never regains them. prctl is looked up here, before the fork.
    """
    if os.geteuid() != 0:
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def drop() -> None:
        for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
            if prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")

    return drop


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        preexec_fn=without_root_file_override(),
    )


@pytest.mark.slow
def test_cli_index_of_the_hostile_folder(hostile, cli_data_dir: Path) -> None:
    root, cases = hostile(undecodable_failure=False)
    settings = json.loads((cli_data_dir / "settings.json").read_text())
    settings["max_file_mb"] = 40  # both giants stop at the size limit: no 12 s parse here
    settings["ignore_patterns"] = "*.tmp"  # bad keys: reported, their defaults used
    settings["top_k"] = 0
    (cli_data_dir / "settings.json").write_text(json.dumps(settings))

    proc = run_cli("--data-dir", str(cli_data_dir), "index", str(root), "--json")
    assert proc.returncode == 0, proc.stderr
    problems = [line for line in proc.stderr.splitlines() if "settings.json" in line]
    assert [p.split(":")[2].strip() for p in problems] == ["ignore_patterns", "top_k"]
    report = json.loads(proc.stdout)
    failures = {f["path"]: f["reason"] for f in report["failures"]}
    expected_failed = set()
    for case in cases:  # permissions hold for the CLI: it runs without the override
        expect = case.outcome(privileged=False)
        if expect in (hc.INDEXED, hc.ABSENT):
            assert case.path not in failures, case.name
        else:
            reason = "40 MB file size limit (setting max_file_mb)" if case.name in (
                "200 MB text file", "single 50 MB line") else expect  # fmt: skip
            assert reason in failures.get(case.path, ""), f"{case.name}: {failures.get(case.path)}"
            expected_failed.add(case.path)
    assert set(failures) == expected_failed
    assert report["files_failed"] == len(failures)
    assert failures[str(root / "locked.txt")] == "permission denied"

    status = run_cli("--data-dir", str(cli_data_dir), "status", "--json")
    assert status.returncode == 0, status.stderr
    listed = json.loads(status.stdout)["failures"]
    assert listed == sorted(report["failures"], key=lambda f: f["path"])


def test_json_output_carries_undecodable_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--json`` output for a non-UTF-8 path is valid UTF-8 whose string decodes back to it."""
    from app.cli.common import print_json

    path = os.fsdecode(b"/docs/broken \xe9.pdf")
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", write_through=True)
    monkeypatch.setattr(sys, "stdout", stdout)
    print_json({"failures": [{"path": path, "reason": "it is not a valid PDF"}]})
    printed = json.loads(raw.getvalue().decode("utf-8"))
    assert os.fsencode(printed["failures"][0]["path"]) == b"/docs/broken \xe9.pdf"
