"""The support verdict a search gives: the same for any number of passages shown, and a
reason that does not claim more than the passages hold."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTES = {
    "shakshuka.md": "# Shakshuka\n\nWarm the oil, soften one onion and two peppers, add the "
    "tomatoes and simmer ten minutes. Make six hollows and crack in six eggs. Cover and cook "
    "on low for eight minutes, until the whites are set.\n",
    "lisbon-trip.md": "# Lisbon trip\n\nThe flight leaves on 14 May at 07:40 from gate B12. "
    "We stay three nights in Alfama and take the tram 28 to Belém on the second day.\n",
    "meeting.md": "# Budget meeting\n\nQ1 marketing spend was 42,000 euros and Q2 was 51,500 "
    "euros. The team agreed to move two events to the autumn.\n",
    "bike.md": "# Bike care\n\nCheck the chain every month and oil it after rain. Replace "
    "the brake pads when the groove is worn away.\n",
}


@pytest.fixture
def notes_engine(tmp_path: Path, make_engine):
    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in NOTES.items():
        (folder / name).write_text(text)
    engine = make_engine()
    engine.index([str(folder)])
    return engine


def test_the_verdict_is_the_same_for_any_number_of_results(notes_engine) -> None:
    engine = notes_engine
    passages = engine.manifest.counts()["chunks"]
    for question in ("how long do I cook the eggs in shakshuka", "when does the flight leave"):
        full = engine.search(question, k=8)
        assert full.hits and full.support.features
        for k in (1, 2, 3, 20):
            shown = engine.search(question, k=k)
            assert len(shown.hits) == min(k, passages)
            assert [h.chunk_id for h in shown.hits][:1] == [full.hits[0].chunk_id]
            assert shown.support.supported == full.support.supported, (question, k)
            assert shown.support.score == full.support.score, (question, k)


def test_a_name_no_passage_holds_is_named_in_the_reason(notes_engine) -> None:
    """The trip note matches "flight" well, but the question asks about Paris: whether or not
    the flag is raised, the reason must not say the passage contains the question's terms."""
    result = notes_engine.search("when is the flight to Paris")
    assert result.hits[0].path.endswith("lisbon-trip.md")
    assert "“Paris”" in result.support.reason
    assert "contains its key terms" not in result.support.reason
    quarter = notes_engine.search("what was the Q3 marketing spend")
    assert quarter.hits[0].path.endswith("meeting.md") and "“Q3”" in quarter.support.reason
    # a lower-case word the notes lack ("leave" is there; "depart" is not) is not a name
    plain = notes_engine.search("when does the flight depart")
    assert plain.support.supported and "“depart”" not in plain.support.reason


def test_a_scope_of_one_file_does_not_weaken_an_exact_match(notes_engine, tmp_path: Path) -> None:
    """With one passage in scope there is no runner-up: that is no reason to doubt it."""
    from app.core.search.scope import Scope

    question = "when does the flight leave from gate B12"
    trip = next(p for p in notes_engine.manifest.files_under() if p.endswith("lisbon-trip.md"))
    whole = notes_engine.search(question)
    alone = notes_engine.search(question, scope=Scope(paths=(trip,)))
    assert [h.path for h in alone.hits] == [trip]
    assert whole.support.supported and alone.support.supported
    assert alone.support.features["fused_gap"] > 0 and alone.support.features["dense_gap"] > 0
