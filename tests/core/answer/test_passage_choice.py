"""The passages sent to the model are chosen by evidence: one decisive passage goes alone, an
answer spread over several passages of similar score gets them all, and numbers stay ranks."""

from __future__ import annotations

import re
from pathlib import Path

from app.core.answer.answering import estimate_tokens
from app.core.answer.passages import choose_passages
from app.core.ask import Asker, AskOptions, AskRequest
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
