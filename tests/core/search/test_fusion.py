"""Fusion keeps strong evidence on top: a copied sentence or a rare term is not averaged away."""

from __future__ import annotations

from pathlib import Path

from app.core.index import pending
from app.core.index.records import ChunkRow
from app.core.search.fusion import fuse


def row(n: int) -> ChunkRow:
    return ChunkRow(n, f"c{n}", f"/docs/{n}.md", None, 0, 10, f"h{n}", None, f"passage {n}")


def test_a_lexical_match_far_ahead_of_the_rest_stays_first() -> None:
    dense = [(row(1), 0.62), (row(2), 0.60), (row(3), 0.41)]
    lexical = [(row(3), 59.7), (row(1), 35.9), (row(2), 20.0)]
    assert [h.chunk_id for h in fuse(dense, lexical, 3)] == ["c3", "c1", "c2"]


def test_close_lexical_scores_leave_the_order_to_both_retrievers() -> None:
    dense = [(row(1), 0.70), (row(2), 0.40), (row(3), 0.39)]
    lexical = [(row(3), 30.0), (row(1), 28.0), (row(2), 10.0)]
    hits = fuse(dense, lexical, 3)
    assert [h.chunk_id for h in hits] == ["c1", "c3", "c2"]
    assert hits[0].dense_rank == 1 and hits[0].lexical_rank == 2
    assert hits[0].score > hits[1].score > hits[2].score


def test_single_retriever_modes_rank_by_that_retriever_alone() -> None:
    dense = [(row(1), 0.9), (row(2), 0.5)]
    lexical = [(row(3), 12.0), (row(2), 11.0)]
    assert [h.chunk_id for h in fuse(dense, lexical, 5, "dense")] == ["c1", "c2"]
    assert [h.chunk_id for h in fuse(dense, lexical, 5, "lexical")] == ["c3", "c2"]


FILING_A = """# Harbour Holdings annual report 2021

## Cash flows

Purchases of property, plant and equipment were 1,577 million dollars in 2021, mostly for
the new container cranes at the north terminal and the dredging of berth seven.
"""
FILING_B = """# Bay Freight annual report 2021

## Cash flows

Capital expenditure rose to 1,210 million dollars in 2021 as the company bought new
container cranes and expanded its terminals along the bay.
"""


def test_a_sentence_copied_from_a_file_finds_its_passage_first(tmp_path: Path, make_engine):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "harbour.md").write_text(FILING_A)
    (docs / "bay.md").write_text(FILING_B)
    for i in range(8):  # other files about cranes and terminals
        (docs / f"note{i}.md").write_text(
            f"# Terminal note {i}\n\nContainer cranes at terminal {i} were serviced; the "
            f"company plans capital expenditure on cranes and berths next year.\n"
        )
    engine = make_engine()
    engine.index([str(docs)])
    copied = "Purchases of property, plant and equipment were 1,577 million dollars in 2021"
    assert engine.search(copied, k=3).hits[0].path.endswith("harbour.md")
    asked = "What were Harbour Holdings' purchases of property, plant and equipment in 2021?"
    assert engine.search(asked, k=3).hits[0].path.endswith("harbour.md")


def test_phrases_are_a_long_query_whole_then_its_quoted_parts() -> None:
    from app.core.index.lexical import phrases

    assert phrases('say "spring tide peaks" here') == ["spring tide peaks"]
    asked = 'where does it say "spring tide peaks" in my notes'
    assert phrases(asked) == [asked, "spring tide peaks"]
    long = "the north jetty spring tide peaks at dawn every month of the year"
    assert phrases(long) == [long]
    assert phrases("spring tide jetty") == []


def test_a_pasted_sentence_with_quotation_marks_finds_its_own_passage(
    tmp_path: Path, make_engine
) -> None:
    """Quotation marks inside a pasted sentence do not turn it into a search for the quoted
    words; a near copy that differs only in case and punctuation comes after the exact one."""
    docs = tmp_path / "docs"
    docs.mkdir()
    defined = (
        "The terms “Harbour Holdings,” the “Company,” “we” and “our” are used to refer "
        "collectively to Harbour Holdings, Inc. and its subsidiaries."
    )
    (docs / "harbour.md").write_text(f"# Harbour Holdings 10-K\n\n{defined}\n")
    (docs / "staff.md").write_text(
        "# Officers\n\nThe officers of Harbour Holdings are listed below; “Harbour Holdings,” "
        "as used here, means Harbour Holdings, Inc. and its subsidiaries, and Harbour Holdings "
        "officers serve at the board's pleasure.\n"
    )
    boiler = (
        "Indicate by check mark whether the registrant is a large accelerated filer, an "
        "accelerated filer, a non-accelerated filer, a smaller reporting company{} or an "
        "emerging growth company."
    )
    (docs / "cover2017.md").write_text(f"# Cover 2017\n\n{boiler.format(',')}\n")
    (docs / "cover2018.md").write_text(f"# Cover 2018\n\n{boiler.format('')}\n")
    engine = make_engine()
    engine.index([str(docs)])
    assert engine.search(defined, k=3).hits[0].path.endswith("harbour.md")
    assert engine.search(boiler.format(""), k=3).hits[0].path.endswith("cover2018.md")
    assert engine.search(boiler.format(","), k=3).hits[0].path.endswith("cover2017.md")


def test_a_passage_holding_the_phrase_verbatim_is_put_first() -> None:
    dense = [(row(1), 0.9), (row(2), 0.8)]
    lexical = [(row(1), 20.0), (row(2), 19.0)]
    hits = fuse(dense, lexical, 3, first=[row(2)])
    assert [h.chunk_id for h in hits] == ["c2", "c1"]


def test_a_weak_passage_never_ties_the_best_one_whose_vector_is_still_coming(
    tmp_path: Path, make_engine
) -> None:
    """While vectors are computed, the passage that answers is found by its words only; a
    note with none of the question's words but a stored vector must not rank with it (the
    dense list held only that note, so min-max scaling gave it full marks)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bakery.md").write_text("# Bakery\n\nThe bakery opens at seven and sells rye bread.\n")
    engine = make_engine()
    engine.index([str(docs)])
    kiln = docs / "kiln.md"
    kiln.write_text("# Kiln\n\nThe pottery kiln fires at 1240 degrees for stoneware glazes.\n")
    engine.indexer().update_paths([str(kiln)], drain=False)
    assert pending.count(engine.manifest.conn) > 0  # the kiln passage has no vector yet

    hits = engine.search("How hot does the pottery kiln fire?", 3).hits
    assert Path(hits[0].path).name == "kiln.md"
    assert hits[0].dense_score is not None and hits[0].dense_score > 0.4
    assert hits[0].score - hits[1].score > 0.3  # a clear lead, not a tie broken by name


def test_the_only_passage_holding_the_querys_word_stays_first() -> None:
    """A word in a script the embedding model does not read ("手稿"): the dense ranking is
    noise, and the one passage that holds the word must not tie with its top."""
    dense = [(row(1), 0.31), (row(2), 0.30), (row(3), 0.12)]
    lexical = [(row(3), 4.2)]
    assert [h.chunk_id for h in fuse(dense, lexical, 3)] == ["c3", "c1", "c2"]
    assert [h.chunk_id for h in fuse(dense, [], 3)] == ["c1", "c2", "c3"]
