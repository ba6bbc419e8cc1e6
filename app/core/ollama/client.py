"""Thin layer over the ``ollama`` client: timeouts, cancellation and errors a person can act on."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx
import pydantic

from app.core.errors import AnswerError
from app.core.ollama.address import display_host, import_ollama, plain_http_warning

if TYPE_CHECKING:
    import ollama
else:  # not ``import ollama``: a bad $OLLAMA_HOST must not crash the import
    ollama = import_ollama()

_CANCEL_POLL_S = 0.05


class _Client(ollama.Client):
    """``ollama.Client`` plus ``/api/version``, which the library does not wrap."""

    def version(self) -> str:
        return str(self._request_raw("GET", "/api/version").json().get("version", ""))


class _SocketGuard:
    """Captures the request's socket (httpx ``trace`` extension) so a cancel can shut it down."""

    def __init__(self) -> None:
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._finished = threading.Event()

    def on_request(self, request: httpx.Request) -> None:
        request.extensions["trace"] = self._trace

    def _trace(self, name: str, info: Mapping[str, Any]) -> None:
        if name.endswith("connect_tcp.complete") or name.endswith("start_tls.complete"):
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if isinstance(sock, socket.socket):
                with self._lock:
                    self._sockets.append(sock)

    def watch(self, cancel: threading.Event) -> None:
        """Start a daemon thread that shuts the sockets down as soon as ``cancel`` is set."""
        threading.Thread(
            target=self._run, args=(cancel,), name="ollama-cancel", daemon=True
        ).start()

    def _run(self, cancel: threading.Event) -> None:
        while not self._finished.is_set():
            if cancel.wait(_CANCEL_POLL_S):
                self.shutdown()
                return

    def shutdown(self) -> None:
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def finish(self) -> None:
        self._finished.set()


def make_client(
    host: str | None,
    *,
    timeout_s: float,
    connect_timeout_s: float = 5.0,
    headers: Mapping[str, str] | None = None,
    **kwargs: Any,
) -> _Client:
    """An ``ollama.Client`` that never waits forever: ``timeout_s`` bounds each wait for data.

    ``headers`` go with every request (a proxy's token); without an ``Authorization`` header
    the ``ollama`` library sends ``Bearer $OLLAMA_API_KEY`` when that is set. Redirects are
    not followed, so the prompt (passages from the person's files) only goes to ``host``.
    """
    timeout = httpx.Timeout(timeout_s, connect=connect_timeout_s)
    return _Client(
        host=display_host(host),
        timeout=timeout,
        headers=dict(headers or {}),
        follow_redirects=False,
        **kwargs,
    )


def _unresolved(exc: BaseException) -> bool:
    """Whether a failed connection failed at looking the host's name up (DNS)."""
    seen: BaseException | None = exc
    for _ in range(8):  # the chain: httpx -> httpcore -> socket.gaierror
        if seen is None:
            return False
        if isinstance(seen, socket.gaierror):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def describe_error(
    exc: BaseException,
    *,
    host: str | None,
    model: str | None = None,
    timeout_s: float = 0.0,
    connect_timeout_s: float = 0.0,
    started: bool = False,
) -> AnswerError:
    """Turn an exception from ``ollama``/``httpx`` into an :class:`AnswerError`."""
    where = display_host(host)
    if isinstance(exc, AnswerError):
        return exc
    if isinstance(exc, httpx.ConnectTimeout):
        return AnswerError(
            f"Ollama at {where} did not accept a connection within {connect_timeout_s:g} s: "
            "check that it is running and that the address is right.",
            "connect_timeout",
        )
    if isinstance(exc, httpx.ConnectError) and _unresolved(exc):
        return AnswerError(
            f"Cannot find the host of {where}: check the Ollama address (the setting "
            "`ollama_host`, or --ollama-host / $OLLAMA_HOST on the command line).",
            "unknown_host",
        )
    if isinstance(exc, httpx.ConnectError | ConnectionError):
        return AnswerError(
            f"Ollama is not running at {where}: start it with `ollama serve` "
            "(or open the Ollama app).",
            "not_running",
        )
    if isinstance(exc, httpx.TimeoutException):
        if started:
            return AnswerError(
                f"Ollama stopped in the middle of the answer: no new text for {timeout_s:g} s. "
                "Check that Ollama is still running, then ask again.",
                "timeout",
            )
        return AnswerError(
            f"Ollama at {where} sent nothing for {timeout_s:g} s (the request timeout): the "
            "model may still be loading or the server is stuck. Try again, or raise the "
            "request timeout (setting `request_timeout_s` in settings.json).",
            "timeout",
        )
    if isinstance(exc, ollama.ResponseError):
        return _describe_response_error(exc, where, model)
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return AnswerError(
            "Ollama closed the connection in the middle of the answer (it may have crashed or "
            "run out of memory): check that it is still running, then ask again.",
            "interrupted",
        )
    if isinstance(exc, json.JSONDecodeError | pydantic.ValidationError | KeyError | TypeError):
        return AnswerError(
            f"Ollama at {where} sent a response that could not be read: check that this "
            "address is an Ollama server and that Ollama is up to date.",
            "malformed",
        )
    if isinstance(exc, httpx.HTTPError):
        return AnswerError(f"Could not talk to Ollama at {where}: {exc}.", "http")
    # the repr of an encoding error holds the whole request (3.8 KB of the prompt): its kind
    detail = repr(exc) if len(repr(exc)) <= 160 else f"{type(exc).__name__}: {str(exc)[:120]}…"
    return AnswerError(f"Unexpected error while talking to Ollama at {where}: {detail}.")


