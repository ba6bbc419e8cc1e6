"""What every command shares: JSON output, handled errors, progress bars, opening the engine."""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from app.core.api import MAX_QUERY_CHARS, NO_FAULTS, Faults, Footnotes, Progress, is_disk_full
from app.core.config import host_problem
from app.core.errors import (
    DamagedError,
    DiskFullError,
    EmbeddingError,
    LockedError,
    QueryError,
    StoreError,
)
from app.core.wording import disk_full_message


class HandledError(Exception):
    """An error with a one-line message for stderr (exit status 1)."""


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# What JSON may carry raw but a terminal would obey: C1 controls (0x9B is CSI on some), bidi
# overrides, isolates and marks (they reorder what follows), line and paragraph separators.
_STEERING = re.compile("[\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _visible_table(newlines: bool) -> dict[int, str]:
    """What ``visible`` turns each character that can steer a terminal into."""
    table = {c: chr(0x2400 + c) for c in range(0x20)}  # C0 as its control picture: ESC -> ␛
    table[0x7F] = "\u2421"  # DEL -> ␡
    for c in range(0x80, 0xA0):  # C1 (0x9B is CSI on some terminals), as text
        table[c] = f"\\x{c:02x}"
    for c in range(0xDC80, 0xDCA0):  # the same bytes in a non-UTF-8 file name (surrogateescape)
        table[c] = f"\\x{c - 0xDC00:02x}"
    for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x061C, 0x200E, 0x200F):
        table[c] = f"<U+{c:04X}>"  # bidi overrides, isolates and marks reorder what follows
    table[0x2028] = "<U+2028>"  # line and paragraph separators break lines in some terminals
    table[0x2029] = "<U+2029>"
    if newlines:
        del table[0x0A]
    return table


_VISIBLE = _visible_table(newlines=False)
_VISIBLE_LINES = _visible_table(newlines=True)


def visible(text: object, *, newlines: bool = False) -> str:
    """``text`` safe to print on a terminal: every character that could move the cursor, clear
    the screen, set a title or link (ESC, CR, other C0 and C1 controls, DEL) or reorder the
    line (bidi overrides) is shown as a visible stand-in (ESC as ␛, CR as ␍, a newline as ␊,
    U+202E as <U+202E>). With ``newlines`` a line break stays one (an answer's body); file
    names, passages, reasons and titles never get one, so a file cannot forge a line. JSON
    output does not go through here: it escapes control characters itself."""
    return str(text).translate(_VISIBLE_LINES if newlines else _VISIBLE)


def print_json(obj: Any) -> None:
    """One line of JSON on stdout; non-UTF-8 file names survive as \\u escapes, and so does
    every character that would steer a terminal (``_STEERING``): the text loads back the same."""
    text = json.dumps(obj, ensure_ascii=False)
    # Non-UTF-8 file names arrive as lone surrogates (os.fsdecode); JSON carries them as
    # \u escapes, which json.loads turns back into the same str (os.fsencode -> the bytes).
    text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    # Printed on a terminal they would act; as \u escapes json.loads gives the same text back.
    text = _STEERING.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


@dataclass(frozen=True)
class BatchLine:
    """One line of a ``--batch`` file: its question, or why it is not one."""

    n: int  # its line number
    ident: Any  # its "_id"
    text: str = ""
    error: str | None = None


# A batch line's bytes: room for a query at the cap written as JSON \u escapes, and an "_id".
MAX_BATCH_LINE = 64 * 1024


def read_batch(path: str) -> Iterator[BatchLine]:
    """The ``{"_id", "text"}`` lines of a batch file in order, blank lines skipped; a line that
    is not such an object comes with its error, so that the batch goes on. Each line is judged
    alone: one longer than ``MAX_BATCH_LINE`` bytes (read no further than that, so a 100 MB
    line costs no memory), not UTF-8, nested too deep for the JSON parser, or not an object.
    A file that cannot be opened is a ``HandledError``."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise HandledError(f"cannot read {path}: {exc.strerror or exc}") from None
    with fh:
        n = 0
        while True:
            try:
                raw = fh.readline(MAX_BATCH_LINE + 1)
            except OSError as exc:
                raise HandledError(f"cannot read {path}: {exc.strerror or exc}") from None
            if not raw:
                return
            n += 1
            if len(raw) > MAX_BATCH_LINE and not raw.endswith(b"\n"):
                _skip_line(fh)
                yield BatchLine(
                    n,
                    None,
                    error=f"line {n}: longer than {MAX_BATCH_LINE // 1024} KB, so not read "
                    f"(a query may have at most {MAX_QUERY_CHARS:,} characters)",
                )
                continue
            if n == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte order mark
            if raw.strip():
                yield _batch_line(n, raw)


def _skip_line(fh: BinaryIO) -> None:
    """Read past the rest of an over-long line, a block at a time."""
    while True:
        block = fh.readline(MAX_BATCH_LINE)
        if not block or block.endswith(b"\n"):
            return


def _batch_line(n: int, raw: bytes) -> BatchLine:
    """One non-blank line of a batch file as its question, or with the reason it is none."""
    expected = '(each line is one {"_id": …, "text": "…"} object)'
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return BatchLine(n, None, error=f"line {n}: not UTF-8 text (byte {exc.start + 1})")
    try:
        item = json.loads(line)
    except RecursionError:  # json.loads of 100,000 nested [ recurses past Python's limit
        return BatchLine(n, None, error=f"line {n}: JSON nested too deep {expected}")
    except json.JSONDecodeError as exc:
        return BatchLine(n, None, error=f"line {n}: not JSON ({exc.msg}, column {exc.colno})")
    if not isinstance(item, dict):
        kind = _JSON_KINDS.get(type(item), "a value")
        return BatchLine(n, None, error=f"line {n}: {kind}, not an object {expected}")
    ident, text = item.get("_id"), item.get("text")
    if "text" not in item:
        return BatchLine(n, ident, error=f'line {n}: no "text" {expected}')
    if not isinstance(text, str) or not text.strip():
        return BatchLine(
            n, ident, error=f'line {n}: "text" is not a question (it must be text, not empty)'
        )
    return BatchLine(n, ident, text)


# What a JSON line that is no object holds, in JSON's words
_JSON_KINDS: dict[type, str] = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}


def say_failed(failed: int, total: int, what: str) -> None:
    """The last line of a batch on stderr, when any line failed."""
    if failed:
        print(
            f'footnotes: {failed} of {total} {what} failed (each line says why in "error")',
            file=sys.stderr,
        )


def data_dir_arg(args: argparse.Namespace) -> Path:
    from app.core.config import resolve_data_dir

    return resolve_data_dir(getattr(args, "data_dir", None))


def ollama_host_arg(args: argparse.Namespace) -> str | None:
    """--ollama-host (checked by argparse), else a valid $OLLAMA_HOST, else None (settings).

    A $OLLAMA_HOST that cannot be an address is an error for ``ask``, which would send the
    question elsewhere than meant; every other command says so on stderr and goes on with
    settings.json's address."""
    given = getattr(args, "ollama_host", None)
    if given:
        return str(given)
    env = os.environ.get("OLLAMA_HOST")
    if not env:
        return None
    why = host_problem(env)
    if why is None:
        return env
    problem = f"$OLLAMA_HOST is not an Ollama address ({why}): {env!r}"
    if getattr(args, "command", None) == "ask":
        raise HandledError(
            f"{problem}. Set it to a URL such as http://127.0.0.1:11434, unset it, or give "
            "--ollama-host URL."
        )
    print(f"footnotes: {visible(problem)}; using settings.json's address.", file=sys.stderr)
    return None


