"""What a person waits for around indexing, today's code beside this checkout, in one run.

    python bench/bench_latency.py                                # stand-in model only
    python bench/bench_latency.py --ollama-host http://127.0.0.1:11435 --model smollm2:135m-q8_0
    python bench/bench_latency.py --baseline 6cb8974 --runs 5 --questions 20

Figures (each "today" beside "now", with the ratio now/today, measured in this run):

- first command in a new data folder (``footnotes search`` on an empty index): today (the
  ``--baseline`` tree) the int8 export of the embedding model is made on first use; now the
  setup command made it, and a search of an empty index loads no model at all;
- process start -> first search result, ``footnotes search`` as a whole process on a warm
  index (``--baseline`` REV checked out in a git worktree is "today");
- window start -> ready to answer (engine open and model loaded), offscreen, both trees;
- prompt tokens per question (median, p95) on SQuAD 2.0 paragraphs, the notes corpus and
  (with ``--filings-index``) FinanceBench's questions over the filings: today's fixed eight
  passages whole against the passages chosen by evidence (``choose_passages``) and kept to the
  sources' budget (``build_messages``: excerpts, then the lowest ranked left out), with what
  that costs: the questions whose gold answer (SQuAD's answers, FinanceBench's figures) is in
  the text the model reads, and whose FinanceBench evidence page is among the passages sent;
- question -> first answer token against the project's stand-in server, and against a real
  model when ``--ollama-host`` names one (``../shared/tools/real_ollama.py``), with the share
  of answers holding a gold SQuAD answer for both prompts;
- with ``--real-tokens`` and a real model: prompt tokens as its tokenizer counts them
  (``prompt_eval_count``), for the real-model SQuAD questions and the filings;
- prompt tokens a follow-up can reuse from the previous turn's cache: the longest common
  token prefix of (turn 1's prompt + its answer) and turn 2's prompt, over the rendered chat,
  with the earlier turn as chat messages before this turn's sources (today) and after them
  (now); with a real model, the seconds to a follow-up's first token while the server holds
  turn 1.

SQuAD and FinanceBench questions come from their held-out halves (as ``footnotes eval``
splits them): the passage choice and the sources' budget were tuned on the other halves.
The warm indexes are built once under ``--work`` (default: a folder in the system temp dir).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, print_table, read_jsonl, require_data

BASELINE = "6cb8974"  # main before the latency work (issue 29)
QUESTION = "how do I undo the last git commit"


def footnotes_cmd(tree: Path) -> list[str]:
    """Run ``footnotes`` from the code in ``tree`` (this venv's packages either way): the
    tree is the working directory and comes first on ``sys.path``."""
    code = (
        f"import sys; sys.path.insert(0, {str(tree)!r}); from app.cli import main; sys.exit(main())"
    )
    return [sys.executable, "-c", code]


def run_timed(cmd: list[str], tree: Path, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        cmd,
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree), **(env or {})},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[-4:])} failed in {tree}: {done.stderr[-1500:]}")
    return took


def worktree(rev: str, work: Path) -> Path | None:
    """``rev`` checked out beside the work folder (made once), or None if git cannot."""
    path = work / f"tree-{rev}"
    if (path / "app").is_dir():
        return path
    done = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "worktree", "add", "--detach", str(path), rev],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"SKIP baseline: git worktree add {rev} failed: {done.stderr.strip()}")
        return None
    return path


def warm_index(work: Path, name: str, docs: Path) -> Path:
    """A data folder with ``docs`` indexed (once); its vectors.npz is written by a search."""
    data = work / name
    if not (data / "manifest.sqlite3").exists():
        print(f"indexing {docs} into {data} (once)…", flush=True)
        run_timed(
            [*footnotes_cmd(REPO_ROOT), "--data-dir", str(data), "index", str(docs)], REPO_ROOT
        )
    return data


# -- cold start and search ---------------------------------------------------------------
def cold_first_command(work: Path, old: Path | None, runs: int) -> list[list[object]]:
    """A new data folder's first search: ``--baseline``'s tree, which made the int8 export on
    first use (or, without a baseline tree, this one with the install's export hidden), beside
    this tree with the export the setup command made."""
    today: list[float] = []
    now: list[float] = []
    hidden = {"FOOTNOTES_INSTALLED_MODELS": ""}  # no export made by the install
    trees = [(old or REPO_ROOT, hidden, today), (REPO_ROOT, {}, now)]
    for i in range(runs):
        for tree, env, out in trees:
            data = work / f"cold-{len(out)}-{i}-{'today' if out is today else 'now'}"
            shutil.rmtree(data, ignore_errors=True)
            cmd = [*footnotes_cmd(tree), "--data-dir", str(data), "search", QUESTION]
            out.append(run_timed(cmd, tree, env))
            shutil.rmtree(data, ignore_errors=True)
    return [row("first command, new data folder (s)", today, now)]


def warm_search(data: Path, old: Path | None, runs: int) -> list[list[object]]:
    """``footnotes search`` as a whole process on a warm index, both trees, alternating."""
    today: list[float] = []
    now: list[float] = []
    cmd = ["--data-dir", str(data), "search", QUESTION, "-k", "8"]
    run_timed([*footnotes_cmd(REPO_ROOT), *cmd], REPO_ROOT)  # writes vectors.npz, warms disk
    for _ in range(runs):
        if old is not None:
            today.append(run_timed([*footnotes_cmd(old), *cmd], old))
        now.append(run_timed([*footnotes_cmd(REPO_ROOT), *cmd], REPO_ROOT))
    return [row("search process, warm index (s)", today, now)]


def child_ready() -> int:
    """In a fresh process (either tree): window built and shown, until it can answer."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, os.environ["FOOTNOTES_BENCH_TREE"])  # that tree's app, not this one
    t0 = float(os.environ["FOOTNOTES_BENCH_T0"])
    from PySide6.QtCore import QTimer

    import app
    from app.ui.main import build

    print(f"TREE {Path(app.__file__).parent}", flush=True)
    gui = build(Path(os.environ["FOOTNOTES_BENCH_DATA"]))
    gui.window.show()
    gui.service.start()
    shown = time.time() - t0

    def poll() -> None:
        s = gui.service.state
        if s.engine_ready and s.model_loaded:
            print(f"READY {shown:.4f} {time.time() - t0:.4f}", flush=True)
            gui.quit()
        else:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(0, poll)
    gui.app.exec()
    gui.service.wait_stopped(60)
    return 0


def window_ready(data: Path, old: Path | None, runs: int) -> list[list[object]]:
    today: list[float] = []
    now: list[float] = []
    for _ in range(runs):
        for tree, out in ((old, today), (REPO_ROOT, now)):
            if tree is None:
                continue
            env = {
                **os.environ,
                "FOOTNOTES_BENCH_TREE": str(tree),
                "FOOTNOTES_BENCH_T0": repr(time.time()),
                "FOOTNOTES_BENCH_DATA": str(data),
            }
            done = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--child-ready"],
                cwd=tree,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            line = next((x for x in done.stdout.splitlines() if x.startswith("READY")), None)
            if line is None:
                raise RuntimeError(f"window child failed: {done.stderr[-1500:]}")
            out.append(float(line.split()[2]))
    return [row("window start -> ready to answer (s)", today, now)]


# -- prompts -----------------------------------------------------------------------------
def held_out(rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """The rows of the half nothing was tuned on (as ``footnotes eval`` splits them): the
    passage choice and the sources' budget were tuned on the other."""
    from app.evaluation.claims import TUNE_HALF
    from app.evaluation.support_data import half

    return [r for r in rows if half(str(r[key])) != TUNE_HALF]


def squad_questions(limit: int) -> list[dict[str, Any]]:
    rows = [q for q in read_jsonl(require_data("squad2", "questions.jsonl"))]
    answerable = held_out([q for q in rows if q["kind"] == "answerable"], "id")
    step = max(1, len(answerable) // limit)
    return answerable[::step][:limit]


def notes_questions(notes: Path, limit: int) -> list[str]:
    """A known-item question per note: its title, as a person types what they remember."""
    out = []
    for path in sorted(notes.rglob("*.md"))[:: max(1, 1800 // limit)]:
        first = path.read_text(encoding="utf-8", errors="replace").splitlines()[:1]
        if first and first[0].startswith("# "):
            out.append(first[0][2:].strip())
        if len(out) >= limit:
            break
    return out


def prompts(engine: Any, question: str) -> dict[str, tuple[list[dict[str, str]], list[Any]]]:
    """The messages and sources of a question: the eight passages whole (today), and those
    chosen by evidence with long ones excerpted (now)."""
    from app.core.prompt.answering import build_messages, estimate_tokens
    from app.core.prompt.passages import choose_passages

    hits = engine.search(question, 8).hits
    return {
        "today": build_messages(question, hits, compact=False),
        "now": build_messages(question, choose_passages(hits, estimate_tokens)),
    }


def prompt_tokens(engine: Any, questions: list[str]) -> tuple[list[int], list[int]]:
    """Prompt tokens per question: the eight passages (today) and those chosen (now)."""
    from app.core.prompt.answering import estimate_tokens

    out: dict[str, list[int]] = {"today": [], "now": []}
    for q in questions:
        for label, (messages, _) in prompts(engine, q).items():
            out[label].append(sum(estimate_tokens(m["content"]) + 4 for m in messages))
    return out["today"], out["now"]


def real_tokens(
    engine: Any, questions: list[str], host: str, model: str, label: str
) -> list[list[object]]:
    """Prompt tokens as the real model's tokenizer counts them (the server's
    ``prompt_eval_count``), median of today's and now's prompts: the estimate reads four
    characters a token, a tokenizer that reads digits one at a time counts a table higher.
    An unrelated chat goes first each time, so no prefix of the prompt comes from the cache."""
    import ollama

    from app.core.prompt.answering import DEFAULT_CONTEXT_TOKENS

    client = ollama.Client(host=host, timeout=300)
    options = {"num_predict": 1, "num_ctx": DEFAULT_CONTEXT_TOKENS}
    counts: dict[str, list[float]] = {"today": [], "now": []}
    for q in questions:
        for when, (messages, _) in prompts(engine, q).items():
            flush(host, model)
            reply = client.chat(model=model, messages=messages, options=options)
            counts[when].append(float(reply.prompt_eval_count or 0))
    return [row(label, counts["today"], counts["now"])]


def answer_sent(
    engine: Any, asked: list[tuple[str, list[str]]], label: str, norm: Callable[[str], str]
) -> list[list[object]]:
    """Questions whose gold answer is in the text the model reads: what the passage choice
    and the excerpts cost. ``norm`` makes an answer and a text comparable."""
    held = {"today": 0, "now": 0}
    for question, golds in asked:
        for when, (_, sources) in prompts(engine, question).items():
            text = norm(" ".join(s.prompt_text for s in sources))
            held[when] += any(g and norm(g) in text for g in golds)
    n = max(1, len(asked))
    today, now = held["today"] / n, held["now"] / n
    return [[label, today, now, now / today if today else float("nan")]]


def gold_figures(answer: str) -> list[str]:
    """The figures of a FinanceBench answer, years left out (a question names them)."""
    found = figures(answer).split("|")
    return [f"|{f}|" for f in found if f and not re.fullmatch(r"(19|20)\d\d", f)]


def figures(text: str) -> str:
    """The numbers of a text, thousands separators and trailing zeros of decimals dropped,
    each between bars: "$1,577.00" and "1,577" read the same."""
    numbers = (n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text))
    return "".join("|" + (n.rstrip("0").rstrip(".") if "." in n else n) + "|" for n in numbers)


def evidence_sent(engine: Any, asked: list[dict[str, Any]]) -> list[list[object]]:
    """FinanceBench questions whose evidence page is among the sources sent: the eight whole
    (today) and the sources of the prompt as built now (chosen by evidence, kept to the
    sources' budget: a source left out is not sent)."""
    sent = {"today": 0, "now": 0}
    for q in asked:
        pages = {(e["doc_name"], e["evidence_page_num"] + 1) for e in q.get("evidence", [])}
        for label, (_, sources) in prompts(engine, q["question"]).items():
            sent[label] += any((Path(s.hit.path).stem, s.hit.page) in pages for s in sources)
    n = max(1, len(asked))
    today, now = sent["today"] / n, sent["now"] / n
    label = "filings: evidence page among the sources sent (share)"
    return [[label, today, now, now / today if today else float("nan")]]


def finance_questions(name: str) -> list[dict[str, Any]]:
    """FinanceBench's questions of one half ("dev", tuned on; "held_out", reported) whose
    filing is in the corpus (as ``footnotes eval retrieval`` counts them: a question about a
    filing that is not there cannot have its page sent)."""
    import json

    manifest = json.loads(require_data("financebench", "manifest.json").read_text())
    present = {q["financebench_id"] for q in manifest["questions"] if q.get("pdf_included")}
    found = [
        q
        for q in read_jsonl(require_data("financebench", "questions.jsonl"))
        if q["financebench_id"] in present
    ]
    held = held_out(found, "financebench_id")
    if name == "held_out":
        return held
    ids = {q["financebench_id"] for q in held}
    return [q for q in found if q["financebench_id"] not in ids]


def filings_rows(engine: Any, asked: list[dict[str, Any]], tag: str) -> list[list[object]]:
    """The filings' prompt figures for some FinanceBench questions, each label ending ``tag``."""
    questions = [q["question"] for q in asked]
    today, now = prompt_tokens(engine, questions)
    rows = [row("prompt tokens, filings (median)", today, now)]  # type: ignore[arg-type]
    rows.append(["prompt tokens, filings (p95)", pct(today, .95), pct(now, .95),
                 pct(now, .95) / pct(today, .95)])  # fmt: skip
    rows += evidence_sent(engine, asked)
    golds = [(q["question"], gold_figures(q["answer"])) for q in asked]
    rows += answer_sent(engine, golds, "filings: gold figure in the text sent", figures)
    return [[f"{r[0]}{tag}", *r[1:]] for r in rows]


def child_filings() -> int:
    """In a fresh process of either tree: the filings rows of both halves, as JSON lines."""
    import json

    sys.path.insert(0, os.environ["FOOTNOTES_BENCH_TREE"])  # that tree's app, not this one
    from app.core.engine import Engine

    engine = Engine(Path(os.environ["FOOTNOTES_BENCH_DATA"]))
    try:
        limit = int(os.environ.get("FOOTNOTES_BENCH_QUESTIONS", "60"))
        for name in ("held_out", "dev"):
            asked = finance_questions(name)[:limit]
            for r in filings_rows(engine, asked, f" [{name}, n={len(asked)}]"):
                print("ROW " + json.dumps(r), flush=True)
    finally:
        engine.close()
    return 0


def before_after(old: Path, args: argparse.Namespace) -> None:
    """The filings rows of the ``--baseline`` tree over ``--before-index`` (what main's code
    built) beside this tree's over ``--filings-index``, "now" columns side by side."""
    import json

    got: dict[str, dict[str, list[Any]]] = {}
    for label, tree, data in (
        ("before", old, args.before_index),
        ("after", REPO_ROOT, args.filings_index),
    ):
        env = {
            **os.environ,
            "FOOTNOTES_BENCH_TREE": str(tree),
            "FOOTNOTES_BENCH_DATA": str(data),
            "FOOTNOTES_BENCH_QUESTIONS": str(args.questions),
        }
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child-filings"],
            cwd=tree, env=env, capture_output=True, text=True, timeout=3600, check=False,
        )  # fmt: skip
        rows = [json.loads(x[4:]) for x in done.stdout.splitlines() if x.startswith("ROW ")]
        if not rows:
            raise RuntimeError(f"filings child failed in {tree}: {done.stderr[-1500:]}")
        got[label] = {r[0]: r for r in rows}
    table = []
    for name, b in got["before"].items():
        a = got["after"].get(name)
        if a is None:
            continue
        table.append([name, b[1], b[2], a[2], a[2] / b[2] if b[2] else float("nan")])
        table.append([f"  (now/today within each tree) {name}", "", b[3], a[3], ""])
    print(f"\nbefore: {args.baseline} over {args.before_index}; after: this tree over "
          f"{args.filings_index} (the 'now' prompt of each; 'today' is the fixed eight whole "
          "of the baseline tree)")  # fmt: skip
    print_table(["figure", "today (before)", "now (before)", "now (after)", "after/before"], table)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


def row(label: str, today: list[float], now: list[float]) -> list[object]:
    t = statistics.median(today) if today else float("nan")
    n = statistics.median(now) if now else float("nan")
    return [label, t, n, n / t if today and t else float("nan")]


# -- first token and reuse ---------------------------------------------------------------
def first_token(
    engine: Any, questions: list[dict[str, Any]], host: str, model: str
) -> tuple[list[list[object]], dict[str, float]]:
    """Seconds from sending the question to the first piece, and gold answers held."""
    from app.core.prompt.answering import estimate_tokens, stream_answer
    from app.core.prompt.passages import choose_passages

    times: dict[str, list[float]] = {"today": [], "now": []}
    right: dict[str, int] = {"today": 0, "now": 0}
    for i, q in enumerate(questions):
        hits = engine.search(q["question"], 8).hits
        pair = [("today", hits), ("now", choose_passages(hits, estimate_tokens))]
        for label, chosen in pair if i % 2 else pair[::-1]:  # either goes first as often
            flush(host, model)  # no prompt reuses the other's cached prefix
            started = time.perf_counter()
            gen = stream_answer(
                q["question"], chosen, host=host, model=model, timeout_s=300,
                compact=label == "now",
            )  # fmt: skip
            first = None
            text = []
            try:
                while True:
                    piece = next(gen)
                    first = first or time.perf_counter() - started
                    text.append(piece)
            except StopIteration:
                pass
            times[label].append(first if first is not None else float("nan"))
            said = normal("".join(text))
            right[label] += any(normal(a) in said for a in q.get("answers", []))
    n = max(1, len(questions))
    return [row("question -> first token (s)", times["today"], times["now"])], {
        k: v / n for k, v in right.items()
    }


def flush(host: str, model: str) -> None:
    """An unrelated short chat, so the server's cache holds nothing of the next prompt."""
    from app.core.ollama.client import stream_chat
    from app.core.prompt.answering import DEFAULT_CONTEXT_TOKENS

    messages = [{"role": "user", "content": f"Say one word. ({time.time()})"}]
    options = {"num_predict": 1, "num_ctx": DEFAULT_CONTEXT_TOKENS}  # no reload at the next ask
    for _ in stream_chat(messages, host=host, model=model, options=options, timeout_s=120):
        pass


def normal(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation or articles, single spaces."""
    text = re.sub(r"[^\w\s]", " ", text.lower())
    return " ".join(w for w in text.split() if w not in {"a", "an", "the"})


FOLLOW_UPS = [  # a first question over the notes, and a follow-up that leans on it
    ("how do I undo the last git commit", "and what if the commit was already pushed?"),
    ("how do I list running docker containers", "and how do I stop one of them?"),
    ("how do I find a lost commit", "and how do I get it back on a branch?"),
    ("how do I rename a tmux session", "and how do I list them all?"),
    ("how do I check which postgres version is running", "and inside a docker container?"),
    ("how do I amend the author of the previous commit", "and for an older commit?"),
]


def follow_up_turns(engine: Any, pair: tuple[str, str], answer: str) -> dict[str, Any]:
    """Turn 1's messages, and turn 2's now (sources, then the conversation, then the
    question) and as today (the earlier turn as chat messages before this turn's sources,
    the passages sent whole), with the passages the Asker would send; turn 2 searches as the
    rewrite's fallback does."""
    from app.core.prompt.answering import build_messages, estimate_tokens
    from app.core.prompt.passages import choose_passages

    q1, q2 = pair
    h1 = choose_passages(engine.search(q1, 8).hits, estimate_tokens)
    h2 = choose_passages(engine.search(f"{q1} {q2}", 8).hits, estimate_tokens)
    turn1, _ = build_messages(q1, h1)
    turn1_today, _ = build_messages(q1, h1, compact=False)
    now, _ = build_messages(q2, h2, history=[(q1, answer)], search_query=f"{q1} {q2}")
    alone, _ = build_messages(q2, h2, compact=False)
    said = " ".join(re.sub(r"\[\d+\]", "", answer).split())
    today = [
        now[0],
        {"role": "user", "content": f"Question: {q1}"},
        {"role": "assistant", "content": said},
        alone[-1],
    ]
    return {"turn1": {"today": turn1_today, "now": turn1}, "today": today, "now": now}


def follow_up_reuse(engine: Any) -> list[list[object]]:
    """Tokens of turn 2's prompt that a cache holding turn 1 (prompt + answer) can reuse."""
    from app.core.prompt.answering import estimate_tokens

    a1 = "The note says to run the command it shows, and why [1]."
    shares: dict[str, list[float]] = {"today": [], "now": []}
    for pair in FOLLOW_UPS:
        turns = follow_up_turns(engine, pair, a1)
        for label in ("today", "now"):
            cached = render([*turns["turn1"][label], {"role": "assistant", "content": a1}])
            shared = common_prefix(cached, render(turns[label]))
            shares[label].append(shared / estimate_tokens(render(turns[label])))
    return [row("follow-up prompt reused from cache (share)", shares["today"], shares["now"])]


def follow_up_first_token(engine: Any, host: str, model: str) -> list[list[object]]:
    """Seconds to a follow-up's first token on a real server that holds turn 1 in its cache."""
    from app.core.ollama.client import stream_chat
    from app.core.prompt.answering import DEFAULT_CONTEXT_TOKENS

    def ask(messages: list[dict[str, str]]) -> tuple[str, float]:
        started, first, text = time.perf_counter(), None, []
        options = {"num_ctx": DEFAULT_CONTEXT_TOKENS}  # as the app asks
        for piece in stream_chat(messages, host=host, model=model, options=options, timeout_s=300):
            first = first or time.perf_counter() - started
            text.append(piece)
        return "".join(text), first if first is not None else float("nan")

    times: dict[str, list[float]] = {"today": [], "now": []}
    for i, pair in enumerate(FOLLOW_UPS):
        for label in ("today", "now") if i % 2 else ("now", "today"):
            flush(host, model)
            a1, _ = ask(follow_up_turns(engine, pair, "")["turn1"][label])  # now in the cache
            _, first = ask(follow_up_turns(engine, pair, a1)[label])
            times[label].append(first)
    return [row(f"follow-up -> first token, {model} (s)", times["today"], times["now"])]


def render(messages: list[dict[str, str]]) -> str:
    """A ChatML rendering (SmolLM2's template): what the server tokenizes."""
    return "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)


def common_prefix(a: str, b: str) -> int:
    from app.core.prompt.answering import estimate_tokens

    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return estimate_tokens(a[:n])


# -- main ----------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default=BASELINE, help="git revision that is 'today'")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "fn-latency")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--ollama-host", default=None, help="a real model's server")
    parser.add_argument("--model", default="smollm2:135m-q8_0")
    parser.add_argument("--real-questions", type=int, default=12)
    parser.add_argument(
        "--filings-index", type=Path, help="a data dir whose index holds corpus/filings"
    )
    parser.add_argument(
        "--answers-only", action="store_true", help="only the prompt and answer figures"
    )
    parser.add_argument(
        "--before-index",
        type=Path,
        help="with --filings-index: a data dir indexed by the --baseline tree; its filings "
        "figures (baseline code) beside this tree's (over --filings-index), in the same run",
    )
    parser.add_argument(
        "--real-tokens",
        action="store_true",
        help="with --ollama-host: prompt tokens as the real model counts them (minutes more)",
    )
    parser.add_argument("--child-ready", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-filings", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_ready:
        return child_ready()
    if args.child_filings:
        return child_filings()
    args.work.mkdir(parents=True, exist_ok=True)
    import platform

    from app.core.index.int8_export import quantization_arch

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"int8 path {quantization_arch()}; baseline {args.baseline}")  # fmt: skip
    notes = require_data("corpus", "notes")
    squad_docs = args.work / "squad-docs"
    if not squad_docs.exists():
        squad_docs.mkdir()
        for p in read_jsonl(require_data("squad2", "passages.jsonl")):
            (squad_docs / f"{p['_id'].replace('/', '_')}.txt").write_text(
                f"{p['title']}\n\n{p['text']}\n", encoding="utf-8"
            )
    notes_data = warm_index(args.work, "notes-data", notes)
    squad_data = warm_index(args.work, "squad-data", squad_docs)
    old = worktree(args.baseline, args.work)

    rows: list[list[object]] = []
    if not args.answers_only:
        rows += cold_first_command(args.work, old, max(1, args.runs // 2))
        rows += warm_search(notes_data, old, args.runs)
        rows += window_ready(notes_data, old, args.runs)

    from app.core.engine import Engine

    squad = squad_questions(args.questions)
    with_engine = Engine(squad_data)
    try:
        today, now = prompt_tokens(with_engine, [q["question"] for q in squad])
        rows.append(row("prompt tokens, SQuAD paragraphs (median)", today, now))  # type: ignore[arg-type]
        rows.append(["prompt tokens, SQuAD paragraphs (p95)", pct(today, .95), pct(now, .95),
                     pct(now, .95) / pct(today, .95)])  # fmt: skip
        golds = [(q["question"], q["answers"]) for q in squad]
        rows += answer_sent(with_engine, golds, "SQuAD: gold answer in the text sent", normal)
        from tests.fake_ollama import FakeOllama

        with FakeOllama(echo=True, token_delay=0.01) as fake:
            stand, _ = first_token(with_engine, squad[:10], fake.url, "llama3.2")
        stand[0][0] = "question -> first token, stand-in (s)"
        rows += stand
        if args.ollama_host:
            real, held = first_token(
                with_engine, squad[: args.real_questions], args.ollama_host, args.model
            )
            real[0][0] = f"question -> first token, {args.model} (s)"
            rows += real
            if args.real_tokens:
                asked = [q["question"] for q in squad[: args.real_questions]]
                label = f"prompt tokens, SQuAD, {args.model}'s tokenizer (median)"
                rows += real_tokens(with_engine, asked, args.ollama_host, args.model, label)
            ratio = held["now"] / held["today"] if held["today"] else float("nan")
            rows.append(
                ["answers holding a gold answer (share)", held["today"], held["now"], ratio]
            )
    finally:
        with_engine.close()
    notes_engine = Engine(notes_data)
    try:
        today, now = prompt_tokens(notes_engine, notes_questions(notes, args.questions))
        rows.append(row("prompt tokens, notes (median)", today, now))  # type: ignore[arg-type]
        rows.append(["prompt tokens, notes (p95)", pct(today, .95), pct(now, .95),
                     pct(now, .95) / pct(today, .95)])  # fmt: skip
        rows += follow_up_reuse(notes_engine)
        if args.ollama_host:
            rows += follow_up_first_token(notes_engine, args.ollama_host, args.model)
    finally:
        notes_engine.close()
    if args.filings_index:
        filings_engine = Engine(args.filings_index)
        try:
            for name in ("held_out", "dev"):
                asked = finance_questions(name)[: args.questions]
                rows += filings_rows(filings_engine, asked, f" [{name}, n={len(asked)}]")
            if args.ollama_host and args.real_tokens:
                questions = [q["question"] for q in finance_questions("held_out")]
                label = f"prompt tokens, filings, {args.model}'s tokenizer (median)"
                rows += real_tokens(
                    filings_engine, questions[: args.questions], args.ollama_host, args.model, label
                )
        finally:
            filings_engine.close()
    print_table(["figure", "today", "now", "now/today"], rows)
    if args.filings_index and args.before_index and old is not None:
        before_after(old, args)
    if not args.filings_index:
        print("(filings: pass --filings-index DIR, a data dir whose index holds corpus/filings,")
        print(" such as the eval/corpus one `footnotes eval support --set corpus` builds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
