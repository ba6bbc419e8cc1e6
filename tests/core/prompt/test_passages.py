"""The passages sent to the model are chosen by evidence: one decisive passage goes alone, an
answer spread over several passages of similar score gets them all, and numbers stay ranks.
Over the sources' budget, passages after the best are sent as their lines about the question
(a table's row with its column heads, a sentence with its neighbours) before any is left out."""

from __future__ import annotations

import re
from pathlib import Path

from app.core.ask import Asker, AskOptions, AskRequest
from app.core.prompt.answering import build_messages, estimate_tokens, mark_sentences
from app.core.prompt.passages import SOURCE_TOKENS, choose_passages, excerpt, sent_text
from app.core.types import Hit
from tests.fake_ollama import FakeOllama


def hit(rank: int, score: float, text: str = "A passage of ordinary length. " * 4) -> Hit:
    return Hit(rank, f"/d/{rank}.md", None, 0, len(text), text, score, f"c{rank}")


def test_one_decisive_passage_is_sent_alone() -> None:
    hits = [hit(1, 0.95), hit(2, 0.41), hit(3, 0.38), hit(4, 0.2)]
    assert [h.rank for h in choose_passages(hits, estimate_tokens)] == [1]


def test_evidence_spread_over_passages_sends_each_of_them() -> None:
    hits = [hit(1, 0.81), hit(2, 0.77), hit(3, 0.70), hit(4, 0.22), hit(5, 0.69)]
    # a prefix of the ranking: the fifth is never sent once the fourth falls off
    assert [h.rank for h in choose_passages(hits, estimate_tokens)] == [1, 2, 3]


def test_a_named_files_bonus_does_not_hide_the_gap_and_the_cap_holds() -> None:
    named = [hit(1, 1.0 + 0.9), hit(2, 1.0 + 0.3), hit(3, 0.85)]  # NAMED_BONUS added
    assert [h.rank for h in choose_passages(named, estimate_tokens)] == [1]
    long = [hit(i, 0.9, "word " * 400) for i in range(1, 9)]  # ~500 tokens each
    chosen = choose_passages(long, estimate_tokens, token_cap=1600)
    assert [h.rank for h in chosen] == [1, 2, 3]
    assert choose_passages([], estimate_tokens) == []


