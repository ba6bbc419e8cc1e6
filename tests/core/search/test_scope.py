"""Scope filters (--in, --type, --since, --until): applied inside retrieval, on the engine and
the command line, with the verdict for a scope that matches nothing."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from app.core.host import messages
from app.core.index.manifest import Manifest
from app.core.index.records import FileRecord
from app.core.search import retrieval
from app.core.search.scope import Scope, choices, parse_date, parse_type
from tests.fake_ollama import FakeOllama
from tests.helpers import footnotes, make_pdf

CHAIN = "The chain on a road bicycle should be replaced every three thousand kilometres."
QUESTION = "How often should the chain on a road bicycle be replaced?"
SHARED = "The lantern festival on the harbour starts when the first copper bell rings at dusk."


def _at(path: Path, when: datetime) -> Path:
    stamp = when.timestamp()
    os.utime(path, (stamp, stamp))
    return path


def write_docs(root: Path) -> Path:
    """Garden notes (2023), bike notes (2024), a PDF stamped just after midnight on
    2024-01-01, and a crowd of 60 files that match the bike question better than the garden."""
    garden, bikes, crowd = root / "garden", root / "bikes", root / "crowd"
    for folder in (garden, bikes, crowd, root / "bikes-old"):
        folder.mkdir(parents=True)
    old = datetime(2023, 3, 15, 12, 0)
    texts = {
        garden / "tomatoes.md": "# Tomatoes\n\nTomatoes need six hours of direct sun and deep "
        "watering twice a week. Old tomato stakes should be replaced every spring.\n",
        garden / "compost.txt": "A compost heap wants green nitrogen material and brown "
        "carbon material. Turn it every two weeks so it stays warm.\n",
        garden / "beds.markdown": "# Raised beds\n\nRaised beds drain well; their boards rot "
        "and must be replaced after about ten years.\n",
        garden / "shed.txt": "The garden shed holds the wheelbarrow, two spades and a rake "
        "with a replaced handle.\n",
        garden / "shared.txt": SHARED + "\n",
        bikes / "chain.txt": CHAIN + " A worn chain wears out the cassette as well.\n",
        bikes / "tyres.md": "# Tyres\n\nRoad bicycle tyres are pumped to seven bar and "
        "replaced when the tread shows the wear marks.\n",
        bikes / "shared.txt": SHARED + "\n",
        root / "bikes-old" / "chain-notes.txt": CHAIN + " (copied from an old notebook)\n",
    }
    for i in range(60):
        texts[crowd / f"rider{i:02d}.txt"] = (
            f"Rider {i} logbook. {CHAIN} Rider {i} replaced the bicycle chain on schedule.\n"
        )
    for path, text in texts.items():
        path.write_text(text)
    for path in garden.iterdir():
        _at(path, old)
    _at(garden / "compost.txt", datetime(2023, 12, 31, 23, 59, 30))
    for path in (*bikes.iterdir(), *(root / "bikes-old").iterdir()):
        _at(path, datetime(2024, 6, 15, 12, 0))
    for path in crowd.iterdir():
        _at(path, datetime(2025, 1, 1, 12, 0))
    pdf = make_pdf(
        root / "report.pdf",
        ["Workshop report. The bicycle chain of the fleet was replaced in December."],
    )
    _at(pdf, datetime(2024, 1, 1, 0, 30))
    return root


@pytest.fixture(scope="module")
def scoped(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Iterator[tuple[Any, Path]]:
    """(engine, docs): the documents above indexed once, shared by the read-only tests."""
    from app.core.engine import Engine

    base = tmp_path_factory.mktemp("scope")
    docs = write_docs(base / "docs")
    engine = Engine(base / "data", embedder=embedder)
    report = engine.index([str(docs)])
    assert report.files_failed == 0
    yield engine, docs.resolve()
    engine.close()


def paths_of(result: Any) -> list[str]:
    return [h.path for h in result.hits]


# -- the engine ------------------------------------------------------------------------------
@pytest.mark.parametrize("read_hashes", [True, False], ids=["scope-vectors", "widened-ranking"])
@pytest.mark.parametrize("mode", ["hybrid", "dense", "lexical"])
def test_scoped_search_gets_k_hits_inside_though_better_ones_are_outside(
    scoped: tuple[Any, Path], monkeypatch: pytest.MonkeyPatch, mode: str, read_hashes: bool
) -> None:
    engine, docs = scoped
    # both ways of ranking a scope's vectors: its own ids, or the whole index filtered
    monkeypatch.setattr(retrieval, "READ_HASHES_BELOW", 10**9 if read_hashes else 0)
    everywhere = engine.search(QUESTION, k=3, mode=mode)
    assert not any(p.startswith(str(docs / "garden")) for p in paths_of(everywhere))

    garden = engine.search(QUESTION, k=3, mode=mode, scope=Scope.of([docs / "garden"]))
    assert len(garden.hits) == 3, "the scope holds 5 passages; 3 were asked for"
    assert all(p.startswith(str(docs / "garden") + "/") for p in paths_of(garden))
    assert [h.rank for h in garden.hits] == [1, 2, 3]


def test_the_scope_is_ranked_not_the_unscoped_candidates(scoped: tuple[Any, Path]) -> None:
    """60 better passages outside: a filter over the unscoped candidates would find nothing."""
    engine, docs = scoped
    garden = str(docs / "garden") + "/"
    n = engine.retriever.candidates
    qvec = engine.embedder().encode([QUESTION])[0]
    dense = retrieval.dense_rows(engine.manifest, engine.store(), qvec, n)
    lex = retrieval.lexical_rows(engine.manifest, QUESTION, n)
    assert len(dense) == len(lex) == n
    assert not any(row.path.startswith(garden) for row, _ in dense + lex)
    hits = engine.search(QUESTION, k=1, scope=Scope.of([docs / "garden"])).hits
    assert len(hits) == 1 and hits[0].path.startswith(garden)


def test_in_a_file_and_in_a_folder(scoped: tuple[Any, Path]) -> None:
    engine, docs = scoped
    one = engine.search(QUESTION, k=5, scope=Scope.of([docs / "garden" / "shed.txt"]))
    assert paths_of(one) == [str(docs / "garden" / "shed.txt")]
    two = Scope.of([docs / "bikes", docs / "report.pdf"])
    found = set(paths_of(engine.search(QUESTION, k=10, scope=two)))
    assert found == {
        str(docs / "bikes" / "chain.txt"),
        str(docs / "bikes" / "tyres.md"),
        str(docs / "bikes" / "shared.txt"),
        str(docs / "report.pdf"),
    }, "a sibling folder whose name starts the same (bikes-old) is not inside bikes"


def test_a_text_in_two_files_is_found_only_in_the_one_in_scope(scoped: tuple[Any, Path]) -> None:
    """Both copies share one vector (one text hash): the copy outside the scope is dropped."""
    engine, docs = scoped
    for side in ("garden", "bikes"):
        result = engine.search(
            "When does the lantern festival start?", k=8, scope=Scope.of([docs / side])
        )
        shared = [h for h in result.hits if h.text.strip() == SHARED]
        assert [h.path for h in shared] == [str(docs / side / "shared.txt")]
        assert shared[0].rank == 1


def test_type_filter_with_aliases(scoped: tuple[Any, Path]) -> None:
    engine, docs = scoped
    pdf = engine.search(QUESTION, k=5, scope=Scope.of(types=["pdf"]))
    assert paths_of(pdf) == [str(docs / "report.pdf")]
    assert pdf.hits[0].page == 1
    md = set(paths_of(engine.search(QUESTION, k=10, scope=Scope.of(types=["md"]))))
    assert md == {
        str(docs / "garden" / "tomatoes.md"),
        str(docs / "garden" / "beds.markdown"),  # .markdown is markdown too
        str(docs / "bikes" / "tyres.md"),
    }
    both = Scope.of([docs / "garden"], types=[".TXT"])  # dot and case do not matter
    assert {Path(p).name for p in paths_of(engine.search(QUESTION, k=10, scope=both))} == {
        "compost.txt",
        "shed.txt",
        "shared.txt",
    }


def test_since_and_until_are_inclusive_days_of_modification(scoped: tuple[Any, Path]) -> None:
    engine, docs = scoped

    def names(**period: date) -> set[str]:
        result = engine.search(QUESTION, k=100, scope=Scope.of(**period))  # type: ignore[arg-type]
        return {str(Path(p).relative_to(docs)) for p in paths_of(result)}

    new_year = date(2024, 1, 1)
    assert names(since=new_year, until=new_year) == {"report.pdf"}  # 00:30 that day
    assert "garden/compost.txt" in names(until=date(2023, 12, 31))  # 23:59:30 that day
    older = names(until=date(2023, 12, 31))
    assert older and all(n.startswith("garden/") for n in older)
    newer = names(since=date(2024, 6, 15))
    assert "bikes/chain.txt" in newer and "report.pdf" not in newer
    assert not any(n.startswith("garden/") for n in newer)
    both = names(since=new_year, until=date(2024, 12, 31))
    assert "report.pdf" in both and "bikes/chain.txt" in both
    assert not any(n.startswith(("garden/", "crowd/")) for n in both)


def test_a_scope_matching_nothing_finds_nothing_and_says_why(scoped: tuple[Any, Path]) -> None:
    engine, docs = scoped
    scope = Scope.of([docs / "garden"], types=["pdf"])
    result = engine.search(QUESTION, k=5, scope=scope)
    assert result.hits == [] and result.support.supported is False
    reason = result.support.reason
    assert reason.startswith("Nothing in this scope: no indexed file")
    assert str(docs / "garden") in reason and "pdf" in reason
    assert result.to_json()["scope"] == {
        "in": [str(docs / "garden")],
        "type": ["pdf"],
        "since": None,
        "until": None,
    }
    later = engine.search(QUESTION, scope=Scope.of(since=date(2100, 1, 1))).support.reason
    assert "modified on or after 2100-01-01" in later
    # beyond what a 64-bit nanosecond clock can hold, both ways
    assert not engine.search(QUESTION, scope=Scope.of(since=date(9999, 12, 31))).hits
    assert engine.search(QUESTION, scope=Scope.of(since=date(1, 1, 1), until=date.max)).hits


def test_empty_scope_is_everything(scoped: tuple[Any, Path]) -> None:
    engine, _ = scoped
    plain, empty = engine.search(QUESTION, k=5), engine.search(QUESTION, k=5, scope=Scope())
    assert paths_of(plain) == paths_of(empty)
    assert "scope" not in empty.to_json()


def test_choices_list_watched_folders_and_indexed_types(scoped: tuple[Any, Path]) -> None:
    engine, docs = scoped
    engine.add_folder(str(docs / "garden"))
    try:
        offered = choices(engine.manifest)
    finally:
        engine.manifest.remove_folder(str(docs / "garden"))
    assert offered.folders == (str(docs / "garden"),)
    assert offered.types[0] == "txt" and set(offered.types) == {"txt", "md", "pdf"}


# -- the scope itself ------------------------------------------------------------------------
def test_parsing_types_and_dates() -> None:
    assert parse_type(".PDF") == "pdf"
    assert parse_type("markdown") == "md" and parse_type("htm") == "html"
    assert parse_type(".JPEG") == parse_type("jpg") and parse_type("tiff") == parse_type("tif")
    with pytest.raises(ValueError, match="unknown file type 'xyz'"):
        parse_type("xyz")
    assert parse_date("2024-02-29") == date(2024, 2, 29)
    for bad in ("2024-13-01", "yesterday", "2023-02-29"):
        with pytest.raises(ValueError, match="YYYY-MM-DD"):
            parse_date(bad)
    with pytest.raises(ValueError, match="starts"):
        Scope.of(since=date(2024, 2, 1), until=date(2024, 1, 1))


def test_summary_and_paths_are_normalised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "Notes").mkdir()
    scope = Scope.of(["Notes", "./Notes/"], types=["pdf", "PDF"], since=date(2024, 1, 1))
    assert scope.paths == (str(tmp_path.resolve() / "Notes"),)
    assert scope.types == ("pdf",)
    assert scope.summary() == "In: Notes · pdf · since 2024-01-01"
    assert Scope().everything and Scope().summary() == ""
    span = Scope(since=date(2024, 1, 1), until=date(2024, 3, 31))
    assert span.summary() == "2024-01-01 – 2024-03-31"


def test_path_filter_is_exact_bytes_not_a_pattern(tmp_path: Path) -> None:
    """Wildcards in names, upper case, a sibling sharing a prefix, names that are not UTF-8."""
    manifest = Manifest(tmp_path / "m.db")
    names = [
        "/d/a_b/x.txt",
        "/d/axb/y.txt",
        "/d/A_B/z.txt",
        "/d/a_b-old/w.txt",
        "/d/a_b.txt",
        "/d/caf\udce9/v.txt",
        "/d/100%/u.txt",
        "/d/100x/t.txt",
    ]
    for name in names:
        manifest.replace_file(FileRecord(name, 1, 1, "h", "indexed"), [])

    def matched(*paths: str) -> set[str]:
        where, params = Scope(paths=paths).files_where("f")
        rows = manifest.conn.execute(f"SELECT f.path FROM files f WHERE {where}", params)
        return {r[0] for r in rows}

    assert matched("/d/a_b") == {"/d/a_b/x.txt"}
    assert matched("/d/caf\udce9") == {"/d/caf\udce9/v.txt"}
    assert matched("/d/100%") == {"/d/100%/u.txt"}
    assert matched("/d/a_b.txt", "/d/axb") == {"/d/a_b.txt", "/d/axb/y.txt"}
    assert matched("/") == set(names)
    manifest.close()


def test_search_request_carries_the_scope_to_the_engine_process() -> None:
    import pickle

    scope = Scope(paths=("/d/notes",), types=("pdf",), since=date(2024, 1, 1))
    request = messages.Search("when", 4, scope=scope)
    assert pickle.loads(pickle.dumps(request)) == request


# -- the command line ------------------------------------------------------------------------
def search(data: Path, *args: str) -> Any:
    proc = footnotes("--data-dir", str(data), "search", *args)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture
def cli(cli_index: tuple[Path, Path, dict]) -> tuple[Path, Path]:
    """(data dir, docs) of the session's CLI-built index (make_corpus)."""
    return cli_index[0], cli_index[1].resolve()


