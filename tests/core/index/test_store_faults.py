"""Vector-store faults: a read-only store folder and a full disk, each with a clear message.

Real faults where the machine allows them (a read-only bind mount and a small tmpfs, set up in
a private mount namespace so nothing leaks out of the test), and the same errors injected at
the chromadb collection — the third-party boundary — everywhere. Every case ends with an index
whose indexed files all have their vectors, and a re-run that embeds only what is missing.
The real faults need a process in its own mount namespace, so they are marked ``slow``.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.core.engine import Engine
from app.core.errors import StoreError
from tests.helpers import long_markdown

REPO = Path(__file__).resolve().parents[3]
NAMESPACES = (
    ["unshare", "--mount", "--propagation", "private"],
    ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"],
)


class FaultyCollection:
    """A chromadb collection whose chosen methods fail with an OSError, as a sick disk would."""

    def __init__(self, col: Any, error: OSError, methods: tuple[str, ...]) -> None:
        self._col, self._error, self._methods = col, error, methods

    def __getattr__(self, name: str) -> Any:
        if name in self._methods:

            def fail(*args: Any, **kwargs: Any) -> Any:
                raise self._error

            return fail
        return getattr(self._col, name)


def write_notes(folder: Path, names: list[str], paragraphs: int = 6) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        seed = sum(map(ord, name))
        (folder / f"{name}.md").write_text(long_markdown(seed=seed, paragraphs=paragraphs))


def waiting(engine: Engine) -> set[str]:
    """Texts written (searchable by their words) whose vector is still to be computed."""
    rows = engine.manifest.conn.execute("SELECT text_hash FROM vectors_pending")
    return {r[0] for r in rows}


def assert_consistent(engine: Engine) -> None:
    """Every passage of an indexed file has its vector or waits for it in the list the next
    sync drains; the manifest agrees with itself."""
    assert engine.manifest.check() == []
    store = engine.store()
    listed = waiting(engine)
    for path, rec in engine.manifest.files_under().items():
        hashes = {c.text_hash for c in engine.manifest.chunks_of(path)}
        assert rec.status == "indexed" and hashes, path
        assert store.existing(hashes) | (hashes & listed) == hashes, path


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.mark.parametrize(
    ("code", "words"), [(errno.ENOSPC, "is full"), (errno.EROFS, "is read-only")]
)
def test_injected_write_faults_leave_a_consistent_index(make_engine, tmp_path, code, words):
    docs = tmp_path / "docs"
    write_notes(docs, ["alpha", "beta"])
    engine = make_engine()
    engine.index([str(docs)])
    store = engine.store()
    real, before = store._col, engine.manifest.all_hashes()
    fault = OSError(code, os.strerror(code))

    write_notes(docs, ["gamma", "delta"])  # new texts: the vector write fails
    store._col = FaultyCollection(real, fault, ("upsert", "add"))
    with pytest.raises(StoreError) as err:
        engine.index([str(docs)])
    msg = str(err.value)
    assert words in msg and str(engine.data.chroma_path) in msg and "\n" not in msg
    # read and searchable by their words; their new texts wait for vectors
    assert engine.manifest.file(str(docs / "gamma.md")) is not None
    assert waiting(engine) == engine.manifest.all_hashes() - before
    store._col = real
    assert_consistent(engine)

    report = engine.index([str(docs)])  # the fault is gone: only the waiting texts are embedded
    assert report.files_indexed == 0 and report.files_unchanged == 4
    assert report.chunks_embedded == len(engine.manifest.all_hashes() - before) > 0
    assert waiting(engine) == set()
    assert_consistent(engine)

    (docs / "alpha.md").unlink()  # the manifest forgets it, then deleting its vectors fails
    store._col = FaultyCollection(real, fault, ("delete",))
    with pytest.raises(StoreError, match=words):
        engine.index([str(docs)])
    store._col = real
    assert engine.manifest.file(str(docs / "alpha.md")) is None
    assert_consistent(engine)
    report = engine.index([str(docs)])
    assert report.files_indexed == report.chunks_embedded == 0
    assert store.count() == len(engine.manifest.all_hashes())  # the orphans were collected
    assert_consistent(engine)


@pytest.fixture(scope="module")
def namespace(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """How to run a shell with its own mounts here; skips where that is not allowed."""
    probe = tmp_path_factory.mktemp("probe")
    for prefix in NAMESPACES:
        try:
            done = subprocess.run(
                [*prefix, "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$0"', str(probe)],
                capture_output=True,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    pytest.skip("this machine allows no private mount namespace (unshare) for real faults")


def indexed_data_dir(data: Path, docs: Path, embedder: Any) -> tuple[Engine, set[str]]:
    """Index two notes in-process, then release the store for the CLI run that follows."""
    write_notes(docs, ["alpha", "beta"])
    engine = Engine(data, embedder=embedder)
    assert engine.index([str(docs)]).files_indexed == 2
    hashes = engine.manifest.all_hashes()
    engine.store().close()
    engine.close()
    return engine, hashes


def rerun_embeds_only_the_new_texts(data: Path, docs: Path, embedder: Any, before: set[str]):
    engine = Engine(data, embedder=embedder)
    try:
        # the failed run wrote the new file (searchable by its words); its vectors wait
        assert engine.manifest.file(str(docs / "gamma.md")) is not None
        assert waiting(engine) == engine.manifest.all_hashes() - before
        assert_consistent(engine)
        report = engine.index([str(docs)])
        assert report.files_indexed == 0 and report.files_unchanged == 3
        assert report.chunks_embedded == len(engine.manifest.all_hashes() - before) > 0
        assert_consistent(engine)
    finally:
        engine.close()


def cli_in(namespace: list[str], script: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    cmd = [*namespace, "sh", "-c", script, "sh", sys.executable, *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.slow
def test_read_only_store_folder_is_named_and_nothing_is_lost(
    namespace, torch_embedder, cli_data_dir, tmp_path
):
    docs = tmp_path / "docs"
    engine, before = indexed_data_dir(cli_data_dir, docs, torch_embedder)
    chroma = engine.data.chroma_path
    write_notes(docs, ["gamma"], paragraphs=10)
    script = (
        'mount --bind "$2" "$2" && mount -o remount,ro,bind "$2" && '
        'exec "$1" -m app --data-dir "$3" index "$4" --json'
    )
    done = cli_in(namespace, script, str(chroma), str(cli_data_dir), str(docs))
    assert done.returncode == 1 and not done.stdout, done.stderr
    line = one_line(done.stderr)
    assert "is read-only" in line and str(chroma) in line and "writable" in line
    rerun_embeds_only_the_new_texts(cli_data_dir, docs, torch_embedder, before)


@pytest.mark.slow
def test_full_disk_under_the_store_is_named_and_nothing_is_lost(
    namespace, torch_embedder, cli_data_dir, tmp_path
):
    docs, out = tmp_path / "docs", tmp_path / "out"
    engine, before = indexed_data_dir(cli_data_dir, docs, torch_embedder)
    chroma = engine.data.chroma_path
    write_notes(docs, ["gamma"], paragraphs=60)  # ~50 vectors: more than the 16 KB left free
    (out / "stage").mkdir(parents=True)
    script = """
    set -e
    py=$1 chroma=$2 data=$3 docs=$4 out=$5
    cp -a "$chroma/." "$out/stage/"
    mount -t tmpfs -o size=$(( $(du -sk "$out/stage" | cut -f1) + 16 ))k tmpfs "$chroma"
    cp -a "$out/stage/." "$chroma/"
    set +e
    "$py" -m app --data-dir "$data" index "$docs" --json > "$out/stdout" 2> "$out/stderr"
    echo $? > "$out/rc"
    set -e
    mount -o remount,size=256m "$chroma"
    mkdir "$out/after" && cp -a "$chroma/." "$out/after/"
    """
    done = cli_in(namespace, script, str(chroma), str(cli_data_dir), str(docs), str(out))
    assert done.returncode == 0, done.stderr
    stderr = (out / "stderr").read_text()
    assert (out / "rc").read_text().strip() == "1" and not (out / "stdout").read_text(), stderr
    line = one_line(stderr)
    assert (
        "is full" in line
        and str(chroma) in line
        and "free some space" in line
        and "nothing was lost" in line
    )
    shutil.rmtree(chroma)  # the store as the failed run left it, now on a disk with room
    shutil.move(out / "after", chroma)
    rerun_embeds_only_the_new_texts(cli_data_dir, docs, torch_embedder, before)


@pytest.mark.slow
def test_a_new_store_is_opened_by_one_process_at_a_time(tmp_path: Path) -> None:
    """Two processes opening a new store at once (the window and a command) both created
    Chroma's tables, and one failed: "table collections already exists". The second waits."""
    from app.core.index.store import OPEN_LOCK
    from app.core.locking import held

    path = tmp_path / "chroma"
    opened = tmp_path / "opened"
    script = (
        "import sys; from pathlib import Path; from app.core.index.store import _local_client; "
        "_local_client(Path(sys.argv[1])); Path(sys.argv[2]).touch()"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with held(tmp_path / f"chroma{OPEN_LOCK}"):
        other = subprocess.Popen([sys.executable, "-c", script, str(path), str(opened)], env=env)
        with pytest.raises(subprocess.TimeoutExpired):
            other.wait(timeout=5)  # it is waiting for this process to finish opening
        assert not opened.exists()
    assert other.wait(timeout=120) == 0 and opened.exists()
