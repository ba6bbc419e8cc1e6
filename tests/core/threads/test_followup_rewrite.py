"""A follow-up rewrite is searched only when it reads as a query: not a statement, not a copy
of the previous answer (whose invented facts would be searched as if asked about)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from app.core.threads.followup import merge_query, standalone_query
from app.core.threads.store import Turn
from tests.fake_ollama import FakeOllama

QUESTION = "What tariff did the US put on steel imports?"
ANSWER = "The US imposed a 20% tariff on steel imports in 2018 [1]."


def earlier() -> Turn:
    return Turn(QUESTION, QUESTION, ANSWER, n=1)


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        yield fake


@pytest.mark.parametrize(
    "statement",
    [
        "The US imposed a 20% tariff on steel imports in 2018",  # the previous answer, copied
        "US 20% tariff on steel imports in 2018",  # the same, trimmed to look like a query
        "The tariff was raised to 25% in 2022.",  # a statement the model made up
        "It was raised again in 2022",
    ],
)
def test_a_rewrite_that_is_a_statement_or_a_copy_is_not_searched(
    server: FakeOllama, statement: str
) -> None:
    server.rewrite_reply = statement
    history = [earlier()]
    rewrite = standalone_query("and in 2022?", history, host=server.url, model="llama3.2")
    assert rewrite.method == "fallback" and rewrite.query == merge_query("and in 2022?", history)
    assert "20%" not in rewrite.query and "25%" not in rewrite.query


@pytest.mark.parametrize(
    "query",
    [
        "What tariff did the US put on steel imports in 2022?",
        "US steel import tariff 2022",
        "steel tariffs imposed by the US in 2022",
    ],
)
def test_a_rewrite_that_reads_as_a_query_is_searched(server: FakeOllama, query: str) -> None:
    server.rewrite_reply = query
    rewrite = standalone_query("and in 2022?", [earlier()], host=server.url, model="llama3.2")
    assert (rewrite.method, rewrite.query) == ("model", query)


ULTA = "What were Ulta Beauty's net sales for fiscal 2022?"


def test_a_rewrite_that_loses_the_follow_ups_words_or_changes_its_year_is_refused(
    server: FakeOllama,
) -> None:
    """Seen with a real small model: "and what about net income?" was searched as "Q: What
    were Ulta Beauty's net sales for fiscal 2023?" — "income" gone, the year changed."""
    history = [Turn(ULTA, ULTA, "Net sales were 10.2 billion dollars [1].", n=1)]
    server.rewrite_reply = "Q: What were Ulta Beauty's net sales for fiscal 2022?"
    dropped = standalone_query(
        "and what about net income?", history, host=server.url, model="llama3.2"
    )
    assert dropped.method == "fallback" and "“income”" in dropped.note
    assert {"net", "income", "ulta", "2022"} <= set(re.findall(r"\w+", dropped.query.lower()))
    server.rewrite_reply = "Q: Ulta Beauty net income fiscal 2023"
    changed = standalone_query(
        "and what about net income?", history, host=server.url, model="llama3.2"
    )
    assert changed.method == "fallback" and "“2023”" in changed.note
    assert "2023" not in changed.query and not changed.query.startswith("Q:")
    server.rewrite_reply = "Q: Ulta Beauty net income fiscal 2022"
    kept = standalone_query(
        "and what about net income?", history, host=server.url, model="llama3.2"
    )
    assert (kept.method, kept.query) == ("model", "Ulta Beauty net income fiscal 2022")
