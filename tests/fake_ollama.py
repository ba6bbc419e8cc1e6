"""A small HTTP server on 127.0.0.1 that speaks Ollama's wire protocol, scriptable for failures.

Used by the tests through the real ``ollama`` client; also runnable for demos::

    python -m tests.fake_ollama --port 11434 --reply "Paris is the capital of France [1]."
    python -m tests.fake_ollama --port 11434 --echo   # answers with the first source's sentence
"""

from __future__ import annotations

import argparse
import json
import re
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_TOKEN = re.compile(r"\s*\S+\s*|\s+")
_FIRST_SOURCE = re.compile(r"<source\b[^>]*>\n?(.*?)</source>", re.DOTALL)


@dataclass
class Recorded:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeOllama:
    """Scripted Ollama. Set the attributes (between requests) to choose the behaviour.

    ``hang``: never answer /api/chat; ``stall_after``/``close_after``/``malformed_after``/
    ``error_after``: after that many content chunks, stall, drop the connection, send a line
    that is not JSON, or send an ``{"error": ...}`` line; ``status``: answer /api/chat with this
    HTTP status and ``{"error": status_message}``; ``token_delay``: seconds between chunks;
    ``redirect_to``: answer every request with a 307 to this base URL (a hostile proxy).

    Models are described as Ollama does: ``/api/tags`` gives each one's family (a BERT-style
    family for embedding models: names with "embed" or "minilm", or ``families``), and
    ``/api/show`` its capabilities (``completion`` or ``embedding``; none with
    ``show_capabilities=False``, like servers before 0.6.4). ``/api/pull`` streams progress
    lines like Ollama's (``pulling manifest``, ``downloading <digest>`` with ``total`` and
    ``completed``, ``verifying sha256 digest``, ``writing manifest``, ``success``), adding the
    model before ``success``; ``pull_delay`` paces the lines, ``pull_error`` sends an
    ``{"error"}`` line instead, ``pullable`` (if set) limits which names exist in the registry.

    A follow-up's rewrite request (its prompt ends "Standalone search query:") is answered with
    ``rewrite_reply`` when set (else like any chat), after ``rewrite_delay`` seconds;
    ``rewrites()`` and ``answers()`` split the recorded chats.
    """

    reply: str = "Paris is the capital of France [1]."
    models: list[str] = field(default_factory=lambda: ["llama3.2:latest"])
    version: str = "0.6.5"
    context_length: int = 131072
    echo: bool = False
    hang: bool = False
    stall_after: int | None = None
    close_after: int | None = None
    malformed_after: int | None = None
    error_after: int | None = None
    status: int | None = None
    status_message: str = "internal server error"
    token_delay: float = 0.0
    redirect_to: str | None = None
    families: dict[str, str] = field(default_factory=dict)  # model name -> family
    show_capabilities: bool = True
    pull_delay: float = 0.0
    pull_steps: int = 4  # progress lines per layer
    pull_error: str | None = None
    pullable: set[str] | None = None
    rewrite_reply: str | None = None
    rewrite_delay: float = 0.0
    # A grounding model: a request "Document: …\nClaim: …" is answered by grounding(doc, claim)
    grounding: Callable[[str, str], str] | None = None
    pulls_finished: int = 0
    requests: list[Recorded] = field(default_factory=list)
    stalled: threading.Event = field(default_factory=threading.Event)
    client_gone: threading.Event = field(default_factory=threading.Event)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _server: ThreadingHTTPServer | None = None

    def start(self, port: int = 0) -> FakeOllama:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="fake-ollama", daemon=True
        ).start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def chats(self) -> list[Recorded]:
        return [r for r in self.requests if r.path == "/api/chat"]

    def rewrites(self) -> list[Recorded]:
        return [r for r in self.chats() if is_rewrite(r.body)]

    def answers(self) -> list[Recorded]:
        return [r for r in self.chats() if not is_rewrite(r.body)]

    def knows(self, model: str) -> bool:
        return _full(model) in self.models

    def family(self, model: str) -> str:
        name = _full(model)
        if name in self.families or model in self.families:
            return self.families.get(name) or self.families[model]
        return "nomic-bert" if re.search(r"embed|minilm", name) else "llama"

    def embedding_only(self, model: str) -> bool:
        return self.family(model) in ("bert", "nomic-bert")

    def answer_for(self, body: dict[str, Any]) -> str:
        """The scripted reply, or in ``echo`` mode the first sentence of source 1, cited."""
        if self.rewrite_reply is not None and is_rewrite(body):
            return self.rewrite_reply
        user = next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"), "")
        if self.grounding is not None and user.startswith("Document: "):
            document, _, claim = user[len("Document: ") :].rpartition("\nClaim: ")
            return self.grounding(document, claim)
        if not self.echo:
            return self.reply
        user = next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"), "")
        found = _FIRST_SOURCE.search(user)
        if not found:
            return "The sources do not contain the answer."
        text = " ".join(found.group(1).split())
        sentence = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0].rstrip(".!?")
        return f"{sentence} [1]."

    def wait_stopped_or_gone(self, conn: socket.socket) -> None:
        """Block until the server stops or the client closes the connection."""
        while not self._stopping.is_set():
            readable, _, _ = select.select([conn], [], [], 0.05)
            if readable:
                try:
                    if conn.recv(1, socket.MSG_PEEK) == b"":
                        self.client_gone.set()
                        return
                except OSError:
                    self.client_gone.set()
                    return


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeOllama

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _record(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.fake.requests.append(Recorded(self.command, self.path, headers, body))
        return body

    def _json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def _redirected(self) -> bool:
        if self.fake.redirect_to is None:
            return False
        self.send_response(307)
        self.send_header("Location", self.fake.redirect_to.rstrip("/") + self.path)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        return True

    def do_GET(self) -> None:
        self._record()
        if self._redirected():
            return
        if self.path == "/api/version":
            self._json(200, {"version": self.fake.version})
        elif self.path == "/api/tags":
            entries = [_model_entry(name, self.fake.family(name)) for name in self.fake.models]
            self._json(200, {"models": entries})
        else:
            self._json(404, {"error": "404 page not found"})

    def do_POST(self) -> None:
        body = self._record()
        if self._redirected():
            return
        if self.path == "/api/show":
            model = (body or {}).get("model", "")
            if not self.fake.knows(model):
                self._json(404, {"error": f"model '{model}' not found"})
                return
            family = self.fake.family(model)
            info = {
                "general.architecture": family,
                f"{family}.context_length": self.fake.context_length,
            }
            shown: dict[str, Any] = {
                "modelfile": "",
                "parameters": "",
                "template": "{{ .Prompt }}",
                "details": _model_entry(model, family)["details"],
                "model_info": info,
            }
            if self.fake.show_capabilities:
                embedding = self.fake.embedding_only(model)
                shown["capabilities"] = ["embedding"] if embedding else ["completion", "tools"]
            self._json(200, shown)
        elif self.path == "/api/chat":
            self._chat(body or {})
        elif self.path == "/api/pull":
            self._pull(body or {})
        else:
            self._json(404, {"error": "404 page not found"})

    def _chat(self, body: dict[str, Any]) -> None:
        fake, model = self.fake, body.get("model", "")
        if fake.hang:
            fake.stalled.set()
            fake.wait_stopped_or_gone(self.connection)
            self.close_connection = True
            return
        if fake.status is not None:
            self._json(fake.status, {"error": fake.status_message})
            return
        if not fake.knows(model):
            self._json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        if fake.embedding_only(model):
            self._json(400, {"error": f'"{model}" does not support chat'})
            return
        tokens = _TOKEN.findall(fake.answer_for(body))
        if fake.rewrite_delay and is_rewrite(body) and fake._stopping.wait(fake.rewrite_delay):
            return
        if body.get("stream") is False:
            self._json(200, _chunk(model, "".join(tokens), done=True))
            return
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.close_connection = True
            self._stream(model, tokens)
        except OSError:  # the client hung up (a cancel): that is what the tests look for
            fake.client_gone.set()

    def _stream(self, model: str, tokens: list[str]) -> None:
        fake = self.fake
        for i, tok in enumerate(tokens):
            if i == fake.stall_after:
                fake.stalled.set()
                fake.wait_stopped_or_gone(self.connection)
                return
            if i == fake.close_after:
                self.connection.shutdown(socket.SHUT_RDWR)  # no terminating chunk: a broken body
                return
            if i == fake.malformed_after:
                self._write_chunk(b'{"model": "broken", "message": {"content": \n')
                self._write_chunk(b"")
                return
            if i == fake.error_after:
                self._write_line({"error": "an error was encountered while running the model"})
                self._write_chunk(b"")
                return
            if fake.token_delay and i and fake._stopping.wait(fake.token_delay):
                return
            self._write_line(_chunk(model, tok, done=False))
        final = _chunk(model, "", done=True)
        final.update(
            done_reason="stop",
            total_duration=1_000_000,
            load_duration=1000,
            prompt_eval_count=26,
            prompt_eval_duration=1000,
            eval_count=len(tokens),
            eval_duration=1000,
        )
        self._write_line(final)
        self._write_chunk(b"")

    def _pull(self, body: dict[str, Any]) -> None:
        """Stream progress lines like Ollama's ``/api/pull``, then install the model."""
        fake, model = self.fake, _full(body.get("model") or body.get("name") or "")
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.close_connection = True
        try:
            self._write_line({"status": "pulling manifest"})
            if fake.pullable is not None and model not in fake.pullable:
                self._write_line({"error": "pull model manifest: file does not exist"})
                self._write_chunk(b"")
                return
            if fake.pull_error:
                self._write_line({"error": fake.pull_error})
                self._write_chunk(b"")
                return
            for layer, total in enumerate((2_019_377_376, 1_429)):
                digest = f"sha256:{layer:02d}" + "dde5aa3fc5ffc17176b5e8bdc82f587b24b2678c6c6"
                for step in range(fake.pull_steps + 1):
                    if fake.pull_delay and fake._stopping.wait(fake.pull_delay):
                        return
                    line = {
                        "status": f"downloading {digest}",
                        "digest": digest,
                        "total": total,
                        "completed": total * step // fake.pull_steps,
                    }
                    self._write_line(line)
            for status in ("verifying sha256 digest", "writing manifest"):
                self._write_line({"status": status})
            # Installed before "success" is sent, as Ollama does (its manifest is written by
            # then): a client that returns on "success" finds the model listed.
            if model not in fake.models:
                fake.models.append(model)
            fake.pulls_finished += 1
            self._write_line({"status": "success"})
            self._write_chunk(b"")
        except OSError:  # the client hung up: a cancelled pull installs nothing
            fake.client_gone.set()

    def _write_line(self, obj: dict[str, Any]) -> None:
        self._write_chunk(json.dumps(obj).encode() + b"\n")

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def is_rewrite(body: Any) -> bool:
    """True for a follow-up's rewrite request (not an answer request)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    last = messages[-1].get("content", "") if messages else ""
    return isinstance(last, str) and last.rstrip().endswith("Standalone search query:")


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _chunk(model: str, content: str, *, done: bool) -> dict[str, Any]:
    return {
        "model": model,
        "created_at": _now(),
        "message": {"role": "assistant", "content": content},
        "done": done,
    }


def _full(model: str) -> str:
    return model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"


def _model_entry(name: str, family: str = "llama") -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": _now(),
        "size": 2019393189,
        "digest": "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": family,
            "families": [family],
            "parameter_size": "22.6M" if family in ("bert", "nomic-bert") else "3.2B",
            "quantization_level": "Q4_K_M",
        },
    }


def main(argv: list[str] | None = None) -> None:
    """Run the fake server in the foreground until Ctrl-C."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=11434)
    parser.add_argument("--reply", default=FakeOllama.reply)
    parser.add_argument("--echo", action="store_true", help="answer with source 1's sentence")
    parser.add_argument("--models", default="llama3.2:latest", help="comma-separated")
    parser.add_argument("--token-delay", type=float, default=0.03)
    args = parser.parse_args(argv)
    fake = FakeOllama(
        reply=args.reply,
        echo=args.echo,
        token_delay=args.token_delay,
        models=[m.strip() for m in args.models.split(",") if m.strip()],
    )
    fake.start(args.port)
    print(f"fake Ollama listening on {fake.url} (Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()


if __name__ == "__main__":
    main()
