"""Per-index calibration of the support flag: chosen from the index's own probe questions,
stored in the data directory, refreshed when the index grows, used by search."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from app.core.index.schema import INDEX_FORMAT
from app.core.search import calibration, probes, support
from app.core.search.calibration import Calibration

SYLLABLES = "ka lo mi ne ru sa ti vo ze pa qui dor fen gal hob jin".split()  # noqa: SIM905
COMMON = "the a of and with for in was is to".split()  # noqa: SIM905


def pseudo_word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def write_notes(folder: Path, count: int, seed: int) -> Path:
    """Notes whose words are their own (made-up) vocabulary, so each note answers its own
    questions and nothing else does."""
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    for i in range(count):
        vocab = [pseudo_word(rng) for _ in range(25)]
        sentences = []
        for _ in range(6):
            words = [rng.choice(vocab if rng.random() < 0.7 else COMMON) for _ in range(12)]
            sentences.append(" ".join(words).capitalize() + ".")
        (folder / f"note{i:03d}.md").write_text(f"# Note {i}\n\n" + " ".join(sentences) + "\n")
    return folder


@pytest.fixture
def small_calibration(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calibrate small indexes with few questions, so the test stays quick."""
    monkeypatch.setattr(calibration, "MIN_PASSAGES", 20)
    monkeypatch.setattr(probes, "DRAWN", 16)
    questions = probes.offtopic_questions()[:24]
    monkeypatch.setattr(probes, "offtopic_questions", lambda: questions)


@pytest.mark.slow
def test_calibration_is_stored_and_updated_after_a_folder_is_added(
    tmp_path: Path, make_engine, small_calibration
) -> None:
    engine = make_engine()
    first = write_notes(tmp_path / "first", 30, seed=1)
    engine.add_folder(str(first))
    engine.index([str(first)])
    before = calibration.load(engine.data.root)
    assert before is not None
    assert before.passages == engine.manifest.counts()["chunks"] >= 20
    assert before.model == support.SupportModel.load().key
    assert before.probes > 0 and before.offtopic == 24
    assert "calibrated for this index" in probes.status(engine.manifest, engine.data.root)

    # the index grows by more than a fifth: the next index run measures it again
    second = write_notes(tmp_path / "second", 30, seed=2)
    engine.add_folder(str(second))
    engine.index([str(first), str(second)])
    after = calibration.load(engine.data.root)
    assert after is not None and after.passages == engine.manifest.counts()["chunks"]
    assert after.passages > before.passages

    # search applies this index's threshold: that of the folder holding the best passage
    model = support.SupportModel.load()
    assert support.threshold_for(model, engine.retriever.cache.calibration()) == after.threshold
    assert {r["folder"] for r in after.regions} == {str(first), str(second)}
    result = engine.search("ka lo mi ne ru")
    own = after.threshold_at(result.hits[0].path)
    assert own == next(r["threshold"] for r in after.regions if r["folder"] in result.hits[0].path)
    assert result.support.supported == (result.support.score >= own)


def test_a_small_change_keeps_the_calibration(
    tmp_path: Path, make_engine, small_calibration
) -> None:
    engine = make_engine()
    notes = write_notes(tmp_path / "notes", 30, seed=3)
    engine.index([str(notes)])
    before = calibration.load(engine.data.root)
    (notes / "extra.md").write_text("# Extra\n\nOne more short note about nothing much.\n")
    engine.index([str(notes)])
    assert calibration.load(engine.data.root) == before


def test_a_calibration_made_on_an_older_index_format_is_measured_again(
    tmp_path: Path, make_engine, small_calibration
) -> None:
    """After an upgrade re-embeds passages with more context, their scores move: the threshold
    measured on the old passages is redone by the next index run."""
    engine = make_engine()
    notes = write_notes(tmp_path / "notes", 30, seed=4)
    engine.index([str(notes)])
    current = calibration.load(engine.data.root)
    assert current is not None and current.index_format == INDEX_FORMAT
    older = dataclasses.replace(current, index_format=INDEX_FORMAT - 1, threshold=0.99)
    calibration.save(engine.data.root, older)
    engine.index([str(notes)])  # nothing changed on disk
    redone = calibration.load(engine.data.root)
    assert redone is not None and redone.index_format == INDEX_FORMAT
    assert redone.threshold == current.threshold != 0.99


def test_a_calibration_for_other_parameters_is_ignored(tmp_path: Path) -> None:
    model = support.SupportModel.load()
    cal = Calibration(0.9, model.threshold, "another model @ 2020-01-01", 1000, "2020-01-01")
    calibration.save(tmp_path, cal)
    stored = calibration.CalibrationFile(tmp_path)

    assert support.threshold_for(model, stored.current()) == model.threshold
    calibration.save(tmp_path, Calibration(0.42, model.threshold, model.key, 1000, "2020"))
    assert support.threshold_for(model, stored.current()) == 0.42  # the new file is read


