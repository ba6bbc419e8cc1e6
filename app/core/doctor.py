"""The doctor's checks: is Ollama running, which model answers, is the index healthy, disk free.

Each check gives one finding (``ok``, a ``warning`` that fails nothing, or a ``problem``) in a
sentence a person can act on; ``footnotes doctor`` prints them, and the window may show them.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from app.core.diskfull import FULL_BELOW_BYTES
from app.core.engine import Engine
from app.core.errors import AnswerError
from app.core.index import damage, pending
from app.core.index.availability import folder_problem
from app.core.ollama.address import display_host
from app.core.ollama.client import has_model
from app.core.ollama.models import ModelInfo, closest_model, installed_models, pick_chat_model
from app.core.private import too_open
from app.core.prompt.answering import server_version
from app.core.search import probes
from app.core.text import counted

MIN_FREE_BYTES = 500_000_000  # below this, indexing a few large PDFs can fill the disk


# A check's finding: ok, a warning (worth knowing; nothing fails), or a problem (exit 1).
OK, WARNING, PROBLEM = "ok", "warning", "problem"
Check = tuple[bool | str, str]  # (True/False for ok/problem, or one of the three), text


def _check_ollama(engine: Engine) -> list[Check]:
    host, model = engine.settings.ollama_host, engine.settings.ollama_model
    try:
        version = server_version(host)
    except AnswerError as exc:
        return [
            (False, exc.message),
            (False, f"model {model}: not checked, Ollama is not reachable"),
        ]
    lines = [(True, f"Ollama {version or '(unknown version)'} at {display_host(host)}")]
    try:
        installed = installed_models(host)
    except AnswerError as exc:
        return [*lines, (False, f"model {model}: {exc.message}")]
    return [*lines, _model_line(installed, model)]


def _model_line(installed: list[ModelInfo], model: str) -> Check:
    """Which model answers, and every installed model (embedding-only ones said apart). A
    configured model that is missing is a warning while another chat model answers (a fresh
    install with a model of the person's own), a problem when none can."""
    chat = [m.name for m in installed if m.chat]
    embedding = [m.name for m in installed if m.embedding_only]
    listed = "installed: " + (", ".join(chat) if chat else "no chat model")
    if embedding:
        listed += f"; embedding only: {', '.join(embedding)}"
    in_use = pick_chat_model(installed, model)
    if in_use == model:
        return True, f"model {model} is pulled and answers questions ({listed})"
    if has_model([m.name for m in installed], model):
        head = f"model {model} cannot chat (an embedding model): choose a chat model in Settings"
    elif (close := closest_model(model, [m.name for m in installed if m.chat])) is not None:
        head = (
            f"model {model} is not pulled; did you mean {close}? (choose it in Settings, or "
            f"run `ollama pull {model}`)"
        )
    else:
        head = f"model {model} is not pulled: run `ollama pull {model}`"
    if in_use is None:
        return PROBLEM, f"{head}; no installed model can answer ({listed})"
    return WARNING, f"{head}; meanwhile {in_use} answers questions ({listed})"


def _check_index(engine: Engine) -> tuple[bool, str]:
    problems = engine.manifest.check()
    counts = engine.manifest.counts()
    try:
        store = engine.store()
        stored = store.all_ids()
    except Exception as exc:  # a StoreError, or a model that cannot load: reported on its own line
        return False, f"index: cannot read the vector store: {exc}"
    known = engine.manifest.all_hashes()
    waiting = pending.listed(engine.manifest.conn)  # written, their vectors being computed
    if missing := len(known - stored - waiting):
        problems.append(
            f"{counted(missing, 'passage text')} {'has' if missing == 1 else 'have'} no vector "
            "(run `footnotes index` on your folders)"
        )
    if (orphans := len(stored - known)) and not store.shared:  # shared: others' vectors
        problems.append(
            f"{counted(orphans, 'stored vector')} {'belongs' if orphans == 1 else 'belong'} "
            "to no passage (the next index run removes them)"
        )
    if problems:
        return False, "index: " + "; ".join(problems)
    fmt = f"format {counts['index_format']} (passages embedded with their title and headings)"
    if waits := counts["chunks_waiting"]:
        fmt += (
            f"; {counted(waits, 'passage')} searchable by {'its' if waits == 1 else 'their'} "
            f"words {'waits for its vector' if waits == 1 else 'wait for their vectors'} "
            "(the running watcher or the next `footnotes index` computes them)"
        )
    if outdated := counts["files_outdated"]:
        fmt += (
            f"; {counted(outdated, 'file')} still in an older format, rebuilt by the next "
            "sync (the app or `footnotes index`), searchable meanwhile"
        )
    return True, (
        f"index: {counted(counts['files_indexed'], 'file')}, "
        f"{counted(counts['chunks'], 'passage')}, "
        f"{counts['files_failed']:,} failed; manifest and vector store agree; {fmt}"
    )


def _check_folders(engine: Engine) -> tuple[bool, str]:
    """Whether every watched folder can be read now (one that cannot keeps its passages)."""
    folders = engine.manifest.folders()
    problems = [(f, folder_problem(f, engine.manifest.holds_files(f))) for f in folders]
    down = [f"{f} ({why})" for f, why in problems if why]
    if down:
        return False, (
            f"folders: {'; '.join(down)} cannot be read now; their passages stay in the index "
            "and watching resumes when they are back"
        )
    if not folders:
        return True, "folders: none watched (add one with `footnotes folders add PATH`)"
    return True, f"folders: {len(folders)} watched, all readable"


def _check_private(engine: Engine) -> tuple[bool, str]:
    """Whether the data folder is the owner's alone (opening it tightened what was wider)."""
    root = engine.data.root
    still = too_open(root)
    if still:
        names = ", ".join(str(p) for p in still[:3]) + (" ..." if len(still) > 3 else "")
        return False, (
            f"privacy: {counted(len(still), 'item')} in {root} can be read by other users and "
            f"could not be made owner-only ({names}); run `chmod -R go-rwx {root}` as their owner"
        )
    if engine.data.tightened:
        return True, (
            f"privacy: {counted(len(engine.data.tightened), 'item')} in {root} could be read "
            "by other users; now owner-only (folders 0700, files 0600)"
        )
    return True, f"privacy: {root} is owner-only (folders 0700, files 0600)"


def _check_disk(root: Path) -> tuple[bool, str]:
    free = shutil.disk_usage(root).free
    if free < FULL_BELOW_BYTES:
        return False, (
            f"disk: the disk holding {root} is full ({free // 1024:,} KB free): searching and "
            "asking still work, but nothing can be indexed or saved until you free some space"
        )
    text = f"{free / 1e9:.1f} GB free in {root}"
    return (True, f"disk: {text}") if free >= MIN_FREE_BYTES else (False, f"disk: only {text}")


def _check_embedder(engine: Engine) -> tuple[bool, str]:
    """Whether the embedding model loads and embeds: the model itself, whatever the state of
    the index (a damaged index database is its own finding, not the model's)."""
    try:
        try:
            embedder = engine.embedder()
        except damage.DamagedError:  # it records what loaded in the index, which cannot open
            from app.core.index.embedding import load_embedder

            embedder = load_embedder(
                engine.settings.embedding_model,
                engine.settings.embedding_backend,
                models_dir=engine.data.models_path,
            )
        vec = embedder.encode(["footnotes doctor"])
    except Exception as exc:  # any failure to load is the finding itself
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
        return False, f"embedding model {engine.settings.embedding_model} does not load: {first}"
    return True, f"embedding model {embedder.model_id} loads ({vec.shape[1]} dimensions)"


def _check_parser() -> tuple[bool, str]:
    """The verdict's English parser: without it the sentence checks read words only."""
    from app.core.verdict import parse

    if parse.parser() is None:
        return False, f"verdict: {parse.problem()}; answers are checked by their words only"
    return True, f"verdict: the English parser ({parse.MODEL}) loads"


def _check_files(engine: Engine) -> list[tuple[bool, str]]:
    """Each damaged file of the data directory, named with the command that repairs it."""
    lines = [(False, f"damaged: {d}") for d in damage.survey(engine.data)]
    lines += [
        (False, f"{problem} (fix it in Settings, or edit or delete settings.json)")
        for problem in engine.settings.problems
    ]
    return lines or [(True, f"files: every file in {engine.data.root} can be read")]


def _check_reading(engine: Engine) -> list[tuple[bool, str]]:
    """The checks that read the index; one line for an index that cannot be opened."""
    try:
        engine.manifest  # noqa: B018 - opens it, or says why it cannot
    except damage.DamagedError:  # the "damaged:" line names the file and the repair
        return [
            (False, "index: not read, its database is damaged (`footnotes repair` rebuilds it)")
        ]
    except sqlite3.OperationalError as exc:  # a full disk, a lock: the disk check says more
        return [(False, f"index: cannot open {engine.data.manifest_path}: {exc}")]
    return [
        _check_index(engine),
        _check_folders(engine),
        (True, "support flag: " + probes.status(engine.manifest, engine.data.root)),
    ]


def checks(engine: Engine) -> list[Check]:
    """Every check, in the order ``doctor`` prints them."""
    return [
        *_check_files(engine),
        *_check_ollama(engine),
        _check_embedder(engine),
        _check_parser(),
        *_check_reading(engine),
        _check_private(engine),
        _check_disk(engine.data.root),
    ]


def level(ok: bool | str) -> str:
    """A check's finding as ``ok``, ``warning`` or ``problem``."""
    if isinstance(ok, str):
        return ok
    return OK if ok else PROBLEM