def _describe_response_error(
    exc: ollama.ResponseError, where: str, model: str | None
) -> AnswerError:
    text = str(exc.error).strip().rstrip(".") or "no details"
    if exc.status_code == 404 and model and "not found" in text.lower():
        return AnswerError(
            f"The model '{model}' is not installed: run `ollama pull {model}`.", "model_missing"
        )
    if exc.status_code == 400 and model and "does not support" in text.lower():
        return AnswerError(
            f"The model '{model}' cannot answer questions (it is an embedding model): choose "
            "a chat model in Settings or with --model.",
            "model_cannot_chat",
        )
    if exc.status_code == -1:  # an {"error": ...} line inside an otherwise good stream
        return AnswerError(f"Ollama reported an error while answering: {text}.", "server")
    if 300 <= exc.status_code < 400:
        return AnswerError(
            f"Ollama at {where} answered with a redirect (HTTP {exc.status_code}), which is not "
            "followed so that your files' passages go nowhere else: set the Ollama host to the "
            "server's real address.",
            "redirect",
        )
    return AnswerError(f"Ollama at {where} answered HTTP {exc.status_code}: {text}.", "http")


def stream_chat(
    messages: Sequence[Mapping[str, Any]],
    *,
    host: str | None,
    model: str,
    options: Mapping[str, Any] | None = None,
    timeout_s: float = 120.0,
    connect_timeout_s: float = 5.0,
    cancel: threading.Event | None = None,
) -> Iterator[str]:
    """Yield the assistant's text pieces in order; raise :class:`AnswerError` on failure.

    ``timeout_s`` is the longest wait for the next piece. Setting ``cancel`` ends the
    stream quietly and shuts the connection down, even while a read is blocked.
    """
    cancel = cancel or threading.Event()
    if cancel.is_set():
        return
    guard = _SocketGuard()
    client = make_client(
        host,
        timeout_s=timeout_s,
        connect_timeout_s=connect_timeout_s,
        event_hooks={"request": [guard.on_request]},
    )
    guard.watch(cancel)
    stream: Iterator[ollama.ChatResponse] | None = None
    started = finished = False
    try:
        stream = client.chat(model=model, messages=messages, stream=True, options=options)
        for part in stream:
            if cancel.is_set():
                return
            text = part.message.content or ""
            if text:
                started = True
                yield text
            if part.done:
                finished = True
                break
        if not finished and not cancel.is_set():
            raise AnswerError(
                "Ollama stopped in the middle of the answer (the stream ended early): check "
                "that it is still running, then ask again.",
                "interrupted",
            )
    except Exception as exc:
        if cancel.is_set():
            return
        raise describe_error(
            exc,
            host=host,
            model=model,
            timeout_s=timeout_s,
            connect_timeout_s=connect_timeout_s,
            started=started,
        ) from exc
    finally:
        guard.finish()
        close = getattr(stream, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                close()
        client.close()


def list_models(host: str | None, timeout_s: float = 5.0) -> list[str]:
    """Names of the models installed in Ollama (``ollama list``)."""
    try:
        with make_client(host, timeout_s=timeout_s, connect_timeout_s=timeout_s) as client:
            return [m.model for m in client.list().models if m.model]
    except Exception as exc:
        raise describe_error(
            exc, host=host, timeout_s=timeout_s, connect_timeout_s=timeout_s
        ) from exc


def server_version(host: str | None, timeout_s: float = 5.0) -> str:
    """Ollama's version string, e.g. ``"0.6.5"``; also a cheap 'is it running?' check."""
    try:
        with make_client(host, timeout_s=timeout_s, connect_timeout_s=timeout_s) as client:
            return client.version()
    except Exception as exc:
        raise describe_error(
            exc, host=host, timeout_s=timeout_s, connect_timeout_s=timeout_s
        ) from exc


@dataclass(frozen=True)
class ProbeResult:
    """What a connection test found: server version, installed models, round-trip time."""

    host: str
    version: str
    models: list[str] = field(default_factory=list)
    latency_ms: float = 0.0
    warning: str | None = None  # plain HTTP to another computer


def probe_server(
    host: str | None, timeout_s: float = 5.0, *, headers: Mapping[str, str] | None = None
) -> ProbeResult:
    """Test a server for the settings dialog; raise :class:`AnswerError` if it is unusable.

    ``latency_ms`` is the round trip of ``/api/version`` (a request the server answers
    without touching a model), so it shows the network, not the model's speed.
    """
    try:
        with make_client(
            host, timeout_s=timeout_s, connect_timeout_s=timeout_s, headers=headers
        ) as client:
            started = time.perf_counter()
            version = client.version()
            latency_ms = (time.perf_counter() - started) * 1000.0
            models = sorted(m.model for m in client.list().models if m.model)
    except Exception as exc:
        raise describe_error(
            exc, host=host, timeout_s=timeout_s, connect_timeout_s=timeout_s
        ) from exc
    return ProbeResult(display_host(host), version, models, latency_ms, plain_http_warning(host))


def model_context_length(host: str | None, model: str, timeout_s: float = 5.0) -> int | None:
    """The model's trained context length from ``/api/show``, or None if it does not say."""
    try:
        with make_client(host, timeout_s=timeout_s, connect_timeout_s=timeout_s) as client:
            info = client.show(model).modelinfo or {}
    except Exception as exc:
        raise describe_error(
            exc, host=host, model=model, timeout_s=timeout_s, connect_timeout_s=timeout_s
        ) from exc
    for key, value in info.items():
        if key.endswith(".context_length") and isinstance(value, int):
            return value
    return None


def has_model(installed: Sequence[str], model: str) -> bool:
    """Whether ``model`` is among ``installed``, where a missing tag means ``:latest``."""

    def norm(name: str) -> str:
        return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"

    return norm(model) in {norm(name) for name in installed}
