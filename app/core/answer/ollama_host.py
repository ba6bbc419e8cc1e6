"""Where Ollama is: the address as a person writes it, checked and completed like Ollama's own
CLI does, and whether talking to it crosses the network unencrypted. No network access here."""

from __future__ import annotations

import ipaddress
import os
import urllib.parse

from app.core.config import DEFAULT_OLLAMA_HOST

DEFAULT_OLLAMA_PORT = 11434


def host_problem(host: str) -> str | None:
    """Why ``host`` cannot be an Ollama address (None when it can): an http(s) URL or a
    host[:port] with a name and a port from 1 to 65535."""
    raw = host.strip()
    if not raw or any(c.isspace() for c in raw):
        return "an address holds no spaces"
    parts = urllib.parse.urlsplit(raw if "://" in raw else f"http://{raw}")
    if parts.scheme not in ("http", "https"):
        return f"it should start with http:// or https://, not {parts.scheme}://"
    if not parts.hostname:
        return "it names no host"
    try:
        port = parts.port
    except ValueError:
        return "its port should be a number from 1 to 65535"
    if port == 0:
        return "its port should be a number from 1 to 65535"
    return None


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