def test_cli_in_folder_in_file_and_type(cli: tuple[Path, Path]) -> None:
    data, docs = cli
    question = "How often should the chain on a road bicycle be replaced?"
    folder = json.loads(
        search(data, question, "-k", "2", "--in", str(docs / "notes"), "--json").stdout
    )
    assert len(folder["hits"]) == 2
    assert all(h["path"].startswith(str(docs / "notes") + "/") for h in folder["hits"])
    assert folder["scope"]["in"] == [str(docs / "notes")]

    garden = str(docs / "notes" / "garden.md")
    one = json.loads(search(data, question, "--in", garden, "--json").stdout)
    assert one["hits"] and {h["path"] for h in one["hits"]} == {garden}

    pdf = json.loads(search(data, question, "--type", "pdf", "--json").stdout)
    assert pdf["hits"] and {Path(h["path"]).name for h in pdf["hits"]} == {"report.pdf"}
    assert pdf["scope"]["type"] == ["pdf"]
    two = json.loads(search(data, question, "--type", "pdf", "--type", "md", "--json").stdout)
    assert len(two["hits"]) == 8  # the default k, from within the two types
    assert {Path(h["path"]).suffix for h in two["hits"]} <= {".pdf", ".md"}

    text = search(data, question, "--in", str(docs / "notes" / "deep"), "--type", "txt").stdout
    assert "Scope: In: deep · txt" in text and "bikes.txt" in text