def test_the_model_is_sent_only_the_chosen_passages_and_cites_them_by_rank(
    tmp_path: Path, make_engine
) -> None:
    """Through the whole Ask: a question one note answers sends that note; the search result
    (and the verdict read from it) still holds every hit."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "chain.md").write_text(
        "# Bicycle chain\n\nThe chain on a road bicycle should be replaced every three "
        "thousand kilometres, or when a checker gauge reads 0.5 percent stretch.\n"
    )
    for i, topic in enumerate(("sourdough starter", "tomato seedlings", "tax returns")):
        (docs / f"other{i}.md").write_text(f"# {topic}\n\nNotes about {topic} and the weather.\n")
    engine = make_engine()
    engine.index([str(docs)])

    def search(query: str, k: int, scope: object) -> object:
        return engine.search(query, k)

    reply = "The chain should be replaced every three thousand kilometres [1]."
    with FakeOllama(reply=reply) as fake:
        options = AskOptions(k=4, host=fake.url, model="llama3.2", rewrite_followups=False)
        outcome = Asker(search, None, options).run(  # type: ignore[arg-type]
            AskRequest("How often should the chain on a road bicycle be replaced?")
        )
        prompt = fake.answers()[0].body["messages"][-1]["content"]
    assert outcome.result is not None and len(outcome.result.hits) == 4
    assert outcome.answer is not None
    assert [s.n for s in outcome.answer.sources] == [1]
    assert Path(outcome.answer.sources[0].hit.path).name == "chain.md"
    assert re.findall(r'<source n="(\d+)"', prompt) == ["1"]
    assert outcome.verdict is not None and outcome.verdict.level == "supported"


# -- excerpts: sources over SOURCE_TOKENS are cut to their lines about the question ---------
ROWS = [
    ("Net income including noncontrolling interest", "5,363", "4,869", "5,058"),
    ("Depreciation and amortization", "1,488", "1,544", "1,474"),
    ("Company pension and postretirement contributions", "(370)", "(967)", "(383)"),
    ("Stock-based compensation expense", "302", "324", "298"),
    ("Changes in accounts receivable", "(305)", "(245)", "(313)"),
    ("Changes in inventories", "(509)", "(387)", "57"),
    ("Purchases of property, plant and equipment", "(1,577)", "(1,373)", "(1,420)"),
    ("Proceeds from sale of property, plant and equipment", "262", "49", "58"),
    ("Acquisitions, net of cash acquired", "13", "(2,023)", "(16)"),
    ("Purchases of marketable securities and investments", "(1,828)", "(2,152)", "(1,410)"),
]
# A statement page as PDF text extraction gives it: a cell a line.
CASH_FLOWS = "\n".join(
    ["Consolidated Statement of Cash Flows", "Years ended December 31", "(Millions)"]
    + ["2018", "2017", "2016"]
    + [cell for row in ROWS for cell in row]
)
PROSE = " ".join(
    [
        "The reading room on the second floor was rebuilt after the flood of 1998.",
        "Its oak shelves came from a closed school in the next valley, and were cut down to fit.",
        "Visitors sign the ledger at the desk, which also lends pencils and magnifying glasses.",
        "The archive keeps parish registers from 1650 onwards in a cooled strongroom below.",
        "Photographing documents is allowed without flash, for a fee of two pounds a day.",
        "Microfilm readers stand by the north windows, where the light is steadiest at noon.",
        "School groups book a month ahead and are shown the oldest map in the collection.",
        "A volunteer society transcribes the registers and publishes them every spring.",
    ]
)


QUESTION = "How much went on purchases of property, plant and equipment in 2018?"
TOP = "Capital spending is reported in the statement of cash flows."


def long_hits(*texts: str) -> list[Hit]:
    """The best passage (short), then ``texts`` as pages of a filing, in rank order."""
    hits = [hit(1, 0.9, TOP)]
    for i, text in enumerate(texts, 2):
        hits.append(Hit(i, f"/d/10-k-{i}.pdf", 50 + i, 0, len(text), text, 0.8, f"c{i}"))
    return hits


def test_a_long_table_passage_is_sent_as_the_row_asked_about_with_its_column_heads() -> None:
    ranges = excerpt(QUESTION, CASH_FLOWS, estimate_tokens)
    sent = sent_text(CASH_FLOWS, ranges)
    assert "Purchases of property, plant and equipment\n(1,577)\n(1,373)\n(1,420)" in sent
    assert "2018\n2017\n2016" in sent  # the column heads say which figure is 2018's
    assert "Depreciation" not in sent and "Changes in inventories" not in sent
    assert estimate_tokens(sent) < 0.5 * estimate_tokens(CASH_FLOWS)


ROW_TABLE = "\n".join(
    ["(Millions) | 2018 | 2017 | 2016"] + [" | ".join(row) for row in ROWS]
)  # the same statement as a PDF page reads now: a row a line (ingest.pdflayout)


def test_a_table_read_as_rows_is_sent_as_its_head_and_the_row_asked_about() -> None:
    ranges = excerpt(QUESTION, ROW_TABLE, estimate_tokens)
    sent = sent_text(ROW_TABLE, ranges)
    assert "Purchases of property, plant and equipment | (1,577) | (1,373) | (1,420)" in sent
    assert sent.startswith("(Millions) | 2018 | 2017 | 2016\n")  # which figure is 2018's
    assert "Depreciation" not in sent
    assert estimate_tokens(sent) < 0.5 * estimate_tokens(ROW_TABLE)


def test_a_source_says_where_on_its_page_the_text_it_sent_lies() -> None:
    """``sent_spans`` are offsets in the page's text, as a hit's start/end are: the cells the
    model read, exactly, for marks, highlights and the export's quotes."""
    page = "Consolidated Statement of Cash Flows\n\n" + ROW_TABLE + "\n\nNotes follow."
    start = page.index(ROW_TABLE)
    hits = [hit(1, 0.9, TOP)]
    hits.append(Hit(2, "/d/10-k.pdf", 60, start, start + len(ROW_TABLE), ROW_TABLE, 0.8, "c2"))
    hits += [Hit(i, "/d/10-k.pdf", 60 + i, 0, len(PROSE), PROSE, 0.8, f"c{i}") for i in (3, 4)]
    _, sources = build_messages(QUESTION, hits)
    table = next(s for s in sources if s.n == 2)
    assert table.sent is not None
    read = [page[a:b] for a, b in table.sent_spans]
    assert read[0] == "(Millions) | 2018 | 2017 | 2016"
    assert any("Purchases of property, plant and equipment | (1,577)" in r for r in read)
    assert table.to_json()["sent_spans"] == [list(r) for r in table.sent_spans]
    whole = sources[0]
    assert whole.sent_spans == [(whole.hit.start, whole.hit.end)]


