"""Which Ollama models are installed, which one answers, and pulling one with progress.

A first question should work: when the configured model is not on the server but another chat
model is, that one answers (and the person is told so, once); a name that is a typo of an
installed one ("smollm2:135m-q8" for "smollm2:135m-q8_0") is answered with that name first
(``closest_model``: "Did you mean …?") and only then with a pull. Embedding-only models (BERT-style
families, or ``/api/show`` capabilities without ``completion``) are never picked for chat.
When no chat model is installed, one can be pulled through Ollama's pull API, with progress.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.core.errors import AnswerError
from app.core.ollama.address import import_ollama
from app.core.ollama.client import _SocketGuard, describe_error, has_model, make_client

if TYPE_CHECKING:
    import ollama
else:  # not ``import ollama``: a bad $OLLAMA_HOST must not crash the import
    ollama = import_ollama()

EMBEDDING_FAMILIES = frozenset(
    {"bert", "nomic-bert", "nomic-bert-moe", "xlm-roberta", "roberta", "jina-bert", "gte"}
)
_EMBEDDING_NAME = re.compile(r"embed|minilm|\bbge\b|bge-|\be5\b|paraphrase-|snowflake-arctic")


@dataclass(frozen=True)
class ModelInfo:
    """An installed model as ``/api/tags`` (and, when asked, ``/api/show``) describe it."""

    name: str
    family: str = ""
    families: tuple[str, ...] = ()
    parameter_size: str = ""
    size: int = 0
    capabilities: tuple[str, ...] | None = None  # None: the server did not say

    @property
    def embedding_only(self) -> bool:
        """A model that embeds text but cannot chat (never picked to answer)."""
        if self.capabilities is not None:
            return "completion" not in self.capabilities
        families = {self.family, *self.families} - {""}
        return bool(families & EMBEDDING_FAMILIES) or bool(_EMBEDDING_NAME.search(self.name))

    @property
    def chat(self) -> bool:
        return not self.embedding_only


def installed_models(
    host: str | None, timeout_s: float = 5.0, *, capabilities: bool = True
) -> list[ModelInfo]:
    """Installed models in the server's order (most recently changed first).

    With ``capabilities``, each model's ``/api/show`` says whether it can chat; an older
    server that does not say leaves the family and name to decide.
    """
    try:
        with make_client(host, timeout_s=timeout_s, connect_timeout_s=timeout_s) as client:
            out = []
            for m in client.list().models:
                if not m.model:
                    continue
                d = m.details
                caps: tuple[str, ...] | None = None
                if capabilities:
                    with contextlib.suppress(Exception):  # a model /api/show cannot read
                        shown = client.show(m.model).capabilities
                        caps = tuple(shown) if shown else None
                out.append(
                    ModelInfo(
                        m.model,
                        (d.family or "") if d else "",
                        tuple(d.families or ()) if d else (),
                        (d.parameter_size or "") if d else "",
                        int(m.size or 0),
                        caps,
                    )
                )
            return out
    except Exception as exc:
        raise describe_error(
            exc, host=host, timeout_s=timeout_s, connect_timeout_s=timeout_s
        ) from exc


def _base(name: str) -> str:
    return name.rsplit(":", 1)[0] if ":" in name.rsplit("/", 1)[-1] else name


_CLOSE = 0.75  # similarity of two names from which one may be meant for the other
_TYPO = 0.9  # from which it is surely a typo ("llama3.2" is not one of "llama3.1", at 0.875)


def closest_model(wanted: str, names: Sequence[str], cutoff: float = _CLOSE) -> str | None:
    """The name in ``names`` that ``wanted`` most resembles (a typo, a tag cut short), or None
    when none is as close as ``cutoff``; ties go to the first (the server lists the newest
    first)."""
    w = wanted.strip().lower()
    best, score = None, cutoff
    for name in names:
        n = name.lower()
        forms = {n, _base(n), n.removesuffix(":latest")}
        ratio = max(difflib.SequenceMatcher(None, w, f, autojunk=False).ratio() for f in forms)
        if ratio > score or (best is None and ratio == score):
            best, score = name, ratio
    return best


def pick_chat_model(installed: Sequence[ModelInfo], wanted: str) -> str | None:
    """``wanted`` if installed, else the installed chat model its name most resembles (another
    tag of it, a typo of it), else the first installed chat model."""
    chat = [m.name for m in installed if m.chat]
    if has_model(chat, wanted):
        return wanted
    same = [name for name in chat if _base(name) == _base(wanted)]
    close = closest_model(wanted, same or chat)
    if close is not None:
        return close
    if same:
        return same[0]
    return chat[0] if chat else None


@dataclass(frozen=True)
class ModelChoice:
    """The model that answers, and what to tell the person when it is not the configured one."""

    requested: str
    model: str | None  # None: no chat model is installed
    installed: list[ModelInfo] = field(default_factory=list)

    @property
    def fallback(self) -> bool:
        return self.model is not None and self.model != self.requested

    @property
    def note(self) -> str | None:
        """One plain sentence when another model answers, or when none can."""
        if self.model is None:
            return no_chat_model_message(self.requested)
        if self.fallback and has_model([m.name for m in self.installed], self.requested):
            return (
                f"The model '{self.requested}' cannot chat (it is an embedding model), so "
                f"'{self.model}' answers instead (choose a chat model in Settings)."
            )
        if self.fallback and closest_model(self.requested, [self.model], _TYPO) is not None:
            return (
                f"The model '{self.requested}' is not installed in Ollama. Did you mean "
                f"'{self.model}'? It answers instead (choose it in Settings, or get "
                f"'{self.requested}' with `ollama pull {self.requested}`)."
            )
        if self.fallback:
            return (
                f"The model '{self.requested}' is not installed in Ollama, so '{self.model}' "
                f"answers instead (get it with `ollama pull {self.requested}`, or choose a "
                "model in Settings)."
            )
        return None


def missing_model_message(model: str, installed: Sequence[str]) -> str:
    """The sentence for a model the person named that is not installed: the installed name it
    resembles first ("Did you mean …?"), then the chat models there are, then the pull."""
    close = closest_model(model, installed)
    there = f"Installed: {', '.join(installed)}." if installed else "No chat model is installed."
    if close is not None:
        return (
            f"The model '{model}' is not installed. Did you mean `{close}`? {there} "
            f"(To get '{model}' itself, run `ollama pull {model}`.)"
        )
    return f"The model '{model}' is not installed: run `ollama pull {model}`. {there}"


def no_chat_model_message(model: str) -> str:
    return (
        f"No chat model is installed in Ollama: run `ollama pull {model}` "
        "(or pull it from Settings), then ask again."
    )


def resolve_model(host: str | None, wanted: str, timeout_s: float = 5.0) -> ModelChoice:
    """The model to answer with: ``wanted`` when installed, else an installed chat model."""
    installed = installed_models(host, timeout_s)
    return ModelChoice(wanted, pick_chat_model(installed, wanted), installed)


# -- pulling -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PullProgress:
    """One progress line of ``/api/pull``: a status, and bytes done of a layer's total."""

    status: str
    completed: int | None = None
    total: int | None = None
    digest: str | None = None

    @property
    def fraction(self) -> float | None:
        if self.total and self.completed is not None:
            return max(0.0, min(1.0, self.completed / self.total))
        return None


