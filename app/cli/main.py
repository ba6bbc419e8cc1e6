"""Parse the ``footnotes`` command line and run the command's module (imported only when used)."""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
import os
import sys
from collections.abc import Sequence

from app import __version__
from app.cli.scope import add_scope_flags, scope_from_args
from app.core.api import MAX_QUERY_CHARS, NO_FAULTS, Faults

# Each command's module; it has ``run(args, engine) -> int``. Imported on use, so that starting
# the desktop app or printing --help loads none of the engine.
COMMANDS = {
    "index": "app.cli.index",
    "folders": "app.cli.folders",
    "watch": "app.cli.watch",
    "search": "app.cli.search",
    "ask": "app.cli.ask",
    "threads": "app.cli.threads",
    "status": "app.cli.status",
    "doctor": "app.cli.doctor",
    "repair": "app.cli.repair",
    "eval": "app.cli.eval",
}


def _address(text: str) -> str:
    """--chroma-url: a host or URL, which holds no spaces."""
    if not text.strip() or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(f"not a host or URL: {text!r}")
    return text


def _ollama_address(text: str) -> str:
    """--ollama-host: checked as the Settings window checks it."""
    from app.core.api import host_problem  # light: no client, no network

    why = host_problem(text)
    if why:
        raise argparse.ArgumentTypeError(f"not an Ollama address ({why}): {text!r}")
    return text


def _add_globals(parser: argparse.ArgumentParser, suppress: bool) -> None:
    """--data-dir, --ollama-host, --chroma-url, --version: before the command, or (suppressed
    from its help) after it."""
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--version",
        action="version",
        version=f"footnotes {__version__}",
        help=argparse.SUPPRESS if suppress else "print the version and exit",
    )
    parser.add_argument("--data-dir", default=default, help="where settings and the index live")
    parser.add_argument(
        "--ollama-host",
        type=_ollama_address,
        default=default,
        help="Ollama server URL (default $OLLAMA_HOST, else http://127.0.0.1:11434)",
    )
    parser.add_argument(
        "--chroma-url",
        type=_address,
        default=default,
        help="use a Chroma server instead of the embedded store",
    )


MAX_K = 50  # as the Settings window offers


def _passages(text: str) -> int:
    """-k: a whole number of passages from 1 to ``MAX_K``."""
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= k <= MAX_K:
        raise argparse.ArgumentTypeError(f"{k} passages: give 1 to {MAX_K}")
    return k


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="footnotes",
        description="Answers from your own files, every claim pointing at its passage.",
    )
    _add_globals(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        _add_globals(p, suppress=True)
        return p

    p = command("index", "bring the index up to date for these files/folders, once")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--json", action="store_true", help="print a JSON report")

    p = command("folders", "manage watched folders")
    p.add_argument("action", choices=["add", "remove", "list"])
    p.add_argument("path", nargs="?", metavar="PATH")
    p.add_argument("--json", action="store_true")

    command("watch", "sync the watched folders, then follow changes until Ctrl-C")

    p = command("search", "find passages in your files")
    p.add_argument("query", nargs="?", metavar="QUERY")
    p.add_argument(
        "-k", type=_passages, default=None, help="number of passages, 1-50 (default: setting)"
    )
    p.add_argument("--batch", metavar="FILE.jsonl", help='one {"_id","text"} JSON object a line')
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--mode", choices=["hybrid", "dense", "lexical"], default="hybrid", help=argparse.SUPPRESS
    )
    add_scope_flags(p)

    p = command("ask", "answer a question from your files with a local Ollama model")
    p.add_argument("question", nargs="?", metavar="QUESTION")
    p.add_argument(
        "-k",
        type=_passages,
        default=None,
        help="number of passages the model reads and you see, 1-50 (default: setting)",
    )
    p.add_argument(
        "--batch", metavar="FILE.jsonl", help='one {"_id","text"} JSON object a line; JSON out'
    )
    p.add_argument("--model", default=None, help="Ollama model (default: setting)")
    p.add_argument(
        "--thread",
        metavar="ID",
        default=None,
        help="follow up in this thread (default: a new thread; its id is printed)",
    )
    p.add_argument("--json", action="store_true")
    add_scope_flags(p)

    p = command("threads", "past questions and answers: list, show, export as Markdown, delete")
    p.add_argument("action", choices=["list", "show", "export", "delete"])
    p.add_argument("id", nargs="?", metavar="ID")
    p.add_argument("--json", action="store_true", help="list: print JSON")
    p.add_argument("--search", default="", metavar="TEXT", help="list: only threads asking this")
    p.add_argument("--turn", type=int, default=None, metavar="N", help="export: only this answer")
    p.add_argument("-o", "--output", metavar="FILE", help="export: write here, not to stdout")
    p.add_argument("--force", action="store_true", help="export: replace FILE if it exists")

    p = command("status", "counts, and every file that failed with its reason")
    p.add_argument("--json", action="store_true")

    command("doctor", "check Ollama, the model, the index and disk space")
    command(
        "repair",
        "set damaged files aside; rebuild the manifest from your files (every folder it "
        "indexed), the vector cache, full-text rows and vector store",
    )

    p = command(
        "eval",
        "measure retrieval, the unsupported verdict, the claim checks and real answers "
        "(for developers)",
    )
    p.add_argument("what", choices=["retrieval", "support", "claims", "answers"])
    p.add_argument(
        "--refit",
        action="store_true",
        help="support: fit new parameters and write them to app/data/support.json",
    )
    p.add_argument("--data", metavar="DIR", help="the labelled sets (default: ../shared/data)")
    p.add_argument(
        "--set",
        choices=["scifact", "financebench", "corpus", "squad2"],
        help="only this set; retrieval: scifact, financebench, corpus (known items, "
        "FinanceBench and dense recall over one index of the whole corpus/); support: squad2, "
        "scifact, corpus",
    )
    p.add_argument(
        "--index",
        metavar="DIR",
        help="retrieval/support --set corpus, answers: a data directory indexing corpus/",
    )
    p.add_argument(
        "--held-out-pages",
        metavar="FILE",
        help="retrieval --set corpus: also questions written over the filings and kept outside "
        'the repository, reported as held out ({"id", "doc_name", "pages", "question"} a line)',
    )
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="at most N questions (per kind for support and answers)",
    )
    p.add_argument(
        "--sets",
        metavar="LIST",
        help="answers: any of squad,notes,finance, comma-separated (default: all three)",
    )
    p.add_argument(
        "-k",
        type=_passages,
        default=None,
        help="answers: passages the model reads (default: setting)",
    )
    p.add_argument("--model", default=None, help="answers: Ollama model (default: setting)")
    p.add_argument(
        "--replay",
        metavar="FILE",
        help='answers: judge given answers instead of asking a model, one {"question" or "id", '
        '"answer", "label"} a line, citations as [[file:NAME]]',
    )
    p.add_argument(
        "--ablate",
        action="store_true",
        help="answers --replay: also what switching off each check of the verdict changes",
    )
    p.add_argument(
        "--write-prompts",
        metavar="FILE",
        help="answers: write each question with the sources ask sends (to answer for --replay)",
    )
    p.add_argument(
        "--half",
        choices=["dev", "held_out", "both"],
        default="dev",
        help="answers --write-prompts: the questions of this half (default: dev)",
    )
    p.add_argument(
        "--work",
        metavar="DIR",
        help="answers: where the eval indexes are built and reused (default: the data dir)",
    )
    p.add_argument(
        "--json",
        nargs="?",
        const="-",
        default=None,
        metavar="FILE",
        help="print JSON (answers: every row and figure; to FILE when given)",
    )
    parser.set_defaults(command_parsers=sub.choices)  # for usage errors in a command's words
    return parser