def test_a_long_prose_passage_is_sent_as_the_sentence_asked_about_and_its_neighbours() -> None:
    question = "What does it cost to photograph documents in the archive?"
    sent = sent_text(PROSE, excerpt(question, PROSE, estimate_tokens))
    assert "for a fee of two pounds a day" in sent
    assert "parish registers" in sent and "Microfilm readers" in sent  # its neighbours
    assert "oak shelves" not in sent and "volunteer society" not in sent
    assert sent.startswith("…\n") and sent.endswith("\n…")  # it says lines were left out


def test_sources_over_the_cap_are_excerpted_lowest_ranked_first_then_left_out() -> None:
    hits = long_hits(CASH_FLOWS, PROSE, PROSE.replace("archive", "library"), CASH_FLOWS)
    messages, sources = build_messages(QUESTION, hits)
    prompt = messages[-1]["content"]
    tags = sum(estimate_tokens(b) + 1 for b in re.findall(r"<source .*?</source>", prompt, re.S))
    assert tags <= SOURCE_TOKENS
    assert sources[0].sent is None and sources[0].prompt_text == TOP  # the best goes whole
    table = next(s for s in sources if s.hit.text == CASH_FLOWS)
    assert table.sent is not None and "(1,577)" in table.prompt_text
    assert "Depreciation" not in prompt and table.prompt_text in prompt
    # what the person sees, and what marks and highlights index, is the whole page
    assert table.text == CASH_FLOWS
    claim = "In 2018, purchases of property, plant and equipment were (1,577) [2]."
    (mark,) = mark_sentences(claim, sources)
    n, start, end = mark.support_spans[0]
    assert mark.supported and n == 2 and "Purchases of property" in CASH_FLOWS[start:end]
    # numbers stay ranks: what is left out is the end of the ranking
    assert (
        [s.n for s in sources] == [s.hit.rank for s in sources] == list(range(1, len(sources) + 1))
    )


def test_sources_within_the_cap_the_best_a_short_one_and_one_without_the_words_go_whole() -> None:
    question = "What does it cost to photograph documents in the archive?"
    unrelated = PROSE.replace("document", "paper").replace("archive", "store")
    unrelated = unrelated.replace("Photograph", "Copy").replace("cost", "charge")
    within = [Hit(1, "/d/archive.md", None, 0, len(PROSE), PROSE, 0.9, "c1"), hit(2, 0.85)]
    _, sources = build_messages(question, within)
    assert [s.prompt_text for s in sources] == [PROSE, within[1].text]
    # over the cap: the best passage stays whole, and so does one no line of which shares
    # a word with the question (found by meaning, no line can be told from another)
    over = [within[0], *long_hits(unrelated, PROSE, PROSE, PROSE)[1:]]
    _, sources = build_messages(question, over)
    assert sources[0].sent is None and sources[1].prompt_text == unrelated
    assert any(s.sent is not None for s in sources[2:])
    _, today = build_messages(question, over, compact=False)
    assert [s.prompt_text for s in today] == [h.text for h in over]  # the benchmark's "today"


def test_a_follow_up_excerpts_for_its_standalone_question() -> None:
    """ "And the year before?" names nothing in the table: the search query, which the
    follow-up's rewrite made standalone, says which row to send."""
    hits = long_hits(CASH_FLOWS, PROSE, PROSE, CASH_FLOWS)
    query = "purchases of property, plant and equipment in 2017"
    _, alone = build_messages("And the year before?", hits)
    _, planned = build_messages("And the year before?", hits, search_query=query)
    assert "(1,373)" in planned[1].prompt_text and planned[1].sent is not None
    assert "Purchases of property" not in alone[1].prompt_text
