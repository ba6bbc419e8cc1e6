"""``footnotes eval answers``: real answers through the Ask operation, judged against gold answers.

A tiny labelled set of each kind is written to tmp files in the shared data's formats and the
command runs in-process against the stand-in Ollama server: an echo model (it copies the first
sentence of source [1]) and a model that invents its answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.evaluation.answers import contains, finance_contains, key_number, normalize
from tests.fake_ollama import FakeOllama
from tests.helpers import footnotes, make_pdf

pytestmark = pytest.mark.slow

# Each passage's first sentence holds its answer, except Lighthouses' (its answer is second).
PASSAGES = {
    "Glaciers#0": (
        "Glaciers",
        "Glaciers form where snow accumulates faster than it melts over many centuries. "
        "Their ice flows slowly downhill under its own weight.",
    ),
    "Volcanoes#0": (
        "Volcanoes",
        "Volcanic eruptions release basalt lava, ash and gases from the mantle. "
        "Some volcanoes stay dormant for thousands of years.",
    ),
    "Sourdough#0": (
        "Sourdough",
        "A sourdough starter is fed with equal weights of rye flour and water every day. "
        "The bread then rises for twelve hours.",
    ),
    "Lighthouses#0": (
        "Lighthouses",
        "Lighthouses guide ships along dangerous coasts at night. "
        "The Pharos of Alexandria was built by Sostratus of Cnidus.",
    ),
}
SQUAD_QUESTIONS = [
    ("a1", "answerable", "Glaciers#0", "Where do glaciers form?", ["snow accumulates faster"]),
    ("a2", "answerable", "Volcanoes#0", "What lava do volcanic eruptions release?", ["basalt"]),
    ("a3", "answerable", "Sourdough#0", "What is a sourdough starter fed with?", ["rye flour"]),
    ("a4", "answerable", "Lighthouses#0", "Who built the Pharos lighthouse?", ["Sostratus"]),
    ("u1", "unanswerable_in_corpus", "Glaciers#0", "Who first named the glaciers in 1850?", []),
    ("u2", "unanswerable_in_corpus", "Volcanoes#0", "Which volcano erupted in 1850?", []),
    ("o1", "out_of_corpus", None, "Which symphony did Mahler finish last?", []),
    ("o2", "out_of_corpus", None, "Who painted the Mona Lisa?", []),
]
NOTES = {
    "git/amending-the-last-commit.md": "# Amending The Last Commit\n\nRun git commit --amend "
    "to rewrite the previous commit message and staged contents.\n",
    "vim/deleting-every-blank-line.md": "# Deleting Every Blank Line\n\nIn vim the command "
    ":g/^$/d removes each empty row from the buffer.\n",
}
INVENTED = "The moon is made of green cheese according to ancient astronomers [1]."


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def labelled_set(root: Path) -> Path:
    """SQuAD paragraphs, notes and a filing with FinanceBench questions, in the shared layout."""
    _jsonl(
        root / "squad2" / "passages.jsonl",
        [{"_id": pid, "title": t, "text": x} for pid, (t, x) in PASSAGES.items()],
    )
    _jsonl(
        root / "squad2" / "questions.jsonl",
        [
            {
                "id": qid,
                "question": q,
                "title": (pid or "Other#").split("#")[0],
                "passage_id": pid,
                "answers": answers,
                "kind": kind,
            }
            for qid, kind, pid, q, answers in SQUAD_QUESTIONS
        ],
    )
    for rel, text in NOTES.items():
        (root / "corpus" / "notes" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "corpus" / "notes" / rel).write_text(text, encoding="utf-8")
    filings = root / "corpus" / "filings"
    filings.mkdir(parents=True)
    make_pdf(
        filings / "ACME_2020_10K.pdf",
        [
            "Business overview of the Acme company and its anvils.",
            "Acme capital expenditure was $1,577 million in fiscal 2020, mostly new anvil presses.",
        ],
    )

    def evidence(doc: str, page: int) -> list[dict]:
        return [{"doc_name": doc, "evidence_page_num": page, "evidence_text": "x"}]

    _jsonl(
        root / "financebench" / "questions.jsonl",
        [
            {
                "financebench_id": "f1",
                "company": "Acme",
                "doc_name": "ACME_2020_10K",
                "question": "What was Acme's capital expenditure in fiscal 2020?",
                "answer": "$1577.00",
                "evidence": evidence("ACME_2020_10K", 1),
            },
            {
                "financebench_id": "f2",
                "company": "Gone",
                "doc_name": "GONE_2019_10K",
                "question": "What was Gone Corp's dividend payout ratio in 2019?",
                "answer": "41%",
                "evidence": evidence("GONE_2019_10K", 3),
            },
        ],
    )
    return root


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return labelled_set(tmp_path_factory.mktemp("shared"))


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One data dir for the module, so the eval indexes are built once and reused."""
    data = tmp_path_factory.mktemp("eval-data")
    (data / "settings.json").write_text(json.dumps({"embedding_backend": "torch"}))
    return data


