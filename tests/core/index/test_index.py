"""The sync engine on a real filesystem, a real Chroma store and real SQLite."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from app.core.index.indexer import Progress
from app.core.ingest.loaders import load_document
from tests.helpers import long_markdown, make_corpus, make_pdf


def assert_consistent(engine) -> None:
    """Every referenced text has a vector, no vector is unreferenced, FTS agrees with chunks."""
    manifest, store = engine.manifest, engine.store()
    assert manifest.check() == []
    assert store.all_ids() == manifest.all_hashes()


def test_index_then_search_returns_exact_passages(tmp_path: Path, make_engine) -> None:
    corpus = make_corpus(tmp_path / "docs")
    engine = make_engine()
    report = engine.index([str(corpus)])

    assert report.files_seen == 6  # garden, long, bikes, page.html, report.pdf, broken.md
    assert report.files_indexed == 5
    assert report.files_failed == 1
    assert report.failures[0][0].endswith("broken.md")
    assert "binary" in report.failures[0][1]
    assert report.chunks_embedded > 0
    assert report.chunks_total == engine.manifest.counts()["chunks"]
    indexed = set(engine.manifest.files_under())
    assert not any("node_modules" in p or ".git" in p or p.endswith(".jpg") for p in indexed)
    assert_consistent(engine)

    result = engine.search("how often should I replace my bike chain", k=3)
    top = result.hits[0]
    assert top.path.endswith("bikes.txt")
    page_text = load_document(top.path).pages[0].text
    assert page_text[top.start : top.end] == top.text

    pdf = engine.search("lighthouse project finish", k=3).hits[0]
    assert pdf.path.endswith("report.pdf") and pdf.page == 2
    assert load_document(pdf.path).pages[1].text[pdf.start : pdf.end] == pdf.text
    html_hits = engine.search("sourdough starter flour water", k=1).hits
    assert html_hits[0].path.endswith("page.html") and "alert" not in html_hits[0].text


def test_second_run_embeds_nothing_and_edit_embeds_little(tmp_path: Path, make_engine) -> None:
    corpus = make_corpus(tmp_path / "docs")
    engine = make_engine()
    first = engine.index([str(corpus)])

    again = engine.index([str(corpus)])
    assert again.chunks_embedded == 0
    assert again.files_unchanged == again.files_seen
    assert again.chunks_total == first.chunks_total

    long_md = corpus / "notes" / "long.md"
    paragraphs = long_md.read_text().split("\n\n")
    paragraphs[20] = paragraphs[20].replace(".", ", and a heron watched from the reeds.", 1)
    long_md.write_text("\n\n".join(paragraphs))
    edited = engine.index([str(corpus)])
    assert edited.files_indexed == 1
    assert 1 <= edited.chunks_embedded <= 2
    assert engine.search("heron watched from the reeds", k=1).hits[0].path == str(long_md)
    assert_consistent(engine)


def test_touch_without_change_is_confirmed_by_hash(tmp_path: Path, make_engine) -> None:
    corpus = make_corpus(tmp_path / "docs")
    engine = make_engine()
    engine.index([str(corpus)])
    (corpus / "notes" / "garden.md").touch()
    report = engine.index([str(corpus)])
    assert report.files_indexed == 0 and report.chunks_embedded == 0
    assert report.files_unchanged == report.files_seen


def test_rename_folder_and_duplicate_files_embed_nothing(tmp_path: Path, make_engine) -> None:
    corpus = make_corpus(tmp_path / "docs")
    engine = make_engine()
    engine.index([str(tmp_path / "docs")])
    (corpus / "notes").rename(corpus / "journal")
    shutil.copy(corpus / "report.pdf", corpus / "report-copy.pdf")

    report = engine.index([str(corpus)])
    assert report.chunks_embedded == 0
    assert report.files_removed == 4 and report.files_indexed == 5
    paths = set(engine.manifest.files_under())
    assert not any("/notes/" in p for p in paths)
    assert any("/journal/" in p for p in paths)
    hits = engine.search("replace road bicycle chain", k=1).hits
    assert "/journal/deep/bikes.txt" in hits[0].path
    assert_consistent(engine)


def test_deleted_files_leave_nothing_behind(tmp_path: Path, make_engine) -> None:
    corpus = make_corpus(tmp_path / "docs")
    engine = make_engine()
    engine.index([str(corpus)])
    before = engine.store().count()
    (corpus / "notes" / "long.md").unlink()
    report = engine.index([str(corpus)])
    assert report.files_removed == 1
    assert engine.store().count() < before
    assert all(not p.endswith("long.md") for p in engine.manifest.files_under())
    assert (
        engine.manifest.conn.execute(
            "SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH 'heron OR glacier'"
        ).fetchone()[0]
        == engine.manifest.conn.execute(
            "SELECT COUNT(*) FROM chunks WHERE text LIKE '%glacier%' OR text LIKE '%heron%'"
        ).fetchone()[0]
    )
    assert_consistent(engine)

    # Given explicitly and not watched, a folder that is gone takes its passages with it; a
    # watched folder that cannot be read keeps them (test_unavailable).
    shutil.rmtree(corpus)
    gone = engine.index([str(corpus)])
    assert gone.files_removed == 5 and engine.manifest.counts()["chunks"] == 0
    assert engine.store().count() == 0


def test_failed_file_is_not_retried_until_it_changes(tmp_path: Path, make_engine) -> None:
    corpus = make_corpus(tmp_path / "docs")
    engine = make_engine()
    engine.index([str(corpus)])
    again = engine.index([str(corpus)])
    assert again.files_failed == 1 and again.files_indexed == 0  # listed, not re-read
    (corpus / "broken.md").write_text("Now it is a real note about otters holding hands.\n")
    fixed = engine.index([str(corpus)])
    assert fixed.files_failed == 0 and fixed.files_indexed == 1
    assert engine.manifest.failures() == []
    assert engine.search("otters holding hands", k=1).hits[0].path.endswith("broken.md")


def test_crash_leftovers_are_repaired(tmp_path: Path, make_engine) -> None:
    """Vectors without chunks (crash between writes) go; chunks without vectors get embedded."""
    corpus = make_corpus(tmp_path / "docs")
    engine = make_engine()
    engine.index([str(corpus)])
    store = engine.store()
    vec = engine.embedder().encode(["an orphan from a crash"])
    store.add(["orphan-hash"], vec)
    some_hash = next(iter(engine.manifest.all_hashes()))
    store.delete([some_hash])

    report = engine.index([str(corpus)])
    assert "orphan-hash" not in store.all_ids()
    assert some_hash in store.all_ids()
    # the repair re-embedded from stored text, without reading a file again
    assert report.chunks_embedded == 1 and report.files_indexed == 0
    assert_consistent(engine)


def test_encrypted_pdf_with_empty_password_is_indexed(tmp_path: Path, make_engine) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    make_pdf(folder / "open.pdf", ["The vault combination is stored with the notary."], user_pw="")
    make_pdf(folder / "locked.pdf", ["Secret text."], user_pw="hunter2")
    engine = make_engine()
    report = engine.index([str(folder)])
    assert report.files_indexed == 1
    assert report.failures == [(str(folder / "locked.pdf"), report.failures[0][1])]
    assert "password" in report.failures[0][1]
    assert engine.search("vault combination notary", k=1).hits[0].path.endswith("open.pdf")


def test_index_single_file_and_markdown_headings(tmp_path: Path, make_engine) -> None:
    note = tmp_path / "guide.md"
    note.write_text(long_markdown(seed=3, paragraphs=12))
    engine = make_engine()
    report = engine.index([str(note)])
    assert report.files_seen == 1 and report.files_indexed == 1
    headings = {r.heading for r in engine.manifest.chunks_of(str(note))}
    assert any(h and "Field notes > Section" in h for h in headings)


def test_rename_between_scan_and_read_is_not_a_lasting_failure(make_engine, tmp_path: Path):
    """Found by bench/soak.py: the failed row was carried to the new name and never retried."""
    folder = tmp_path / "tree" / "a"
    folder.mkdir(parents=True)
    note = folder / "note.md"
    note.write_text("The amber harbor repairs the ledger near the quiet valley.\n")
    engine = make_engine()
    root = str(tmp_path / "tree")
    engine.index([root])
    note.write_text("The brisk kettle measures the invoice in the meadow.\n")
    renamed = tmp_path / "tree" / "b"

    def rename_after_scan(p: Progress) -> None:  # "planned" comes after the scan, before reads
        if p.event == "planned" and folder.exists():
            os.rename(folder, renamed)

    indexer = engine.indexer(rename_after_scan)
    indexer.update_paths([str(note)])
    indexer.progress = lambda p: None
    indexer.move(str(folder), str(renamed))  # what the watcher does for the rename event
    indexer.update_paths([str(renamed)])
    record = engine.manifest.file(str(renamed / "note.md"))
    assert record is not None and record.status == "indexed", record
    assert "kettle" in engine.manifest.chunks_of(str(renamed / "note.md"))[0].text


def test_a_folder_never_catches_a_sibling_whose_name_differs_in_case(tmp_path: Path) -> None:
    from app.core.index.manifest import FileRecord, Manifest

    manifest = Manifest(tmp_path / "m.sqlite3")
    try:
        for path in ("/d/Notes/a.md", "/d/notes/b.md", "/d/Notes_old/c.md", "/d/Notes"):
            manifest.replace_file(FileRecord(path, 1, 1, "h", "indexed"), [])
        assert sorted(manifest.files_under("/d/Notes")) == ["/d/Notes", "/d/Notes/a.md"]
        assert manifest.move("/d/Notes", "/e/N") == 2
        assert sorted(manifest.files_under("/d")) == ["/d/Notes_old/c.md", "/d/notes/b.md"]
    finally:
        manifest.close()


def test_a_long_pdf_reports_its_pages_as_they_are_read(tmp_path: Path, make_engine) -> None:
    """Progress inside one long file: the window turns these into "page 21 of 35 — about
    10 s left" while the file is read."""
    folder = tmp_path / "docs"
    folder.mkdir()
    make_pdf(folder / "long.pdf", [f"Chapter {n} of the tide tables." for n in range(1, 36)])
    make_pdf(folder / "short.pdf", ["One page only."])
    events: list[Progress] = []
    make_engine().index([str(folder)], progress=events.append)
    pages = [(os.path.basename(p.path), p.detail) for p in events if p.event == "page"]
    assert pages == [("long.pdf", f"page {n} of 35") for n in (11, 21, 31)]
