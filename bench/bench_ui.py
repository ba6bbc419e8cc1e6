"""Desktop app responsiveness: time to first window, and event-loop stalls while it works.

    python bench/bench_ui.py                       # Xvfb if installed, else offscreen
    python bench/bench_ui.py --max-index-s 300     # stop measuring indexing after 5 min

A QTimer heartbeat fires every 10 ms on the GUI thread; how late each tick arrives is how
long the event loop was blocked (a typed key waits as long). Stalls are reported per phase:
loading the embedding model, indexing ../shared/data/corpus (with a keystroke sent to the
question box every 100 ms), and streaming a long answer from the stand-in Ollama server.
Targets (issue 5): first window within 2 s, no stall over 50 ms.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, peak_rss_mb, print_table, require_data

TICK_MS = 10
LONG_ANSWER = " ".join(
    f"Point {i}: the passage says that **item {i}** matters for the question [{1 + i % 3}]."
    + ("\n\n" if i % 4 == 3 else "")
    for i in range(120)
)


def child_first_window() -> int:
    """In a fresh process: the app's own start-up path, timed to the window's first paint."""
    t0 = float(os.environ["FOOTNOTES_BENCH_T0"])
    from PySide6.QtCore import QEvent, QObject, QTimer

    from app.ui.main import build

    class FirstPaint(QObject):
        def eventFilter(self, obj: Any, event: Any) -> bool:
            if event.type() == QEvent.Type.Paint and not hasattr(self, "at"):
                self.at = time.time() - t0
                QTimer.singleShot(0, gui.quit)
            return False

    gui = build(Path(os.environ["FOOTNOTES_BENCH_DATA"]))
    spy = FirstPaint()
    gui.window.installEventFilter(spy)
    gui.window.show()
    QTimer.singleShot(0, gui.service.start)
    gui.app.exec()
    gui.service.wait_stopped(60)
    print(f"FIRST_WINDOW {spy.at:.4f}")
    return 0


def first_window_seconds(data: Path, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        env = dict(os.environ, FOOTNOTES_BENCH_T0=repr(time.time()), FOOTNOTES_BENCH_DATA=str(data))
        done = subprocess.run(
            [sys.executable, __file__, "--child-first-window"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        line = next((x for x in done.stdout.splitlines() if x.startswith("FIRST_WINDOW")), None)
        if line is None:
            raise RuntimeError(f"child failed: {done.stderr[-2000:]}")
        out.append(float(line.split()[1]))
    return out


class Heartbeat:
    """Measures how late a 10 ms timer fires, per named phase."""

    def __init__(self, explain: bool = False) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.explain = explain
        self.why: dict[str, list[tuple[float, list[str]]]] = {}
        self.phase = "idle"
        self.late: dict[str, list[float]] = {}
        self._last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()

    def tick(self) -> None:
        now = time.perf_counter()
        late = (now - self._last) * 1000 - TICK_MS
        self.late.setdefault(self.phase, []).append(late)
        self._last = now
        if late > 50 and self.explain:
            self.why.setdefault(self.phase, []).append((late, _other_threads()))

    def enter(self, phase: str) -> None:
        self.phase = phase
        self._last = time.perf_counter()

    def rows(self) -> list[list[object]]:
        rows: list[list[object]] = []
        for phase, values in self.late.items():
            if phase == "idle" or not values:
                continue
            ordered = sorted(values)
            p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
            over = sum(v > 50 for v in values)
            rows.append([phase, len(values), statistics.median(values), p99, max(values), over])
        return rows


def _other_threads() -> list[str]:
    """Where every other thread is right now: after a stall, the one that held the GIL."""
    import threading
    import traceback

    names = {t.ident: t.name for t in threading.enumerate()}
    out = []
    for ident, frame in sys._current_frames().items():
        if ident == threading.main_thread().ident:
            continue
        stack = traceback.extract_stack(frame)[-3:]
        where = " < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(stack))
        out.append(f"{names.get(ident, ident)}: {where}")
    return out


def print_stalls(beat: Heartbeat) -> None:
    for phase, stalls in beat.why.items():
        print(f"\nstalls over 50 ms while {phase}: where the other threads were")
        for late, threads in sorted(stalls, reverse=True)[:6]:
            print(f"  {late:6.0f} ms")
            for t in threads:
                if "wait" not in t and "select" not in t and "_worker" not in t.split("<")[0]:
                    print(f"           {t}")


def start_fake_ollama() -> tuple[subprocess.Popen[bytes], str]:
    """The stand-in Ollama server in a child process, streaming LONG_ANSWER."""
    import socket
    import urllib.request

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fake_ollama",
            "--port",
            str(port),
            "--reply",
            LONG_ANSWER,
            "--token-delay",
            "0.004",
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(url + "/api/version", timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    return proc, url


def run_in_app(data: Path, corpus: Path, max_index_s: float, explain: bool) -> None:
    from PySide6.QtCore import QEventLoop, Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from app.core.config import Settings
    from app.ui.main import build

    fake, url = start_fake_ollama()  # its own process, as Ollama would be
    app = QApplication([sys.argv[0]])
    beat = Heartbeat(explain)

    def until(predicate: Any, timeout: float, every: Any = None) -> bool:
        """Run the event loop (idle, not spinning) until ``predicate`` holds."""
        loop = QEventLoop()
        end = time.monotonic() + timeout

        def check() -> None:
            if every is not None:
                every()
            if predicate() or time.monotonic() > end:
                loop.quit()

        timer = QTimer()
        timer.timeout.connect(check)
        timer.start(100 if every is not None else 20)
        if not predicate():
            loop.exec()
        timer.stop()
        return bool(predicate())

    gui = build(data, settings=Settings(ollama_host=url), app=app)
    gui.quit_app_when_stopped = False
    w = gui.window
    w.show()
    beat.enter("loading the embedding model")
    gui.service.start()
    until(lambda: gui.service.state.model_loaded, 600)
    until(lambda: not gui.service.state.syncing, 60)

    beat.enter("indexing the corpus (typing meanwhile)")
    started = time.monotonic()
    gui.service.add_folder(str(corpus))
    until(lambda: gui.service.state.syncing, 60)

    def type_a_key() -> None:
        w.question.setFocus()
        QTest.keyClick(w.question, Qt.Key.Key_A)

    until(lambda: not gui.service.state.syncing, max_index_s, every=type_a_key)
    index_s = time.monotonic() - started
    snapshot = w.folders.snapshot
    finished = not gui.service.state.syncing

    def stream(phase: str) -> int:
        beat.enter(phase)
        w.question.setText("What matters for the question?")
        w.ask_current()
        until(lambda: w.outcome is not None and w.outcome.done, 300)
        beat.enter("idle")
        return len(w.outcome.text.split()) if w.outcome else 0

    if not finished:
        stream("streaming a long answer, indexing going on")
        gui.service.set_paused(True)
        until(lambda: gui.service.state.watching == "" and not gui.service.state.syncing, 900)
    pieces = stream("streaming a long answer")
    beat.enter("idle")

    print(
        f"indexing: {index_s:.1f} s{'' if finished else ' (stopped measuring; still going)'}"
        f", {snapshot.files:,} files, {snapshot.passages:,} passages in the index"
    )
    print(f"answer: {pieces} words streamed\n")
    print_table(
        ["phase", "ticks", "median late ms", "p99 ms", "max stall ms", "ticks > 50 ms"], beat.rows()
    )
    print(f"\npeak RSS of the app process: {peak_rss_mb():.0f} MiB")
    if explain:
        print_stalls(beat)
    gui.quit()
    until(
        lambda: gui.service._stop_thread is not None and not gui.service._stop_thread.is_alive(),
        300,
    )
    fake.terminate()
    fake.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child-first-window", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=3, help="first-window runs")
    parser.add_argument("--max-index-s", type=float, default=float("inf"))
    parser.add_argument("--offscreen", action="store_true", help="do not start Xvfb")
    parser.add_argument("--why", action="store_true", help="show where threads were at stalls")
    parser.add_argument("--skip-startup", action="store_true", help="no first-window runs")
    args = parser.parse_args()
    if args.child_first_window:
        return child_first_window()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    corpus = args.corpus or require_data("corpus")
    procs: list[Any] = []
    if not args.offscreen and shutil.which("Xvfb"):
        from screenshots import start_display

        procs = start_display()
    else:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    print(f"platform: {os.environ.get('QT_QPA_PLATFORM')}  corpus: {corpus}\n")
    data_root = REPO_ROOT / "bench" / "out" / "bench-ui-data"  # keeps the exported model
    try:
        with tempfile.TemporaryDirectory(prefix="footnotes-bench-ui-") as tmp:
            startup = first_window_seconds(Path(tmp) / "fresh", args.runs)
            print(
                f"time to first window (new user, empty data dir): "
                f"median {statistics.median(startup):.3f} s, max {max(startup):.3f} s "
                f"over {len(startup)} runs\n"
            )
        for part in (
            "chroma",
            "manifest.sqlite3",
            "manifest.sqlite3-wal",
            "manifest.sqlite3-shm",
            "ui.ini",
        ):
            target = data_root / part
            if target.is_dir():
                shutil.rmtree(target)
            else:
                target.unlink(missing_ok=True)
        run_in_app(data_root, corpus, args.max_index_s, args.why)
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
