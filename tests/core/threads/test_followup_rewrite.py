"""A follow-up rewrite is searched only when it reads as a query: not a statement, not a copy
of the previous answer (whose invented facts would be searched as if asked about)."""

from __future__ import annotations

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
