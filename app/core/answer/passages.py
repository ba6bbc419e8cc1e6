"""Which retrieved passages go into the prompt: what the answer needs, and no more.

On a machine without a GPU the wait for the first word of an answer grows with the prompt,
and a small model answers worse from eight passages of which one matters. So the passages
sent are chosen by evidence rather than a fixed eight: in rank order, while a passage's fused
score stays within ``KEEP_SHARE`` of the best one's and the passages chosen stay within
``TOKEN_CAP``. A question with one decisive passage sends one; one whose evidence is spread
over passages of similar score sends them all.

They are always a prefix of the ranking, so a source's number in the prompt is its rank in
the list the person sees. Search puts tables of contents and indexes after prose
(``retrieval.contents_last``), so the choice stops at the first of them: they point at the
page that answers, they never answer (unless one is the best passage: a question about them).
The verdict is unaffected: retrieval evidence is computed on the best eight passages
(``support.HITS``) before this choice, as it was calibrated.

Tuned on SQuAD 2.0 dev questions (answerable, 216 in the dev half by question-id hash), the
gold paragraph kept against the median prompt (system prompt included) of today's eight:
share 0.50 -> 0.995 kept, 52% of the tokens; 0.55 -> 0.995, 46%; 0.60 -> 0.986, 43%;
0.65 -> 0.981, 37%. Held-out half (184) at 0.55: 0.983 kept, 47% of the tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from app.core.search.fusion import without_bonus
from app.core.text import is_toc_like
from app.core.types import Hit

KEEP_SHARE = 0.55  # a passage scoring under this share of the best one's adds little
TOKEN_CAP = 1600  # the passages' own tokens, whatever their scores (about 10 short passages)


def choose_passages(
    hits: Sequence[Hit],
    estimate: Callable[[str], int],
    *,
    keep_share: float = KEEP_SHARE,
    token_cap: int = TOKEN_CAP,
) -> list[Hit]:
    """The leading hits worth sending to the model (at least the best one); ``estimate``
    counts a text's tokens."""
    ranked = sorted(hits, key=lambda h: h.rank)
    if not ranked:
        return []
    best = without_bonus(ranked[0].score)
    chosen = [ranked[0]]
    used = estimate(ranked[0].text)
    for hit in ranked[1:]:
        cost = estimate(hit.text)
        if without_bonus(hit.score) < keep_share * best or used + cost > token_cap:
            break
        if is_toc_like(hit.text):
            break
        chosen.append(hit)
        used += cost
    return chosen