def test_cli_in_resolves_relative_paths(
    cli: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    data, docs = cli
    monkeypatch.chdir(docs / "notes")
    out = json.loads(search(data, "sourdough starter", "--in", "page.html", "--json").stdout)
    assert [h["path"] for h in out["hits"]] == [str(docs / "notes" / "page.html")]


def test_cli_batch_applies_the_scope_to_every_line(cli: tuple[Path, Path], tmp_path: Path) -> None:
    data, _ = cli
    batch = tmp_path / "q.jsonl"
    lines = [{"_id": "a", "text": "bicycle chain"}, {"_id": "b", "text": "tomatoes sun"}]
    batch.write_text("".join(json.dumps(line) + "\n" for line in lines))
    proc = search(data, "--batch", str(batch), "-k", "2", "--type", "pdf")
    outs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [o["_id"] for o in outs] == ["a", "b"]
    for out in outs:
        assert out["hits"] and all(h["path"].endswith("report.pdf") for h in out["hits"])


def test_cli_scope_matching_nothing_exits_0_with_the_reason(cli: tuple[Path, Path]) -> None:
    data, docs = cli
    for flags in (
        ["--in", str(docs / ".git")],  # there, but nothing indexed (a typo is a usage error)
        ["--type", "epub"],
        ["--since", "2999-01-01"],
        ["--in", str(docs / "notes"), "--type", "pdf"],
    ):
        out = json.loads(search(data, "bicycle chain", *flags, "--json").stdout)
        assert out["hits"] == [], flags
        assert out["support"]["supported"] is False
        assert out["support"]["reason"].startswith("Nothing in this scope"), flags
    text = search(data, "bicycle chain", "--until", "1990-01-01").stdout
    assert "UNSUPPORTED" in text and "Nothing in this scope" in text


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--since", "2024-13-01"], "invalid date '2024-13-01'"),
        (["--until", "last week"], "invalid date 'last week'"),
        (["--type", "xyz"], "unknown file type 'xyz'"),
        (["--since", "2024-02-01", "--until", "2024-01-01"], "starts (2024-02-01) after"),
    ],
)
def test_cli_bad_filters_are_usage_errors(tmp_path: Path, flags: list[str], said: str) -> None:
    for command in ("search", "ask"):
        proc = footnotes("--data-dir", str(tmp_path / "d"), command, "bikes", *flags)
        assert proc.returncode == 2, (command, proc.stderr)
        assert proc.stderr.startswith("usage: footnotes") and said in proc.stderr
        assert proc.stdout == ""
    assert not (tmp_path / "d").exists(), "a usage error opens no data directory"