def open_footnotes(args: argparse.Namespace, faults: Faults = NO_FAULTS) -> Footnotes:
    """The engine's face for the data directory; each problem with its settings.json is one
    line on stderr (the command goes on with the defaults for those keys). ``faults``: a fault
    test's plan for the indexer (none otherwise)."""
    fn = Footnotes(
        data_dir_arg(args),
        chroma_url=getattr(args, "chroma_url", None),
        ollama_host=ollama_host_arg(args),
        faults=faults,
    )
    for problem in fn.settings.problems:
        print(f"footnotes: {visible(problem)}", file=sys.stderr)
    return fn


Command = Callable[[argparse.Namespace, Footnotes], int]


def dispatch(args: argparse.Namespace, handler: Command, faults: Faults = NO_FAULTS) -> int:
    """Run a command on an engine for the data directory; handled errors exit 1, Ctrl-C 130."""
    fn = None
    try:
        fn = open_footnotes(args, faults)
        return handler(args, fn)
    except (
        HandledError,
        LockedError,
        StoreError,
        QueryError,
        DamagedError,
        DiskFullError,
        EmbeddingError,
    ) as exc:
        print(f"footnotes: {visible(exc)}", file=sys.stderr)
        return 1
    except (sqlite3.OperationalError, OSError) as exc:
        root = data_dir_arg(args)
        if is_disk_full(root, exc):  # a write no engine call turned into DiskFullError
            print(f"footnotes: {visible(disk_full_message(root))}", file=sys.stderr)
            return 1
        if not isinstance(exc, sqlite3.OperationalError):
            raise
        print(f"footnotes: {visible(database_message(exc, args))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("footnotes: stopped; everything indexed so far is saved.", file=sys.stderr)
        return 130
    finally:
        if fn is not None:
            fn.close()


def database_message(exc: sqlite3.OperationalError, args: argparse.Namespace) -> str:
    """A sentence for a manifest database the command could not use (locked, read-only...)."""
    from app.core.config import DataDir

    where = DataDir(data_dir_arg(args)).manifest_path
    text = str(exc)
    if "locked" in text or "busy" in text:
        return (
            f"the index database {where} stayed locked by another program, so this command "
            "gave up waiting; the index is unharmed (every change is one transaction). Close "
            "whatever holds it (a database browser, a backup tool) and run the command again."
        )
    return f"cannot use the index database {where}: {text}."


class ProgressBar:
    """A tqdm bar on a terminal for long runs; silent otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.bar: Any = None
        self.embedded = 0

    def __call__(self, p: Progress) -> None:
        if not self.enabled:
            return
        if p.event == "planned":
            self.bar = tqdm_bar(p.total, "file", "Reading")
        elif self.bar is not None and p.event in ("indexed", "failed", "unchanged"):
            self.bar.n = p.done
            self.bar.refresh()
        elif self.bar is not None and p.event == "embedded":
            if self.bar.unit == "file":  # every file is read and searchable: now the vectors
                self.bar.close()
                self.bar = tqdm_bar(p.total, "passage", "Embedding")
            self.embedded += p.chunks_embedded
            self.bar.n = p.done
            self.bar.set_postfix(encoded=self.embedded, refresh=False)
            self.bar.refresh()
        elif self.bar is not None and p.event in ("ocr", "page"):
            self.bar.set_postfix_str(p.detail, refresh=False)
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def tqdm_bar(total: int, unit: str, desc: str) -> Any:
    """A progress bar on stderr."""
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, desc=desc, file=sys.stderr)
