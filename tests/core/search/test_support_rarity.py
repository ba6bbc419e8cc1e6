"""The support flag's index-aware features: term rarity from the lexical index itself (the
counts themselves are tested in ``test_termstats.py``)."""

from __future__ import annotations

import pytest

from app.core.search import support
from app.core.search.termstats import FixedStats
from app.core.types import Hit

FILING = (
    "Purchases of property, plant and equipment were 1,577 million dollars in 2018, "
    "as shown in the statement of cash flows of the company."
)
OTHER_PAGE = "The company's revenue and operating income are discussed by segment for the year."


def hit(rank: int, text: str, dense: float, path: str = "/f/ACME_2018_10K.pdf") -> Hit:
    return Hit(rank, path, rank, 0, len(text), text, 0.5, f"c{rank}", None, dense, 3.0, rank, rank)


def test_words_every_passage_holds_weigh_little_and_absent_ones_are_counted_apart() -> None:
    stats = FixedStats(10_000, {"company": 9_000, "zorblatt": 3, "frequency": 400})
    terms, unknown = support.rarity_terms("What is the zorblatt frequency of the company?", stats)
    assert terms[support.stem("zorblatt")] > terms[support.stem("frequency")]
    assert terms[support.stem("frequency")] > terms[support.stem("company")]
    assert unknown == 0.0
    terms, unknown = support.rarity_terms("What is the quuxotron frequency?", stats)
    assert support.stem("quuxotron") not in terms and 0.5 < unknown < 1.0


def test_a_code_no_passage_holds_counts_by_its_parts() -> None:
    stats = FixedStats(1_000, {"fy": 40, "2018": 90, "capital": 30})
    terms, unknown = support.rarity_terms("FY2018 capital", stats)
    assert {"fy", "2018", support.stem("capital")} <= set(terms) and unknown == 0.0
    # a code whose parts are single characters is no code of parts: it stays, unknown
    notes = FixedStats(8, {"q1": 1, "marketing": 1, "spend": 1})
    terms, unknown = support.rarity_terms("What was the Q3 marketing spend?", notes)
    assert "q3" not in terms and unknown > 0.3


def test_rare_terms_covered_in_one_passage_raise_the_specific_coverage() -> None:
    stats = FixedStats(
        50_000, {"capital": 900, "expenditure": 200, "acme": 3_000, "2018": 6_000, "amount": 9_000}
    )
    q = "What is the FY2018 capital expenditure amount for ACME?"
    right = support.features(q, [hit(1, FILING + " Capital expenditure.", 0.55)], stats)
    wrong = support.features(q, [hit(1, OTHER_PAGE, 0.5)], stats)
    assert right["specific_coverage"] > wrong["specific_coverage"]
    assert right["key_coverage"] > wrong["key_coverage"]
    # the file name counts: both passages are ACME's 2018 filing
    assert wrong["key_coverage"] > 0.0


def test_features_without_index_counts_still_work() -> None:
    f = support.features("In what year did ACME buy plant?", [hit(1, FILING, 0.5)])
    assert set(f) == set(support.FEATURES) and f["unknown_terms"] == 0.0


def test_doc_focus_and_dense_gap() -> None:
    hits = [hit(1, FILING, 0.7)] + [hit(i, OTHER_PAGE, 0.3, f"/f/{i}.md") for i in range(2, 6)]
    f = support.features("capital expenditure", hits, FixedStats(100, {}))
    assert f["doc_focus"] == pytest.approx(0.2)
    assert f["dense_gap"] == pytest.approx(0.4)


def test_a_word_no_file_mentions_is_named_in_the_reason() -> None:
    stats = FixedStats(1_000, {"frequency": 40, "fy": 30, "2018": 20})
    assert support.unknown_words("What is the Zorblatt frequency in FY2018?", stats) == ["Zorblatt"]
    f = dict.fromkeys(support.FEATURES, 0.0) | {"unknown_terms": 0.6, "dense_top": 0.2}
    reason = support.reason_for(f, False, ["Zorblatt"])
    assert reason == "No passage in your files mentions \u201cZorblatt\u201d."
    # a question that passes still says which of its names no passage holds
    passed = support.reason_for(f, True, ["Zorblatt"])
    assert (
        passed
        == "Passages in your files match the question, but none mentions \u201cZorblatt\u201d."
    )
    assert "Zorblatt" not in support.reason_for(f, True, [])
