"""What a search accepts: a query of at most ``MAX_QUERY_CHARS`` characters, as well-formed
text; a pasted book is refused with a sentence instead of being embedded for minutes."""

from __future__ import annotations

import os

import pytest

from app.core.errors import QueryError
from app.core.search.query import MAX_QUERY_CHARS, checked_query


def test_a_query_up_to_the_cap_is_searched_as_typed() -> None:
    assert checked_query("how often is the chain replaced?") == "how often is the chain replaced?"
    assert checked_query("x" * MAX_QUERY_CHARS) == "x" * MAX_QUERY_CHARS


def test_a_longer_query_is_refused_with_its_length_and_the_cap() -> None:
    with pytest.raises(QueryError) as refused:
        checked_query("word " * 1_000)
    assert str(refused.value) == (
        "the query is 5,000 characters long; a query may have at most 2,000. "
        "Ask about a passage with a few of its words instead."
    )


def test_stray_bytes_of_a_terminal_are_read_as_text() -> None:
    assert checked_query(os.fsdecode(b"caf\xe9 au lait")) == "café au lait"
