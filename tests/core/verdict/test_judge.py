"""The verdict and the claim checks, through the real answer path and a stand-in Ollama server.

The stand-in answers with scripted text over real HTTP on 127.0.0.1 (the real ``ollama``
client): one sentence copied from a source plus one invented, a swapped number, an inserted
"not", a verbatim copy, "the sources do not contain the answer". Also the model fallback
(never to an embedding-only model) and pulling a model with progress, cancellable.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from app.core.errors import AnswerError
from app.core.ollama.models import (
    ModelInfo,
    PullProgress,
    installed_models,
    pick_chat_model,
    pull_model,
    resolve_model,
)
from app.core.prompt.answering import Source, answer_question
from app.core.types import Hit, Support
from app.core.verdict.judge import judge
from app.core.verdict.marks import mark_sentences
from app.core.verdict.sentence import SentenceMark
from tests.fake_ollama import FakeOllama

ARCHIVE = (
    "The city archive was opened in 1889 by the mayor, Helena Brandt. "
    "It holds the harbour records from 1650 to 1900. "
    "The reading room is not open on Sundays."
)
HARBOUR = "The harbour was dredged in 1923. Ships of up to 12 metres draught can now enter."
STRONG = Support(True, 0.93, "A passage in your files closely matches the question.")
WEAK = Support(False, 0.12, "Nothing in your files is close to this question.")
INVENTED = "The lunar archive was founded by Captain Zanzibar Quillfeather in 1642."


def hit(rank: int, text: str, path: str) -> Hit:
    return Hit(rank, path, None, 0, len(text), text, 1.0 / rank, f"chunk-{rank}")


HITS = [hit(1, ARCHIVE, "/notes/archive.md"), hit(2, HARBOUR, "/notes/harbour.txt")]


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        yield fake


def answer(server: FakeOllama, reply: str, support: Support | None = STRONG, **kw: object):
    server.reply = reply
    result = answer_question(
        "When did the archive open?",
        HITS,
        host=server.url,
        model="llama3.2",
        timeout_s=10.0,
        support=support,
        **kw,  # type: ignore[arg-type]
    )
    assert result.error is None, result.error
    return result


# -- the stand-in scenarios -------------------------------------------------------------------
def test_one_invented_sentence_is_partly_supported(server: FakeOllama) -> None:
    a = answer(
        server, f"The city archive was opened in 1889 by the mayor, Helena Brandt [1]. {INVENTED}"
    )
    assert a.verdict is not None and a.verdict.level == "partly_supported"
    assert not a.verdict.supported  # never the green level
    assert (a.verdict.claim_sentences, a.verdict.unsupported_sentences) == (2, 1)
    assert "1 of the answer's 2 sentences" in a.verdict.reason
    out = a.to_json()
    assert out["verdict"] == {
        "level": "partly_supported",
        "reason": a.verdict.reason,
        "claim_sentences": 2,
        "unsupported_sentences": 1,
    }
    assert [s["kind"] for s in out["sentences"]] == ["claim", "claim"]  # type: ignore[index]
    assert [s["supported"] for s in out["sentences"]] == [True, False]  # type: ignore[index]


def test_an_invented_sentence_over_weak_evidence_is_unsupported_not_partly(
    server: FakeOllama,
) -> None:
    """An off-topic question whose answer quotes one unrelated passage and invents the rest:
    the quoted sentence is backed, but by a passage that does not answer the question."""
    a = answer(
        server,
        f"The city archive was opened in 1889 by the mayor, Helena Brandt [1]. {INVENTED}",
        support=WEAK,
    )
    assert a.verdict is not None and a.verdict.level == "unsupported"
    assert (a.verdict.claim_sentences, a.verdict.unsupported_sentences) == (2, 1)
    assert WEAK.reason in a.verdict.reason and "1 of the answer's 2 sentences" in a.verdict.reason


def test_swapped_number_is_flagged(server: FakeOllama) -> None:
    a = answer(server, "The city archive was opened in 1898 by the mayor, Helena Brandt [1].")
    (mark,) = a.sentences
    assert not mark.supported and "1898" in mark.reason and "1889" in mark.reason
    assert a.verdict is not None and a.verdict.level == "unsupported"


def test_inserted_negation_is_flagged(server: FakeOllama) -> None:
    a = answer(server, "The city archive was not opened in 1889 by the mayor, Helena Brandt [1].")
    (mark,) = a.sentences
    assert not mark.supported and "'not'" in mark.reason
    assert a.verdict is not None and a.verdict.level == "unsupported"


def test_removed_negation_is_flagged() -> None:
    (mark,) = mark_sentences("The reading room is open on Sundays [1].", [Source(1, HITS[0])])
    assert not mark.supported and "opposite" in mark.reason


def test_verbatim_answer_is_supported(server: FakeOllama) -> None:
    a = answer(
        server,
        "It holds the harbour records from 1650 to 1900 [1]. The harbour was dredged in 1923 [2].",
    )
    assert a.verdict is not None and a.verdict.level == "supported" and a.verdict.supported
    assert a.verdict.reason.startswith("All 2 sentences")


def test_verbatim_answer_over_weak_evidence_is_not_green(server: FakeOllama) -> None:
    a = answer(server, "The harbour was dredged in 1923 [2].", support=WEAK)
    assert a.verdict is not None and a.verdict.level == "unsupported"
    assert WEAK.reason in a.verdict.reason


def test_a_backed_answer_about_what_the_question_names_overrules_weak_evidence() -> None:
    """The search's words matched loosely ("in power" against "ruled"), but the question names
    the Ming, and the passage that backs every sentence does too."""
    passage = "The Ming dynasty ruled China from 1368 to 1644, following the Yuan."
    marks = mark_sentences(
        "The Ming dynasty ruled from 1368 to 1644 [1].",
        [Source(1, hit(1, passage, "/notes/ming.md"))],
    )
    passages = {1: (passage, "ming.md")}
    verdict = judge(WEAK, marks, question="When was the Ming dynasty in power?", passages=passages)
    assert verdict.level == "supported" and "only loosely" in verdict.reason
    # a question naming something no backing passage names is not vouched for so
    other = judge(WEAK, marks, question="When was the Qing dynasty in power?", passages=passages)
    assert other.level == "unsupported"
    # nor is unknown evidence (a stored turn, a failed search): it is never green
    unknown = judge(None, marks, question="When was the Ming dynasty in power?", passages=passages)
    assert unknown.level == "unsupported"


def test_no_answer_is_neutral(server: FakeOllama) -> None:
    a = answer(server, "The sources do not contain the answer.", support=WEAK)
    assert a.verdict is not None and a.verdict.level == "no_answer"
    assert a.verdict.claim_sentences == 0 and a.to_json()["sentences"][0]["kind"] == "meta"  # type: ignore[index]


def test_sentences_kept_in_other_words_stay_supported() -> None:
    sources = [Source(1, HITS[0]), Source(2, HITS[1])]
    for sentence in (
        "Helena Brandt, the mayor, opened the city archive in 1889 [1].",  # reordered
        "The archive was opened in 1889 [1].",  # shortened
        "It keeps the harbour records from 1650 to 1900 [1].",  # reworded
        "The reading room isn't open on Sundays [1].",  # the same negation, contracted
        "Since 1923, when the harbour was dredged, ships of up to twelve metres can enter [2].",
    ):
        (mark,) = mark_sentences(sentence, sources)
        assert mark.supported, (sentence, mark.reason)


def test_swapped_name_and_wrong_passage_are_flagged() -> None:
    sources = [Source(1, HITS[0]), Source(2, HITS[1])]
    (name,) = mark_sentences(
        "The city archive was opened in 1889 by the mayor, Ida Moreau [1].", sources
    )
    assert not name.supported and "Ida" in name.reason
    (stranger,) = mark_sentences("The lighthouse keeper retires in April [1].", sources)
    assert not stranger.supported


def test_a_sentence_citing_the_wrong_passage_is_named_in_the_verdict() -> None:
    """Backed by [1] but citing [2]: the claim holds, its pointer does not; the reason says so
    and says which passage backs it."""
    mark = SentenceMark("The front tyre takes 80 psi [2].", 0, 32, True, [2], [(1, 0, 20)])
    assert mark.miscited and mark.backed_by == [1]
    verdict = judge(STRONG, [mark])
    assert verdict.level == "supported"
    assert "cites another passage than the one that backs it (cites [2], backed by [1])" in (
        verdict.reason
    )
    right = SentenceMark("The front tyre takes 80 psi [1].", 0, 32, True, [1], [(1, 0, 20)])
    assert not right.miscited and "cites" not in judge(STRONG, [right]).reason


def test_an_answer_cut_short_is_never_green() -> None:
    mark = SentenceMark("The harbour was dredged in 1923 [1].", 0, 36, True, [1], [(1, 0, 20)])
    assert judge(STRONG, [mark]).level == "supported"
    stopped = judge(STRONG, [mark], partial=True)
    assert stopped.level == "no_answer" and not stopped.supported
    assert stopped.title == "The answer is incomplete" and "stopped" in stopped.reason


def test_refused_and_empty_answers_have_a_verdict() -> None:
    assert judge(WEAK, [], answered=False).level == "unsupported"
    assert judge(STRONG, [], error="Ollama is not running").level == "no_answer"
    # no answer came back for a question the files do not support: that comes first
    down = judge(WEAK, [], error="Ollama is not running")
    assert down.level == "unsupported"
    assert WEAK.reason in down.reason and "Ollama is not running" in down.reason


# -- a first question that works --------------------------------------------------------------
def test_missing_model_falls_back_to_an_installed_chat_model(server: FakeOllama) -> None:
    server.models = ["nomic-embed-text:latest", "all-minilm:latest", "qwen2.5:3b"]
    a = answer(server, "The harbour was dredged in 1923 [2].")
    assert a.model == "qwen2.5:3b" and a.requested_model == "llama3.2"
    assert a.model_note and "'llama3.2' is not installed" in a.model_note
    assert "qwen2.5:3b" in a.model_note and "ollama pull llama3.2" in a.model_note
    chats = [r.body["model"] for r in server.chats()]
    assert chats == ["llama3.2", "qwen2.5:3b"]  # never an embedding model
    assert a.to_json()["model"] == "qwen2.5:3b"


def test_no_chat_model_says_which_pull_command(server: FakeOllama) -> None:
    server.models = ["nomic-embed-text:latest"]
    server.reply = "The harbour was dredged in 1923 [2]."
    a = answer_question("Q?", HITS, host=server.url, model="llama3.2", support=STRONG)
    assert a.error_kind == "model_missing" and "`ollama pull llama3.2`" in (a.error or "")
    assert [r.body["model"] for r in server.chats()] == ["llama3.2"]
    assert a.verdict is not None and a.verdict.level == "no_answer"


def test_embedding_models_are_never_picked(server: FakeOllama) -> None:
    server.models = ["all-minilm:latest", "llama3.2:1b", "qwen2.5:3b"]
    assert resolve_model(server.url, "llama3.2").model == "llama3.2:1b"  # another tag first
    server.show_capabilities = False  # an older server: families and names decide
    infos = installed_models(server.url)
    assert [m.embedding_only for m in infos] == [True, False, False]
    assert pick_chat_model([ModelInfo("mxbai-embed-large")], "llama3.2") is None
    server.models = ["all-minilm:latest"]
    choice = resolve_model(server.url, "all-minilm")
    assert choice.model is None and "ollama pull all-minilm" in (choice.note or "")


def test_pull_streams_progress_then_installs(server: FakeOllama) -> None:
    server.models = []
    seen: list[PullProgress] = []
    assert pull_model(server.url, "llama3.2", on_progress=seen.append) is True
    assert seen[0].status == "pulling manifest" and seen[-1].status == "success"
    sized = [p for p in seen if p.total]
    assert sized[0].fraction == 0.0 and sized[-1].fraction == 1.0
    assert any(p.status.startswith("downloading sha256:") for p in sized)
    assert server.models == ["llama3.2:latest"]
    assert [r.body["model"] for r in server.requests if r.path == "/api/pull"] == ["llama3.2"]


def test_pull_can_be_cancelled(server: FakeOllama) -> None:
    server.models, server.pull_delay = [], 0.2
    cancel = threading.Event()

    def on_progress(p: PullProgress) -> None:
        if p.total:
            cancel.set()

    assert pull_model(server.url, "llama3.2", on_progress=on_progress, cancel=cancel) is False
    assert server.models == [] and server.pulls_finished == 0


def test_pull_of_an_unknown_model_says_why(server: FakeOllama) -> None:
    server.pullable = {"llama3.2:latest"}
    with pytest.raises(AnswerError) as info:
        pull_model(server.url, "no-such-model")
    assert info.value.kind == "pull_failed" and "file does not exist" in info.value.message