@pytest.mark.slow
def test_the_watcher_measures_again_after_a_folder_is_added(
    tmp_path: Path, make_engine, small_calibration
) -> None:
    """The window and ``footnotes watch`` add folders through the watcher, not ``index``: the
    calibration follows the index there too."""
    from app.core.watch.watcher import Watcher

    engine = make_engine()
    watcher = Watcher(engine, quiet=0.2, max_wait=1.0)
    watcher.start()
    try:
        watcher.add_folder(str(write_notes(tmp_path / "first", 30, seed=4)))
        assert watcher.wait_idle(120)
        before = calibration.load(engine.data.root)
        assert before is not None and before.passages == engine.manifest.counts()["chunks"]

        watcher.add_folder(str(write_notes(tmp_path / "second", 30, seed=5)))
        assert watcher.wait_idle(120)
        after = calibration.load(engine.data.root)
        assert after is not None and after.passages == engine.manifest.counts()["chunks"]
        assert after.passages > before.passages
    finally:
        watcher.stop()


def test_each_top_level_folder_gets_its_own_threshold(
    tmp_path: Path, make_engine, small_calibration
) -> None:
    """Notes that only answer their own questions beside files kept twice: a question whose
    file is missing still finds its twin, so that folder needs a stricter threshold than the
    notes; one index-wide threshold serves neither. Even so the match there cannot tell a
    found page from a missing one, and a question that passes among the twins is told so."""
    engine = make_engine()
    root = tmp_path / "documents"
    write_notes(root / "notes", 30, seed=5)
    twins = root / "reports"
    twins.mkdir()
    for note in sorted(write_notes(tmp_path / "originals", 15, seed=6).iterdir()):
        for copy in ("draft", "final"):  # every report kept twice
            (twins / f"{copy}-{note.name}").write_text(note.read_text())
    (root / "loose.md").write_text("# Loose\n\nA file directly in the folder.\n")
    engine.index([str(root)])  # not watched: the regions are the folders below the shared one
    cal = calibration.load(engine.data.root)
    assert cal is not None
    by_folder = {r["folder"]: r for r in cal.regions}
    assert set(by_folder) == {str(root / "notes"), str(twins)}
    assert all(r["probes"] > 0 and r["passages"] >= 20 for r in cal.regions)
    notes, reports = by_folder[str(root / "notes")], by_folder[str(twins)]
    assert (notes["lookalike"], reports["lookalike"]) == (False, True)
    assert notes["removed_flagged"] >= calibration.LOOKALIKE_REMOVED_FLAGGED
    assert reports["threshold"] > notes["threshold"]
    assert cal.threshold_at(str(twins / "report03.md")) == reports["threshold"]
    assert cal.threshold_at(str(root / "loose.md")) == cal.threshold  # too small: index-wide
    said = probes.status(engine.manifest, engine.data.root)  # what `doctor` prints
    assert "reports" in said and "look-alike documents" in said

    # a question about a report passes, and says what its match cannot tell
    report = (twins / "final-note004.md").read_text().split("\n")[2].split(".")[0]
    result = engine.search(report, 5)
    assert result.hits[0].path.startswith(str(twins))
    assert result.support.supported and result.support.reason == support.LOOKALIKE
    # a question about a note does not
    note = (root / "notes" / "note004.md").read_text().split("\n")[2].split(".")[0]
    found = engine.search(note, 5)
    assert found.support.supported and found.support.reason != support.LOOKALIKE


@pytest.mark.slow
def test_a_new_top_level_folder_gets_its_own_threshold_before_the_index_grows_a_fifth(
    tmp_path: Path, make_engine, small_calibration
) -> None:
    """A person adds a folder of journal entries to a large index: it adds less than a fifth,
    yet its questions should be judged by a threshold measured on its own passages."""
    engine = make_engine()
    root = tmp_path / "documents"
    write_notes(root / "notes", 90, seed=7)
    write_notes(root / "letters", 60, seed=8)
    engine.add_folder(str(root))
    engine.index([str(root)])
    before = calibration.load(engine.data.root)
    assert before is not None
    assert {r["folder"] for r in before.regions} == {str(root / "notes"), str(root / "letters")}

    write_notes(root / "journal", 25, seed=9)
    engine.index([str(root)])
    after = calibration.load(engine.data.root)
    assert after is not None
    assert after.passages - before.passages <= calibration.GROWTH * before.passages
    journal = next(r for r in after.regions if r["folder"] == str(root / "journal"))
    assert journal["probes"] > 0
    assert "journal" in probes.status(engine.manifest, engine.data.root)

    engine.index([str(root)])  # nothing changed: the calibration is kept as it is
    assert calibration.load(engine.data.root) == after
