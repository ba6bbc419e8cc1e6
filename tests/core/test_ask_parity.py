"""Parity by construction: each way a question can end, through the command line, the main
window and quick ask, comes to the same verdict, the same sources and the same stored turn.

The three front ends only render the core Ask operation's events; this table is what a person
would notice if one of them drifted (a green verdict in one window, an Ollama error in another,
a turn stored in one thread and listed under another).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.core.config import Settings
from app.core.threads.store import ThreadStore
from tests.fake_ollama import FakeOllama
from tests.helpers import footnotes
from tests.ui_fixtures import *  # noqa: F403 - the fixtures
from tests.ui_fixtures import wait_ready

COPIED = "Tomatoes need six hours of direct sun and deep watering twice a week [1]."
INVENTED = "Tomatoes were first grown on the moon by Captain Quillfeather in 1802 [1]."
ON_TOPIC = "How much sun do tomatoes need?"
OFF_TOPIC = "Who won the 1998 chess olympiad held in Elista, Kalmykia?"


@dataclasses.dataclass(frozen=True)
class Scenario:
    name: str
    question: str
    reply: str = COPIED
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)
    file_type: str | None = None  # a scope of one file type (the window's scope bar, --type)
    down: bool = False  # Ollama is not running
    models: tuple[str, ...] = ("llama3.2:latest",)
    level: str = "supported"
    asked: bool = True  # the model is sent the question
    stored: bool = True  # the turn is kept in a thread


SCENARIOS = [
    Scenario("normal answer", ON_TOPIC),
    Scenario("partly supported", ON_TOPIC, f"{COPIED} {INVENTED}", level="partly_supported"),
    Scenario("weak evidence", OFF_TOPIC, "Anatoly Karpov won it [1].", level="unsupported"),
    Scenario(
        "empty scope", ON_TOPIC, file_type="epub", level="unsupported", asked=False, stored=False
    ),
    Scenario(
        "refuse setting",
        OFF_TOPIC,
        settings={"unsupported_mode": "refuse"},
        level="unsupported",
        asked=False,
        stored=False,
    ),
    # nothing reaches a server that is not there: "asked" counts what the server received
    Scenario("ollama down", ON_TOPIC, down=True, level="no_answer", asked=False, stored=False),
    Scenario(
        "model missing, fallback",
        ON_TOPIC,
        settings={"ollama_model": "missing-model:1b"},
        models=("qwen2.5:3b",),
    ),
]


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@dataclasses.dataclass(frozen=True)
class Seen:
    """What a person sees of one question's end, in any front end."""

    level: str | None
    sources: tuple[str, ...]  # the passages' files, in order
    asked: bool
    stored: bool
    turn: int
    model: str | None


def _cli(data: Path, sc: Scenario, host: str, fake: FakeOllama, *extra: str) -> tuple[Seen, dict]:
    settings = {"embedding_backend": "auto", **sc.settings}
    (data / "settings.json").write_text(json.dumps(settings))
    before = len(fake.answers())
    args = ["ask", sc.question, "--json", *extra]
    if sc.file_type:
        args += ["--type", sc.file_type]
    proc = footnotes("--data-dir", str(data), "--ollama-host", host, *args)
    assert proc.returncode == (1 if sc.down else 0), (sc.name, proc.stderr)
    out = json.loads(proc.stdout)
    seen = Seen(
        out["verdict"]["level"],
        tuple(Path(s["path"]).name for s in out["sources"]),
        len(fake.answers()) > before,
        out["thread"] is not None,
        out["turn"],
        out["model"] if out["answer"] else None,
    )
    return seen, out


def _window_seen(outcome: Any, fake: FakeOllama, before: int) -> Seen:
    sources = outcome.answer.sources if outcome.answer is not None else []
    hits = [s.hit for s in sources] or (outcome.result.hits if outcome.result else [])
    return Seen(
        outcome.verdict.level if outcome.verdict is not None else None,
        tuple(Path(h.path).name for h in sorted(hits, key=lambda h: h.rank)),
        len(fake.answers()) > before,
        outcome.thread_id is not None,
        outcome.turn,
        outcome.answer.model if outcome.answer is not None and outcome.answer.text else None,
    )


def _ask_in(qtbot: Any, window: Any, question: str) -> Any:
    window.question.setFocus()
    window.question.setText(question)
    with qtbot.waitSignal(window.session.finished, timeout=60_000) as blocker:
        qtbot.keyClick(window.question, Qt.Key.Key_Return)
    return blocker.args[0]


def _configure(gui: Any, sc: Scenario, host: str) -> None:
    gui.service.settings = Settings(**{"ollama_host": host, **sc.settings})
    for w in (gui.window, gui.quick):
        w.scope_bar.set_types([sc.file_type] if sc.file_type else [])


