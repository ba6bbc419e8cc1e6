"""What a search accepts: a query of at most ``MAX_QUERY_CHARS`` characters, as well-formed text.

Every front end (the command line, a batch line, the window, the engine process, evaluation)
reaches retrieval through ``Retriever.search``, which checks its query here first, so a pasted
book is refused with a sentence instead of being embedded and matched for minutes.
"""

from __future__ import annotations

from app.core.errors import QueryError
from app.core.text import well_formed

# Far above any question a person types (a long paragraph is ~1,000 characters); a passage of
# the index is ~1,200. Longer text gains nothing: the model reads 256 word pieces of it.
MAX_QUERY_CHARS = 2_000


def checked_query(query: str) -> str:
    """``query`` ready to search, or a ``QueryError`` saying the cap it breaks."""
    if len(query) > MAX_QUERY_CHARS:
        raise QueryError(
            f"the query is {len(query):,} characters long; a query may have at most "
            f"{MAX_QUERY_CHARS:,}. Ask about a passage with a few of its words instead."
        )
    return well_formed(query)
