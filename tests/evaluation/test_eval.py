"""Evaluation: metrics against known values, and the runners on tiny generated data sets."""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path

import pytest

from app import evaluation as ev
from app.core.api import Footnotes
from app.core.search.support import SupportModel
from tests.helpers import make_pdf

TOPICS = {
    "d1": (
        "Tomatoes",
        "Tomato plants need six hours of direct sun and deep watering twice a week.",
    ),
    "d2": (
        "Bicycles",
        "A bicycle chain should be replaced every three thousand kilometres of riding.",
    ),
    "d3": ("Sourdough", "A sourdough starter is fed with equal weights of flour and water daily."),
    "d4": (
        "Glaciers",
        "Glaciers form where snow accumulates faster than it melts over many years.",
    ),
    "d5": (
        "Volcanoes",
        "Volcanic eruptions release ash, lava and gases from the mantle of the earth.",
    ),
}


def test_ndcg_against_hand_computed_values() -> None:
    assert ev.ndcg_at_k(["a", "b", "c"], {"a": 1, "c": 1}) == pytest.approx(
        (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    )
    assert ev.ndcg_at_k(["a", "b"], {"b": 2}) == pytest.approx(1 / math.log2(3))
    assert ev.ndcg_at_k(["b", "a"], {"b": 2, "a": 1}) == pytest.approx(1.0)
    assert ev.ndcg_at_k(["x", "y"], {"b": 1}) == 0.0
    assert ev.ndcg_at_k(["x"] * 10 + ["b"], {"b": 1}, k=10) == 0.0  # past the cut-off


def test_recall_and_auroc_against_known_values() -> None:
    assert ev.recall_at_k(["a", "x", "b"], ["a", "b", "c", "d"], 2) == 0.25
    assert ev.auroc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert ev.auroc([0.1], [0.9]) == 0.0
    assert ev.auroc([1, 2, 3], [0, 2]) == pytest.approx(4.5 / 6)  # a tie counts half
    assert ev.auroc([0.5] * 3, [0.5] * 4) == 0.5
    assert math.isnan(ev.auroc([], [1.0]))


def test_support_figures_count_flags_per_category() -> None:
    def row(kind: str, retrieved: bool | None = None) -> ev.DevRow:
        return ev.DevRow("d", "g", "q", kind, retrieved, [], 10)

    rows = [
        row("answerable", True),
        row("answerable", False),
        row("evidence_removed", False),
        row("off_topic"),
        row("unanswerable"),
    ]
    fig = ev.support_figures(rows, [0.9, 0.4, 0.3, 0.1, 0.95], [0.5] * 5)
    assert fig["flagged_retrieved"] == 0.0 and fig["flagged_not_retrieved"] == 1.0
    assert fig["flagged_missed_by_search"] == 1.0
    assert fig["flagged_off_topic"] == 1.0 and fig["flagged_unanswerable"] == 0.0
    assert fig["auroc"] == pytest.approx(0.75)  # the unanswerable one scores above
    assert fig["n"] == {"off_topic": 1, "retrieved": 1, "not_retrieved": 2, "unanswerable": 1}


def test_write_docs_leaves_unchanged_files_alone(tmp_path: Path) -> None:
    folder = ev.write_docs({"a/b#1": "one\n", "c": "two\n"}, tmp_path / "docs")
    path = folder / "a_b#1.txt"
    before = path.stat().st_mtime_ns
    ev.write_docs({"a/b#1": "one\n", "c": "changed\n"}, folder)
    assert path.stat().st_mtime_ns == before
    assert (folder / "c.txt").read_text() == "changed\n"


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_beir_runner_on_a_tiny_set(tmp_path: Path, make_engine) -> None:
    data = tmp_path / "shared"
    _write_jsonl(
        data / "scifact" / "corpus.jsonl",
        [{"_id": k, "title": t, "text": x} for k, (t, x) in TOPICS.items()],
    )
    _write_jsonl(
        data / "scifact" / "queries.jsonl",
        [
            {"_id": "q1", "text": "how often to replace a bicycle chain"},
            {"_id": "q2", "text": "feeding a sourdough starter with flour and water"},
            {"_id": "q3", "text": "a query without judgements"},
        ],
    )
    (data / "scifact" / "qrels").mkdir()
    (data / "scifact" / "qrels" / "dev.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td2\t1\nq2\td3\t2\n"
    )
    res = ev.run_scifact(make_engine("parent"), data)
    assert res["queries"] == 2 and res["index"]["files_seen"] == 5
    for mode in ev.MODES:
        assert res["modes"][mode]["ndcg@10"] == pytest.approx(1.0)
        assert res["modes"][mode]["recall@100"] == 1.0
    again = ev.run_scifact(make_engine("parent"), data)  # the second run reuses the index
    assert again["index"]["chunks_embedded"] == 0


def test_financebench_runner_matches_evidence_pages(tmp_path: Path, make_engine) -> None:
    data = tmp_path / "shared"
    filings = data / "corpus" / "filings"
    filings.mkdir(parents=True)
    make_pdf(
        filings / "ACME_2020_10K.pdf",
        [
            "Table of contents. Business overview of the Acme company and its anvils.",
            "Consolidated cash flow statement. Purchases of property, plant and equipment were "
            "412 million dollars in fiscal 2020.",
        ],
    )
    _write_jsonl(
        data / "financebench" / "questions.jsonl",
        [
            {
                "financebench_id": "f1",
                "doc_name": "ACME_2020_10K",
                "question": "What were Acme's purchases of property, plant and equipment in 2020?",
                "evidence": [
                    {"doc_name": "ACME_2020_10K", "evidence_page_num": 1, "evidence_text": "x"}
                ],
            },
            {
                "financebench_id": "f2",
                "doc_name": "GONE_2020_10K",
                "question": "Anything?",
                "evidence": [
                    {"doc_name": "GONE_2020_10K", "evidence_page_num": 0, "evidence_text": "x"}
                ],
            },
        ],
    )
    (data / "financebench" / "manifest.json").write_text(
        json.dumps(
            {
                "questions": [
                    {"financebench_id": "f1", "pdf_included": True},
                    {"financebench_id": "f2", "pdf_included": False},
                ]
            }
        )
    )
    res = ev.run_financebench(make_engine("parent"), data)
    assert res["questions"] == 1
    assert res["modes"]["hybrid"] == {"page@5": 1.0, "page@10": 1.0}


def tiny_squad(data: Path) -> int:
    """Five passages; per topic an answerable and an unanswerable question; four off-topic."""
    _write_jsonl(
        data / "squad2" / "passages.jsonl",
        [{"_id": f"{t}#0", "title": t, "text": x} for t, x in TOPICS.values()],
    )
    questions = []
    for i, (title, text) in enumerate(TOPICS.values()):
        questions.append(
            {
                "id": f"a{i}",
                "question": f"What about {text.lower()[:-1]}?",
                "title": title,
                "passage_id": f"{title}#0",
                "kind": "answerable",
            }
        )
        questions.append(
            {
                "id": f"u{i}",
                "question": f"Who first described {title.lower()} in 1850?",
                "title": title,
                "passage_id": f"{title}#0",
                "kind": "unanswerable_in_corpus",
            }
        )
    for i, q in enumerate(
        [
            "Which symphony did Mahler finish last?",
            "What is the capital of Peru?",
            "How many moons does Jupiter have?",
            "Who painted the Mona Lisa?",
        ]
    ):
        questions.append(
            {
                "id": f"o{i}",
                "question": q,
                "title": f"Other{i}",
                "passage_id": None,
                "kind": "out_of_corpus",
            }
        )
    _write_jsonl(data / "squad2" / "questions.jsonl", questions)
    return len(questions)


def test_support_runner_and_refit_on_a_tiny_set(tmp_path: Path, make_engine) -> None:
    data = tmp_path / "shared"
    n_questions = tiny_squad(data)

    squad = ev.squad_support_set(make_engine("parent"), data, None, None, None)
    try:
        assert squad.summary["files_seen"] == 5
        answerable = [r for r in squad.rows if r.kind == "answerable"]
        assert len(squad.rows) == n_questions + len(answerable)  # + each with its evidence out
        assert all(r.retrieved for r in answerable)
        removed = [r for r in squad.rows if r.kind == "evidence_removed"]
        assert removed and not any(r.retrieved for r in removed)
        model, report = ev.refit([squad], flag_rate=0.0)
    finally:
        ev.close_sets([squad])
    assert isinstance(model, SupportModel)
    assert model.provenance["rows"]["squad2"]["retrieved"] == 5
    assert set(report) == {"shipped_threshold", "calibrated_per_index", "calibrations"}
    figures = ev.shipped_figures([squad], model)["squad2"]
    assert figures["flagged_retrieved"] == 0.0 and figures["auroc"] > 0.8


def test_eval_command_prints_held_out_figures_as_json(tmp_path: Path, make_engine, capsys) -> None:
    from app.cli.eval import run as run_eval

    data = tmp_path / "shared"
    tiny_squad(data)
    args = argparse.Namespace(
        what="support", refit=False, data=str(data), set="squad2", index=None, limit=2, json=True
    )
    engine = make_engine("parent")
    assert run_eval(args, Footnotes(engine.data.root, engine=engine)) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["indexes"]["squad2"]["files_seen"] == 5
    assert out["rows"]["squad2"] == 8  # 2 answerable (and left out), 2 unanswerable, 2 off-topic
    shipped = out["shipped"]["figures"]["squad2"]
    assert shipped["n"] == {"off_topic": 2, "retrieved": 2, "not_retrieved": 2, "unanswerable": 2}
    assert set(out["held_out"]) >= {"shipped_threshold", "calibrated_per_index"}


def test_corpus_runner_finds_pasted_sentences_and_evidence_pages(
    tmp_path: Path, make_engine
) -> None:
    test_financebench_runner_matches_evidence_pages(tmp_path, make_engine)  # writes the set
    data = tmp_path / "shared"
    notes = data / "corpus" / "notes"
    notes.mkdir(parents=True)
    for doc_id, (title, sentence) in TOPICS.items():
        (notes / f"{doc_id}.md").write_text(f"# {title}\n\n{sentence}\n")
    held_out = tmp_path / "held-out-pages.jsonl"  # written over the filing this corpus holds
    _write_jsonl(
        held_out,
        [
            {
                "id": "h1",
                "doc_name": "ACME_2020_10K",
                "pages": [2],
                "question": "How much did Acme spend on capital expenditure in FY2020?",
            },
            {
                "id": "h2",
                "doc_name": "ACME_2020_10K",
                "pages": [1],
                "question": "What does Acme's business make, by its 2020 annual report?",
            },
            {  # a page the filing does not have: a miss, counted as one
                "id": "h3",
                "doc_name": "ACME_2020_10K",
                "pages": [9],
                "question": "How many anvils did Acme sell in FY2020?",
            },
        ],
    )
    res = ev.run_corpus(
        make_engine("corpus-parent"), data, limit=5, held_out_pages=ev.load_written_pages(held_out)
    )
    assert res["financebench"]["modes"]["hybrid"]["page@10"] == 1.0
    ours = res["written_pages_held_out"]
    assert ours["questions"] == 3
    assert ours["modes"]["hybrid"] == {"page@5": 0.6667, "page@10": 0.6667}
    known = res["known_item"]
    assert known["items"] >= 3
    assert known["modes"]["hybrid"]["first"] == 1.0 and known["modes"]["hybrid"]["page@5"] == 1.0
    assert res["dense_recall@10_vs_exact"]["shipped"] == 1.0
    written = res["written_pages"]  # the written dev set, over filings this corpus lacks
    assert written["questions"] == 5 and "halves" not in written
    assert written["modes"]["hybrid"]["page@10"] == 0.0


GOOD_LINE = '{"id": "h1", "doc_name": "ACME_2020_10K", "pages": [2], "question": "Capex?"}'


@pytest.mark.parametrize(
    "bad",
    [
        '{"id": "h2", "doc_name": "ACME_2020_10K", "question": "Capex?"}',  # no pages
        '{"id": "h2", "doc_name": "ACME_2020_10K", "pages": "12", "question": "Capex?"}',
        '{"id": "h2", "doc_name": "ACME_2020_10K", "pages": [], "question": "Capex?"}',
        '{"id": "h2", "doc_name": "ACME_2020_10K", "pages": [0], "question": "Capex?"}',
        '{"id": "h2", "doc_name": "ACME_2020_10K", "pages": [true], "question": "Capex?"}',
        '{"id": 7, "doc_name": "ACME_2020_10K", "pages": [2], "question": "Capex?"}',
        '{"id": "h2", "doc_name": "ACME_2020_10K", "pages": [2], "question": null}',
        '{"id": "h2", "doc_name": "ACME_2020_10K", "pages": [2], "question": "Capex?"',
        "[1, 2]",
    ],
)
def test_a_written_question_file_kept_by_hand_names_its_bad_line(tmp_path: Path, bad) -> None:
    """A held-out file kept outside the repository: a line that is not a question with its
    pages (1-based numbers) names the file and its own line, blank lines counted."""
    path = tmp_path / "held-out-pages.jsonl"
    path.write_text(f"{GOOD_LINE}\n\n{bad}\n")
    with pytest.raises(ev.EvalDataError, match=r"held-out-pages\.jsonl, line 3: "):
        ev.load_written_pages(path)


def test_held_out_pages_are_read_before_any_set_is_indexed(tmp_path: Path, make_engine) -> None:
    """`eval retrieval --held-out-pages FILE` with a slip in FILE stops with the file and line
    before SciFact, FinanceBench or the corpus is indexed; with another command or set it is
    refused, not silently ignored."""
    from app.cli.common import HandledError
    from app.cli.eval import run as run_eval

    data = tmp_path / "shared"
    (data / "corpus").mkdir(parents=True)
    broken = tmp_path / "held-out-pages.jsonl"
    broken.write_text(GOOD_LINE.replace("[2]", "[]") + "\n")
    engine = make_engine("parent")
    fn = Footnotes(engine.data.root, engine=engine)
    for what, which, says in [
        ("retrieval", None, "line 1: "),
        ("retrieval", "corpus", "line 1: "),
        ("retrieval", "scifact", "--set corpus"),
        ("support", "corpus", "--set corpus"),
    ]:
        args = argparse.Namespace(
            what=what, refit=False, data=str(data), set=which, index=None, limit=2, json=True,
            held_out_pages=str(broken),
        )  # fmt: skip
        with pytest.raises(HandledError, match=re.escape(says)):
            run_eval(args, fn)
    assert not (engine.data.root / "eval").exists()  # nothing was indexed


def test_the_written_filing_questions_each_name_a_filing_and_its_pages() -> None:
    """The written dev set of the page ranking (``sets/filing-pages-dev.jsonl``) loads whole:
    each question names its filing and at least one 1-based evidence page."""
    questions = ev.load_written_pages()
    assert len(questions) == 72 and len({q.id for q in questions}) == 72
    assert all(q.pages and all(page >= 1 for _, page in q.pages) for q in questions)
    assert all(q.question.endswith(("?", ".")) for q in questions)