def test_every_ending_is_the_same_in_the_cli_the_window_and_quick_ask(
    make_gui: Any, qtbot: Any, fake_ollama: FakeOllama, tmp_path: Path, models_dir: Path
) -> None:
    gui = make_gui("window")
    wait_ready(qtbot, gui)
    gui.show_quick_ask()
    cli_data = tmp_path / "cli"
    shutil.copytree(gui.service.data.root, cli_data, ignore=shutil.ignore_patterns("models"))
    (cli_data / "models").symlink_to(models_dir, target_is_directory=True)
    down = _closed_port()
    for sc in SCENARIOS:
        fake_ollama.reply, fake_ollama.models = sc.reply, list(sc.models)
        host = down if sc.down else fake_ollama.url
        cli, _ = _cli(cli_data, sc, host, fake_ollama)
        _configure(gui, sc, host)
        before = len(fake_ollama.answers())
        window = _window_seen(_ask_in(qtbot, gui.window, sc.question), fake_ollama, before)
        gui.window.thread_id = None  # each scenario is a first turn
        before = len(fake_ollama.answers())
        quick = _window_seen(_ask_in(qtbot, gui.quick, sc.question), fake_ollama, before)
        gui.quick.thread_id = None  # quick ask keeps its own thread, as the window does
        expected = (sc.level, sc.asked, sc.stored)
        assert (cli.level, cli.asked, cli.stored) == expected, sc.name
        assert window == cli, sc.name
        assert quick == cli, sc.name
        if sc.asked and not sc.down:
            assert cli.model == sc.models[0].removesuffix(":latest") or cli.model == sc.models[0]


def test_an_empty_index_asks_no_model_and_says_so_everywhere(
    make_gui: Any, qtbot: Any, fake_ollama: FakeOllama, tmp_path: Path, models_dir: Path
) -> None:
    """Nothing indexed: no front end sends the question to the model; each says the index is
    empty and how to add a folder, with the same neutral verdict."""
    gui = make_gui("empty", fresh=True)
    qtbot.waitUntil(lambda: gui.service.state.engine_ready, timeout=240_000)
    cli_data = tmp_path / "cli-empty"
    cli_data.mkdir()
    (cli_data / "models").symlink_to(models_dir, target_is_directory=True)
    sc = Scenario("empty index", ON_TOPIC, level="no_answer", asked=False, stored=False)
    cli, out = _cli(cli_data, sc, fake_ollama.url, fake_ollama)
    assert out["ending"] == "empty_index" and "indexed" in out["verdict"]["reason"]
    window = _ask_in(qtbot, gui.window, ON_TOPIC)
    quick = _ask_in(qtbot, gui.show_quick_ask(), ON_TOPIC)
    assert fake_ollama.answers() == []  # the model was never asked
    for outcome in (window, quick):
        assert _window_seen(outcome, fake_ollama, 0) == cli
    assert "add a folder" in gui.window.answer.toPlainText().lower()
    plain = footnotes(
        "--data-dir", str(cli_data), "--ollama-host", fake_ollama.url, "ask", ON_TOPIC
    )
    assert "footnotes folders add" in plain.stdout


def test_a_follow_up_is_the_next_turn_of_the_same_thread_in_both(
    make_gui: Any, qtbot: Any, fake_ollama: FakeOllama, tmp_path: Path, models_dir: Path
) -> None:
    gui = make_gui("threads")
    wait_ready(qtbot, gui)
    cli_data = tmp_path / "cli-threads"
    shutil.copytree(gui.service.data.root, cli_data, ignore=shutil.ignore_patterns("models"))
    (cli_data / "models").symlink_to(models_dir, target_is_directory=True)
    first = Scenario("first", ON_TOPIC)
    _, out = _cli(cli_data, first, fake_ollama.url, fake_ollama)
    follow = Scenario("follow-up", "And how often should they be watered?")
    cli, out2 = _cli(cli_data, follow, fake_ollama.url, fake_ollama, "--thread", out["thread"])
    assert (out2["thread"], out2["turn"]) == (out["thread"], 2)

    one = _ask_in(qtbot, gui.window, ON_TOPIC)
    two = _ask_in(qtbot, gui.window, follow.question)
    assert two.thread_id == one.thread_id and two.turn == 2 == cli.turn
    assert gui.window.threads.panel.current_id == one.thread_id  # listed where it is stored
    store = ThreadStore(gui.service.data.threads_path)
    try:
        assert [t.question for t in store.turns(one.thread_id)] == [ON_TOPIC, follow.question]
    finally:
        store.close()


def test_quick_ask_opened_in_the_window_goes_on_in_its_thread(
    make_gui: Any, qtbot: Any, fake_ollama: FakeOllama
) -> None:
    """The next question after a quick-ask source is opened in the main window is stored in
    the quick-ask thread, and History shows that thread as the open one."""
    gui = make_gui("handover")
    wait_ready(qtbot, gui)
    quick = gui.show_quick_ask()
    asked = _ask_in(qtbot, quick, ON_TOPIC)
    quick.source_activated.emit(asked, 1)
    assert gui.window.thread_id == asked.thread_id
    assert gui.window.threads.panel.current_id == asked.thread_id
    nxt = _ask_in(qtbot, gui.window, "And how often should they be watered?")
    assert (nxt.thread_id, nxt.turn) == (asked.thread_id, 2)


@pytest.mark.parametrize("where", ["window", "quick"])
def test_a_cancelled_question_is_never_stored_or_green(
    make_gui: Any, qtbot: Any, fake_ollama: FakeOllama, where: str
) -> None:
    gui = make_gui(f"cancel-{where}")
    wait_ready(qtbot, gui)
    w = gui.window if where == "window" else gui.show_quick_ask()
    fake_ollama.stall_after = 2
    w.question.setFocus()
    w.question.setText(ON_TOPIC)
    with qtbot.waitSignal(w.session.finished, timeout=30_000) as blocker:
        qtbot.keyClick(w.question, Qt.Key.Key_Return)
        qtbot.waitUntil(fake_ollama.stalled.is_set, timeout=30_000)
        w.session.cancel()
    outcome = blocker.args[0]
    assert outcome.cancelled and outcome.thread_id is None
    assert outcome.verdict is None or outcome.verdict.level != "supported"
