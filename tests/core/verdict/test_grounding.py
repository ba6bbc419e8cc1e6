"""A grounding model in Ollama decides the answer's sentences when Settings name one, through
the real ``ollama`` client against the stand-in server (which answers "Document: … Claim: …")."""

from __future__ import annotations

from app.core.ask import Asker, AskOptions, AskRequest
from app.core.search.retrieval import SearchResult
from app.core.types import Hit, Support
from app.core.verdict.judge import Level
from tests.fake_ollama import FakeOllama

PASSAGE = "The museum opens at ten. It closes at six on weekdays and at four on Sundays."
ANSWER = "The museum opens at ten [1]. It closes at six on weekdays and on Sundays [1]."


def _search(query: str, k: int, scope: object) -> SearchResult:
    hit = Hit(1, "/notes/museum.md", None, 0, len(PASSAGE), PASSAGE, 0.9, "c1")
    return SearchResult(query, [hit], Support(True, 0.9, "The passages match the question."))


def _ask(fake: FakeOllama, grounding: str) -> object:
    options = AskOptions(host=fake.url, model="llama3.2", grounding_model=grounding)
    return Asker(_search, None, options).run(AskRequest("When does the museum open and close?"))


def _judge(document: str, claim: str) -> str:
    return "No" if "Sundays" in claim else "Yes"


def test_the_grounding_model_decides_each_sentence_and_the_verdict_names_it() -> None:
    with FakeOllama(
        reply=ANSWER, models=["llama3.2:latest", "bespoke-minicheck:latest"], grounding=_judge
    ) as fake:
        builtin = _ask(fake, "")
        grounded = _ask(fake, "bespoke-minicheck")
        asked = [r for r in fake.chats() if r.body["model"].startswith("bespoke")]
    # the built-in checks back both sentences (the second is the passage's, nearly word for word)
    assert builtin.verdict.level is Level.SUPPORTED
    first, second = grounded.answer.sentences
    assert first.supported and not second.supported
    assert "bespoke-minicheck finds no support" in second.reason and "grounding" in second.checks
    assert grounded.verdict.level is Level.PARTLY
    assert "Sentences checked by bespoke-minicheck." in grounded.verdict.reason
    # one request a claim sentence, each with its passage and the claim as the model wants them
    assert len(asked) == 2
    content = asked[1].body["messages"][0]["content"]
    assert content.startswith(f"Document: {PASSAGE}") and content.endswith(
        "Claim: " + ANSWER.split(" [1]. ")[1]
    )


def test_a_grounding_model_that_cannot_be_asked_leaves_the_built_in_marks_and_says_so() -> None:
    with FakeOllama(reply=ANSWER, models=["llama3.2:latest"]) as fake:
        outcome = _ask(fake, "bespoke-minicheck")
    assert outcome.verdict.level is Level.SUPPORTED  # the built-in checks' verdict stands
    assert "bespoke-minicheck could not be asked" in outcome.verdict.reason