def run(data_dir: Path, shared: Path, fake: FakeOllama, *extra: str) -> dict:
    proc = footnotes(
        "--data-dir",
        str(data_dir),
        "--ollama-host",
        fake.url,
        "eval",
        "answers",
        "--data",
        str(shared),
        "--json",
        *extra,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_gold_answers_are_matched_as_squad_and_financebench_score_them() -> None:
    assert normalize("The  Basalt-lava, [1].") == "basaltlava"  # citation markers go too
    assert contains("It releases basalt lava [1].", "Basalt")
    assert not contains("It releases basaltic lava.", "basalt")  # whole words only
    assert key_number("$1577.00") == "1577" and key_number("In FY2019, 14.60%") == "14.6"
    assert finance_contains("Capital expenditure was $1,577 million [2].", "$1577.00")
    assert not finance_contains("Capital expenditure was $1,578 million.", "$1577.00")


def test_an_echo_model_scores_green_precision_from_its_own_answers(
    data_dir: Path, shared: Path
) -> None:
    with FakeOllama(echo=True) as fake:
        out = run(data_dir, shared, fake, "-k", "3")
    assert out["k"] == 3 and out["model"] == "llama3.2"
    rows = {r["id"]: r for r in out["rows"]}
    # Notes: each note's title, and every SQuAD question as an off-topic one; finance: two.
    assert len(rows) == len(SQUAD_QUESTIONS) + len(NOTES) + len(SQUAD_QUESTIONS) + 2
    # The echo copies the first sentence of [1]: it holds the gold answer, except Lighthouses'.
    assert [rows[q]["correct"] for q in ("a1", "a2", "a3", "a4")] == [True, True, True, False]
    assert rows["a1"]["retrieved"] is True
    assert rows["f1"]["kind"] == "answerable" and rows["f1"]["correct"] is True
    assert rows["f2"]["kind"] == "out_of_corpus"
    notes = [r for r in out["rows"] if r["set"] == "notes" and r["kind"] == "answerable"]
    assert len(notes) == len(NOTES) and all(r["correct"] for r in notes)
    # Each figure is what the rows say: the halves together hold every question once.
    squad = [r for r in out["rows"] if r["set"] == "squad" and r["kind"] == "answerable"]
    total = {"green": 0, "green_correct": 0, "correct_not_green": 0, "n": 0}
    for h in ("dev", "held_out"):
        cell = out["halves"][h].get("squad", {}).get("answerable")
        mine = [r for r in squad if r["half"] == h]
        if not mine:
            assert cell is None
            continue
        green = [r for r in mine if r["level"] == "supported"]
        assert cell["green"] == len(green)
        assert cell["green_precision"] == (
            round(sum(r["correct"] for r in green) / len(green), 4) if green else None
        )
        assert cell["correct_not_green"] == sum(
            r["correct"] and r["level"] != "supported" for r in mine
        )
        for key in total:
            total[key] += cell[key]
    assert total["n"] == 4
    assert total["green"] >= 1, "an answer copied from its passage is green"
    green_wrong = [e for h in ("dev", "held_out") for e in out["examples"]["green_wrong"][h]]
    assert {e["question"] for e in green_wrong} <= {rows["a4"]["question"]}
    # The sentence marks: the echoed sentence is a claim, marked backed.
    s = out["halves"][rows["a1"]["half"]]["squad"]["answerable"]["sentences"]
    assert s["claims"] >= 1 and s["backed"] >= 1


def test_an_invented_answer_is_never_green_on_a_negative(data_dir: Path, shared: Path) -> None:
    with FakeOllama(reply=INVENTED) as fake:
        out = run(data_dir, shared, fake)
    assert out["k"] == 8  # the settings' top_k
    negatives = [r for r in out["rows"] if r["kind"] != "answerable"]
    assert negatives and not any(r["level"] == "supported" for r in negatives)
    assert not any(r["correct"] for r in out["rows"])
    for h in ("dev", "held_out"):
        cell = out["halves"][h]["all"]["negatives"]
        assert cell["negatives_green"] in (0.0, None) and cell["negatives_green_count"] == 0
        assert cell["sentences"]["negatives_backed"] in (0.0, None)


def test_the_table_names_the_model_and_each_half(data_dir: Path, shared: Path) -> None:
    with FakeOllama(echo=True) as fake:
        proc = footnotes(
            "--data-dir",
            str(data_dir),
            "--ollama-host",
            fake.url,
            "eval",
            "answers",
            "--data",
            str(shared),
            "--sets",
            "squad",
            "--limit",
            "1",
        )
    assert proc.returncode == 0, proc.stderr
    assert "Model llama3.2 " in proc.stdout and "k=8" in proc.stdout
    assert "Dev half" in proc.stdout and "Held-out half" in proc.stdout
    assert "green prec." in proc.stdout
    lines = [line for line in proc.stdout.splitlines() if line.strip().startswith("squad")]
    assert lines and {line.split()[1] for line in lines} <= {
        "answerable",
        "unanswerable_in_corpus",
        "out_of_corpus",
    }


def test_json_goes_to_a_file_when_one_is_named(
    data_dir: Path, shared: Path, tmp_path: Path
) -> None:
    target = tmp_path / "answers.json"
    with FakeOllama(echo=True) as fake:
        proc = footnotes(
            "--data-dir",
            str(data_dir),
            "--ollama-host",
            fake.url,
            "eval",
            "answers",
            "--data",
            str(shared),
            "--sets",
            "squad",
            "--limit",
            "1",
            "--json",
            str(target),
        )
    assert proc.returncode == 0, proc.stderr
    assert "Held-out half" in proc.stdout  # the table still prints
    assert len(json.loads(target.read_text())["rows"]) == 3  # one question of each kind


def test_ollama_not_running_is_one_sentence_and_exit_1(data_dir: Path, shared: Path) -> None:
    fake = FakeOllama().start()
    url = fake.url
    fake.stop()  # nothing listens there now
    proc = footnotes(
        "--data-dir",
        str(data_dir),
        "--ollama-host",
        url,
        "eval",
        "answers",
        "--data",
        str(shared),
        "--sets",
        "squad",
        "--limit",
        "1",
    )
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Ollama" in lines[0], proc.stderr


def test_a_missing_model_is_one_sentence_and_exit_1(data_dir: Path, shared: Path) -> None:
    with FakeOllama() as fake:
        proc = footnotes(
            "--data-dir",
            str(data_dir),
            "--ollama-host",
            fake.url,
            "eval",
            "answers",
            "--data",
            str(shared),
            "--sets",
            "squad",
            "--limit",
            "1",
            "--model",
            "nosuch:1b",
        )
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "nosuch" in lines[0], proc.stderr


def test_missing_data_says_where_it_looked(data_dir: Path, tmp_path: Path) -> None:
    proc = footnotes(
        "--data-dir", str(data_dir), "eval", "answers", "--data", str(tmp_path / "nowhere")
    )
    assert proc.returncode == 1
    assert str(tmp_path / "nowhere") in proc.stderr


def test_an_unknown_set_is_refused(data_dir: Path, shared: Path) -> None:
    proc = footnotes(
        "--data-dir", str(data_dir), "eval", "answers", "--data", str(shared), "--sets", "sq"
    )
    assert proc.returncode == 1 and "squad,notes,finance" in proc.stderr


def test_given_answers_are_replayed_and_each_check_switched_off_in_turn(
    data_dir: Path, shared: Path, tmp_path: Path
) -> None:
    """``--replay`` judges given answers through the real search and verdict with no model;
    ``--ablate`` then says what each check of the verdict decides among them."""
    given = tmp_path / "given.jsonl"
    cited = "[[file:Lighthouses#0.txt]]"
    _jsonl(
        given,
        [
            {
                "id": "a4",
                "answer": "## Summary\n\n"
                f"The Pharos of Alexandria was built by Sostratus of Cnidus {cited}.",
                "label": "faithful",
            },
            {"id": "a4", "answer": "The sources do not say who built it.", "label": "declines"},
        ],
    )
    proc = footnotes(
        "--data-dir",
        str(data_dir),
        "eval",
        "answers",
        "--data",
        str(shared),
        "--replay",
        str(given),
        "--ablate",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [(r["label"], r["level"]) for r in out["rows"]] == [
        ("faithful", "supported"),
        ("declines", "no_answer"),
    ]
    ablation = out["ablation"]
    assert sum(ablation["all"].values()) == 2  # both right with every check on
    from app.core.verdict.checks import CHECKS

    assert set(ablation["checks"]) == {c.name for c in CHECKS}
    # without the check that reads a heading as no claim, "Summary" is a claim no passage
    # backs, and the faithful answer is no longer green: one answer fewer right
    assert sum(ablation["checks"]["layout"].values()) == 1
    assert sum(ablation["checks"]["planted"].values()) == 2  # nothing planted here
