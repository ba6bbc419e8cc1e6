"""``footnotes eval claims``: the dev set is built the same way every time, and every kind is
scored; on small stand-in passages here (the real ones live in ../shared/data)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from app.evaluation import claims
from tests.helpers import footnotes

ARTICLES = {
    "Lighthouses": [
        "The Bell Rock Lighthouse was built by Robert Stevenson between 1807 and 1810, "
        "off the coast of Angus. It is the oldest surviving sea-washed lighthouse in the world. "
        "The light was not automated until 1988, when the last keepers left the rock.",
        "Its tower is 35 metres tall, and its light can be seen from 30 miles away. "
        "During storms, waves often reach the lantern, although the tower has never been breached.",
    ],
    "Kites": [
        "Kites were first flown in China about 2,800 years ago, and Marco Polo described them. "
        "Early kites were made of silk stretched over bamboo frames. "
        "They were used to measure distances and to send signals.",
        "In 1752 Benjamin Franklin flew a kite in a thunderstorm in Philadelphia. "
        "The experiment showed that lightning is electrical, but it was not without danger.",
    ],
    "Bridges": [
        "The Forth Bridge in Scotland was opened on 4 March 1890 by the Prince of Wales. "
        "It was designed by John Fowler and Benjamin Baker, and it is painted red. "
        "The bridge carries two railway tracks across the Firth of Forth.",
        "Its construction employed over 4,000 men, and 57 of them died during the work. "
        "Maintenance never stops, since the paint must be renewed regularly.",
    ],
}


def write_passages(root: Path) -> Path:
    (root / "squad2").mkdir(parents=True)
    with (root / "squad2" / "passages.jsonl").open("w") as fh:
        for title, texts in ARTICLES.items():
            for i, text in enumerate(texts):
                fh.write(json.dumps({"_id": f"{title}#{i}", "title": title, "text": text}) + "\n")
    return root


def test_the_dev_set_is_the_same_on_every_run(tmp_path: Path) -> None:
    passages = claims.load_passages(write_passages(tmp_path))
    first, second = claims.build_dev_set(passages), claims.build_dev_set(passages)
    assert first == second
    made = {e.kind for e in first}
    assert made >= {"verbatim", "shortened", "number_swapped", "name_swapped", "wrong_source"}
    assert made >= {"negation_inserted", "negation_removed"}
    for e in first:
        assert e.sentence.endswith("[1].") and e.sources[0].n == 1
        assert (e.sentence.rstrip(" [1].") == e.original.rstrip(".")) is (
            e.kind in ("verbatim", "wrong_source")
        )
        if e.kind == "wrong_source":
            assert all(e.original not in s.text for s in e.sources)


def test_two_figures_of_a_sentence_are_exchanged(tmp_path: Path) -> None:
    """Every word and figure is still the passage's; the figures are each other's."""
    passages = claims.load_passages(write_passages(tmp_path))
    exchanged = [e for e in claims.build_dev_set(passages) if e.kind == "figures_exchanged"]
    assert exchanged and all(not e.supported for e in exchanged)
    for e in exchanged:
        said = e.sentence.removesuffix(" [1].")
        figures = re.findall(r"\d+(?:[.,]\d+)*", said)
        assert sorted(figures) == sorted(re.findall(r"\d+(?:[.,]\d+)*", e.original))
        assert said != e.original.rstrip(".")


def test_eval_claims_prints_the_table(tmp_path: Path, cli_data_dir: Path) -> None:
    data = write_passages(tmp_path / "shared")
    proc = footnotes("--data-dir", str(cli_data_dir), "eval", "claims", "--data", str(data))
    assert proc.returncode == 0, proc.stderr
    assert "held out" in proc.stdout and "number_swapped" in proc.stdout
    as_json = footnotes(
        "--data-dir", str(cli_data_dir), "eval", "claims", "--data", str(data), "--json"
    )
    report = json.loads(as_json.stdout)
    rows = {**report["halves"].get("tuning", {}), **report["halves"].get("held_out", {})}
    assert rows and all(0.0 <= r["correct"] <= 1.0 and r["n"] > 0 for r in rows.values())
    assert report["seed"] == claims.SEED and isinstance(report["targets_met_held_out"], bool)
    below = report["below_target_held_out"]
    assert report["targets_met_held_out"] == (not below)
    if below:  # the summary names the kinds short of their target
        assert f"NOT met ({', '.join(below)})" in proc.stdout
