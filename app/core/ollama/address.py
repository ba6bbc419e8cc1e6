"""Where Ollama is: the address as a person writes it, checked and completed like Ollama's own
CLI does, and whether talking to it crosses the network unencrypted. No network access here."""

from __future__ import annotations

import importlib
import ipaddress
import os
import sys
import urllib.parse
from types import ModuleType

from app.core.config import DEFAULT_OLLAMA_HOST, host_problem

__all__ = ["display_host", "host_problem", "import_ollama", "is_local_host", "plain_http_warning"]

DEFAULT_OLLAMA_PORT = 11434


def display_host(host: str | None) -> str:
    """The full server URL, defaulted like Ollama's CLI: ``0.0.0.0`` -> ``http://0.0.0.0:11434``."""
    raw = (host or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST).strip().rstrip("/")
    if "://" in raw:
        return raw
    parts = urllib.parse.urlsplit(f"http://{raw}")
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = parts.netloc if port is not None else f"{parts.netloc}:{DEFAULT_OLLAMA_PORT}"
    return urllib.parse.urlunsplit(("http", netloc, parts.path, "", ""))


def is_local_host(host: str | None) -> bool:
    """Whether ``host`` is this computer (loopback, ``localhost``, or ``0.0.0.0``)."""
    name = (urllib.parse.urlsplit(display_host(host)).hostname or "").lower().rstrip(".")
    if name in ("", "localhost") or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def plain_http_warning(host: str | None) -> str | None:
    """A warning for plain HTTP to another computer, else None (local or HTTPS is fine)."""
    url = display_host(host)
    if urllib.parse.urlsplit(url).scheme != "http" or is_local_host(url):
        return None
    return (
        f"{url} is another computer reached over plain HTTP: your questions and the passages "
        "from your files cross the network unencrypted. Use https:// (or an SSH tunnel) "
        "unless this network is trusted."
    )


def import_ollama() -> ModuleType:
    """The ``ollama`` package, imported so that a bad $OLLAMA_HOST cannot crash the import.

    The package builds a default client from $OLLAMA_HOST when imported, and a port out of
    range raises there, before any command could say why. Footnotes never uses that client
    (every call goes through a client made for a checked host), so a value it would reject is
    hidden for the import; the front ends report the bad value themselves.
    """
    if "ollama" in sys.modules:
        return sys.modules["ollama"]
    raw = os.environ.get("OLLAMA_HOST")
    if raw is None or host_problem(raw) is None:
        return importlib.import_module("ollama")
    del os.environ["OLLAMA_HOST"]
    try:
        return importlib.import_module("ollama")
    finally:
        os.environ["OLLAMA_HOST"] = raw
