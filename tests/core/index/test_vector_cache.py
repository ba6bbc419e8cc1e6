"""The exact dense search: a saved copy of the vector matrix is used only while it is current."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.core.index.matrix_cache import GENERATION_FILE
from app.core.index.vectors import VectorMatrix


def write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


def test_matrix_is_exact_and_skips_removed_rows() -> None:
    rng = np.random.default_rng(3)
    vecs = rng.normal(size=(500, 16)).astype(np.float32)
    m = VectorMatrix(16)
    m.add([str(i) for i in range(500)], vecs)
    m.remove([str(i) for i in range(0, 500, 2)])
    q = rng.normal(size=16).astype(np.float32)
    unit = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    odd = np.arange(1, 500, 2)
    truth = odd[np.argsort(-(unit[odd] @ (q / np.linalg.norm(q))))][:10]
    assert [i for i, _ in m.nearest(q, 10)] == [str(i) for i in truth]
    assert [i for i, _ in m.nearest(q, 3, allowed={"1", "2", "3"})] in (["1", "3"], ["3", "1"])


def test_a_saved_matrix_serves_the_next_process_until_the_store_changes(
    tmp_path: Path, make_engine
) -> None:
    docs = tmp_path / "docs"
    write(docs, "tides.md", "# Tides\n\nThe spring tide at the north jetty peaks at dawn.\n")
    writer = make_engine()
    writer.index([str(docs)])
    assert writer.search("spring tide jetty").hits[0].path.endswith("tides.md")
    writer.close()  # the writer saves the matrix it kept in step
    data = tmp_path / "data"
    assert (data / "vectors.npz").is_file() and (data / GENERATION_FILE).is_file()

    reader = make_engine()
    store = reader.store()
    assert store.nearest(reader.embedder().encode(["tide"])[0], 1)  # from the saved copy
    assert reader.search("spring tide jetty").hits[0].path.endswith("tides.md")

    # Another writer adds a passage: the saved copy is stale, a new reader reads the store.
    writer = make_engine()
    write(docs, "kelp.md", "# Kelp\n\nKelp fronds are cut a hand above the holdfast.\n")
    writer.index([str(docs)])
    fresh = make_engine()
    hit = fresh.search("kelp fronds holdfast", mode="dense").hits[0]
    assert hit.path.endswith("kelp.md")


def test_a_store_folder_that_cannot_be_written_still_searches(tmp_path: Path) -> None:
    from app.core.index.matrix_cache import MatrixCache

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    m = VectorMatrix(4)
    m.add(["a"], np.ones((1, 4), np.float32))
    cache = MatrixCache(blocker / "data", 4)  # every write there fails, even as root
    assert [i for i, _ in cache.load(lambda: m).nearest(np.ones(4, np.float32), 1)] == ["a"]


def test_vectors_of_lexical_hits_come_from_the_loaded_matrix(tmp_path: Path, make_engine) -> None:
    """A hit found only by its words gets its cosine from the matrix already in memory: no
    request to the store (over a Chroma server, one HTTP round trip per question saved)."""
    from tests.core.index.test_store_faults import FaultyCollection

    docs = tmp_path / "docs"
    write(docs, "tides.md", "# Tides\n\nThe spring tide at the north jetty peaks at dawn.\n")
    write(docs, "kelp.md", "# Kelp\n\nCut the fronds a hand above the holdfast.\n")
    engine = make_engine()
    engine.index([str(docs)])
    store = engine.store()
    hashes = engine.manifest.all_hashes()
    store.nearest(np.ones(store.dim, np.float32), 1)  # the matrix is in memory from here
    store._col = FaultyCollection(store._col, OSError(5, "I/O error"), ("get",))
    assert set(store.vectors(hashes)) == hashes
