"""Server mode against a real `chroma run` process on loopback: index, search, restart, share.

Starting the server takes seconds, so the tests that need one are marked ``slow``.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from app.core.engine import Engine
from app.core.errors import StoreError
from app.core.index.namespace import data_dir_namespace
from app.core.index.store import VectorStore
from tests.helpers import eventually, footnotes, long_markdown, make_corpus

CHROMA = Path(sys.executable).with_name("chroma")
QUERIES = ["tomatoes direct sun watering", "sourdough starter flour", "revenue third quarter"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ChromaServer:
    """A `chroma run` process on loopback that can be stopped and started on the same port."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        cmd = [str(CHROMA), "run", "--path", str(self.path / "db")]
        cmd += ["--host", "127.0.0.1", "--port", str(self.port)]
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
        with open(self.path / "server.log", "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        proc = self.proc

        def answers() -> bool:
            if proc.poll() is not None:
                raise RuntimeError(f"chroma run exited: {(self.path / 'server.log').read_text()}")
            try:
                return httpx.get(f"{self.url}/api/v2/heartbeat", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        eventually(answers, "chroma run answers its heartbeat", timeout=60, every=0.1)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    srv = ChromaServer(tmp_path_factory.mktemp("chroma-server"))
    srv.start()
    yield srv
    srv.stop()


def cli(data: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``footnotes`` in this process."""
    return footnotes("--data-dir", str(data), "--chroma-url", url, *args)


def top(hits: list, n: int = 3) -> list[tuple[str, int | None, int, int]]:
    """What a person sees of a result list: which passage, in which order."""
    return [
        (h["path"], h["page"], h["start"], h["end"])
        if isinstance(h, dict)
        else (h.path, h.page, h.start, h.end)
        for h in hits[:n]
    ]


def all_stored(engine: Engine) -> bool:
    hashes = engine.manifest.all_hashes()
    return bool(hashes) and engine.store().existing(hashes) == hashes


@pytest.mark.slow
def test_engine_on_server_finds_what_the_embedded_store_finds(make_engine, server, tmp_path):
    docs = make_corpus(tmp_path / "docs")
    local, remote = make_engine("local"), make_engine("remote", chroma_url=server.url)
    local_report = local.index([str(docs)])
    remote_report = remote.index([str(docs)])
    assert remote_report.files_indexed == local_report.files_indexed == 5
    assert remote_report.chunks_total == local_report.chunks_total
    assert remote.store().location == server.url and all_stored(remote)
    for query in QUERIES:
        want, got = local.search(query, 5), remote.search(query, 5)
        assert top(got.hits, 5) == top(want.hits, 5), query
        for a, b in zip(got.hits, want.hits, strict=True):
            assert a.score == pytest.approx(b.score)
            assert a.dense_score == pytest.approx(b.dense_score, abs=1e-4)


@pytest.mark.slow
def test_two_data_dirs_on_one_server_never_delete_each_others_vectors(
    make_engine, server, tmp_path
):
    common = long_markdown(seed=11, paragraphs=6)
    for name, seed in (("a", 12), ("b", 13)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "common.md").write_text(common)
        (tmp_path / name / "own.md").write_text(long_markdown(seed=seed, paragraphs=6))
    one, two = make_engine("one", chroma_url=server.url), make_engine("two", chroma_url=server.url)
    one.index([str(tmp_path / "a")])
    report = two.index([str(tmp_path / "b")])
    if two.store().shared:  # one collection: the common file's texts were embedded by the first
        assert one.store().name == two.store().name and report.chunks_reused > 0
    else:  # a collection per data dir: nothing shared, so each may delete in its own
        assert one.store().name != two.store().name and report.chunks_reused == 0

    for path in (tmp_path / "a").iterdir():  # the first machine drops everything it had
        path.unlink()
    assert one.index([str(tmp_path / "a")]).files_removed == 2
    assert not one.manifest.all_hashes()
    assert all_stored(two)  # the second machine's passages all still have their vectors
    # its own vectors too: a paragraph of the common file, asked whole, is the dense search's
    # first (a verbatim paragraph, a margin no CPU's rounding flips; 80 characters of the
    # random words both files share were a near-tie between them)
    hit = two.search(common.split("\n\n")[2], 1).hits[0]
    assert hit.path == str(tmp_path / "b" / "common.md") and hit.dense_rank == 1


@pytest.mark.slow
def test_a_namespaced_collection_belongs_to_one_data_dir(embedder, server, tmp_path):
    ns = data_dir_namespace(tmp_path / "d1")
    assert data_dir_namespace(tmp_path / "d1") == ns != data_dir_namespace(tmp_path / "d2")
    mine = VectorStore(embedder.model_id, embedder.dim, url=server.url, namespace=ns)
    other = VectorStore(
        embedder.model_id, embedder.dim, url=server.url, namespace=data_dir_namespace(tmp_path)
    )
    shared = VectorStore(embedder.model_id, embedder.dim, url=server.url)
    assert len({mine.name, other.name, shared.name}) == 3
    assert not mine.shared and shared.shared
    vectors = np.eye(2, embedder.dim, dtype=np.float32)
    for store in (mine, other, shared):
        store.add(["ns-a", "ns-b"], vectors)
    mine.delete(["ns-a"])
    shared.delete(["ns-a"])  # kept: another data dir may reference it
    assert mine.existing(["ns-a", "ns-b"]) == {"ns-b"}
    assert other.existing(["ns-a", "ns-b"]) == shared.existing(["ns-a", "ns-b"]) == {"ns-a", "ns-b"}


class NotChroma(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_error(404)

    def log_message(self, *args: object) -> None:
        pass


def test_wrong_addresses_get_one_clear_line(tmp_path):
    down = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(StoreError) as err:
        VectorStore("m", 4, url=down)
    msg = str(err.value)
    assert down in msg and "not answering" in msg and "chroma run" in msg and "\n" not in msg

    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotChroma)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{web.server_address[1]}"
        with pytest.raises(StoreError, match="not a Chroma server") as err:
            VectorStore("m", 4, url=url)
        assert url in str(err.value) and "--chroma-url" in str(err.value)
    finally:
        web.shutdown()
        web.server_close()

    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        from app.core.index.store import check_server

        with pytest.raises(StoreError, match=r"no answer within 0.5 s"):
            check_server(url, timeout=0.5)

    with pytest.raises(StoreError, match="http://HOST:PORT"):
        VectorStore("m", 4, url="ftp://127.0.0.1:21")


@pytest.mark.slow
def test_cli_survives_a_server_restart_and_loses_nothing(
    cli_data_dir, torch_embedder, tmp_path_factory, tmp_path
):
    torch = torch_embedder  # what the CLI uses
    srv = ChromaServer(tmp_path_factory.mktemp("restarted"))
    srv.start()
    engine = Engine(cli_data_dir, embedder=torch, chroma_url=srv.url)
    try:
        docs = make_corpus(tmp_path / "docs")
        assert engine.index([str(docs)]).files_indexed == 5
        engine.close()

        srv.stop()
        (docs / "later.md").write_text(long_markdown(seed=5, paragraphs=8))
        down = cli(cli_data_dir, srv.url, "index", str(docs), "--json")
        assert down.returncode == 1 and not down.stdout
        lines = down.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in down.stderr, down.stderr
        assert srv.url in lines[0] and "not answering" in lines[0] and "chroma run" in lines[0]

        srv.start()
        again = cli(cli_data_dir, srv.url, "index", str(docs), "--json")
        assert again.returncode == 0, again.stderr
        report = json.loads(again.stdout)
        engine = Engine(cli_data_dir, embedder=torch, chroma_url=srv.url)
        later = {c.text_hash for c in engine.manifest.chunks_of(str(docs / "later.md"))}
        assert report["files_indexed"] == 1 and report["files_unchanged"] == 6
        assert report["chunks_embedded"] == len(later) > 0  # only the new file's texts
        assert engine.store().count() == engine.manifest.counts()["distinct_texts"]
        assert all_stored(engine) and engine.manifest.check() == []

        batch = tmp_path / "q.jsonl"
        batch.write_text("".join(json.dumps({"_id": q, "text": q}) + "\n" for q in QUERIES))
        out = cli(cli_data_dir, srv.url, "search", "--batch", str(batch), "-k", "3")
        assert out.returncode == 0, out.stderr
        local = Engine(tmp_path / "local", embedder=torch)
        local.index([str(docs)])
        for line in out.stdout.splitlines():
            got = json.loads(line)
            assert top(got["hits"]) == top(local.search(got["_id"], 3).hits), got["_id"]
        local.close()
    finally:
        engine.close()
        srv.stop()