def _say_if_not_utf8(text: str, what: str) -> None:
    """One line on stderr when the terminal sent bytes that are not UTF-8 (a Latin-1 locale):
    the question is read as search and ask read it, and the person sees how."""
    from app.cli.common import visible
    from app.core.api import well_formed

    read = well_formed(text)
    if read != text:
        print(
            f"footnotes: the {what} held bytes that are not UTF-8 text; read as "
            f"“{visible(read)}” (set your terminal to UTF-8 to type it as meant)",
            file=sys.stderr,
        )


def main(argv: Sequence[str] | None = None, *, faults: Faults | None = None) -> int:
    """Run the command line; ``faults`` is a fault test's plan for the indexer (none when
    shipped: ``footnotes`` itself never passes one)."""
    # In a PyInstaller build the parser and engine processes re-run this executable:
    # freeze_support turns such a run into the worker it should be (a no-op otherwise).
    multiprocessing.freeze_support()
    for stream in (sys.stdout, sys.stderr):  # file names print as their own bytes, like ls
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from app.ui.main import run_gui

        return run_gui(args)
    usage = args.command_parsers[args.command]  # its errors show the command's usage line
    if args.command in ("search", "ask"):
        text = args.query if args.command == "search" else args.question
        what = "QUERY" if args.command == "search" else "QUESTION"
        if text is not None and not text.strip():
            usage.error(f"the {what} is empty")
        if not text and not args.batch:
            usage.error(f"{args.command} needs a {what} or --batch FILE.jsonl")
        if text and args.batch:
            usage.error(f"give a {what} or --batch FILE.jsonl, not both")
        if text and len(text) > MAX_QUERY_CHARS:
            usage.error(f"the {what} is {len(text):,} characters; at most {MAX_QUERY_CHARS:,}")
        if text:
            _say_if_not_utf8(text, what)
    if args.command == "threads" and args.action != "list" and not args.id:
        usage.error(f"threads {args.action} needs an ID (footnotes threads list shows them)")
    if args.command == "ask" and args.batch and getattr(args, "thread", None):
        usage.error("--thread works with one QUESTION, not with --batch")
    if args.command == "folders" and args.action != "list" and not args.path:
        usage.error(f"folders {args.action} needs a PATH")
    if args.command in ("search", "ask"):
        try:
            args.scope = scope_from_args(args)
        except ValueError as exc:  # a period that ends before it starts
            usage.error(str(exc))
    from app.cli.common import dispatch

    try:
        run = importlib.import_module(COMMANDS[args.command]).run
        return dispatch(args, run, faults or NO_FAULTS)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly, as cat does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the exit's flush of stdout cannot fail
        return 141  # 128 + SIGPIPE