@pytest.fixture
def ollama(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOllama]:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    with FakeOllama(echo=True) as fake:
        yield fake


def test_ask_answers_from_within_the_scope(cli: tuple[Path, Path], ollama: FakeOllama) -> None:
    data, docs = cli
    proc = footnotes(
        "--data-dir", str(data), "--ollama-host", ollama.url,
        "ask", QUESTION, "--in", str(docs / "notes" / "garden.md"), "--json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["scope"]["in"] == [str(docs / "notes" / "garden.md")]
    assert out["sources"] and {s["path"] for s in out["sources"]} == {out["scope"]["in"][0]}
    prompt = ollama.chats()[0].body["messages"][-1]["content"]
    assert "garden.md" in prompt and "three thousand kilometres" not in prompt
    text = footnotes(
        "--data-dir", str(data), "--ollama-host", ollama.url,
        "ask", QUESTION, "--in", str(docs / "notes" / "garden.md"),
    ).stdout  # fmt: skip
    assert text.splitlines()[1] == "Scope: In: garden.md"  # under the verdict: what it was kept to


def test_ask_with_a_scope_matching_nothing_does_not_ask_the_model(
    cli: tuple[Path, Path], ollama: FakeOllama
) -> None:
    data, _ = cli
    base = ("--data-dir", str(data), "--ollama-host", ollama.url, "ask", QUESTION)
    proc = footnotes(*base, "--type", "docx", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["hits"] == [] and out["sources"] == [] and out["answered"] is False
    assert out["support"]["reason"].startswith("Nothing in this scope")
    text = footnotes(*base, "--since", "2999-01-01")
    assert text.returncode == 0 and text.stdout.startswith("UNSUPPORTED")
    assert "Nothing in this scope" in text.stdout and "Not asking" not in text.stdout
    assert ollama.chats() == []