def pull_model(
    host: str | None,
    model: str,
    *,
    on_progress: Callable[[PullProgress], None] | None = None,
    cancel: threading.Event | None = None,
    timeout_s: float = 60.0,
) -> bool:
    """Pull ``model`` through Ollama's pull API; False if cancelled, AnswerError on failure.

    ``timeout_s`` bounds each wait for the next progress line, not the whole download.
    Setting ``cancel`` shuts the connection down (Ollama then stops the download).
    """
    cancel = cancel or threading.Event()
    guard = _SocketGuard()
    client = make_client(
        host,
        timeout_s=timeout_s,
        connect_timeout_s=min(timeout_s, 10.0),
        event_hooks={"request": [guard.on_request]},
    )
    guard.watch(cancel)
    success = False
    try:
        for part in client.pull(model, stream=True):
            if cancel.is_set():
                return False
            p = PullProgress(part.status or "", part.completed, part.total, part.digest)
            if on_progress is not None:
                on_progress(p)
            if p.status == "success":
                success = True
        if not success and not cancel.is_set():
            raise AnswerError(
                f"Ollama stopped pulling '{model}' before it finished: try again.", "interrupted"
            )
        return success
    except Exception as exc:
        if cancel.is_set():
            return False
        if isinstance(exc, ollama.ResponseError) and not 300 <= exc.status_code < 400:
            text = str(exc.error).strip().rstrip(".") or "no details"
            raise AnswerError(f"Ollama could not pull '{model}': {text}.", "pull_failed") from exc
        raise describe_error(exc, host=host, model=model, timeout_s=timeout_s) from exc
    finally:
        guard.finish()
        client.close()
