"""Where Ollama is: the address completed as Ollama's own CLI does, whether talking to it
crosses the network unencrypted, and an import of ``ollama`` a bad $OLLAMA_HOST cannot crash.
No network access."""

from __future__ import annotations

import importlib
import os
import sys

import pytest

from app.core.ollama.address import display_host, import_ollama, is_local_host, plain_http_warning


def test_host_is_completed_like_ollama_does(monkeypatch: pytest.MonkeyPatch) -> None:
    assert display_host("0.0.0.0") == "http://0.0.0.0:11434"
    assert display_host("localhost:1234/") == "http://localhost:1234"
    assert display_host("https://ollama.example.org") == "https://ollama.example.org"
    monkeypatch.setenv("OLLAMA_HOST", "10.0.0.5")
    assert display_host(None) == "http://10.0.0.5:11434"


def test_plain_http_to_another_computer_is_warned_about() -> None:
    for local in (
        "http://127.0.0.1:11434",
        "localhost:11434",
        "http://[::1]:11434",
        "0.0.0.0",
        "http://ollama.localhost:8080",
        None,
    ):
        assert is_local_host(local) and plain_http_warning(local) is None
    assert plain_http_warning("https://gpu-box.lan:11434") is None
    for remote in ("http://gpu-box.lan:11434", "10.0.0.5", "http://192.168.1.20:11434"):
        warning = plain_http_warning(remote)
        assert warning is not None and "unencrypted" in warning and "https://" in warning


def test_a_bare_host_gets_the_default_port_and_a_given_one_is_kept() -> None:
    assert display_host("localhost") == "http://localhost:11434"
    assert display_host("[::1]") == "http://[::1]:11434"
    assert display_host("  ollama.lan:8080  ") == "http://ollama.lan:8080"
    assert display_host("http://x:1/") == "http://x:1"


def test_the_default_is_this_computer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert display_host(None) == "http://127.0.0.1:11434"
    assert is_local_host(None)
    assert not is_local_host("http://ollama.example.org") and not is_local_host("10.0.0.5")


def test_a_bad_ollama_host_variable_cannot_crash_the_import(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The package builds a client from $OLLAMA_HOST as it is imported; a port out of range
    raises there. Imported again here as a first import would be (its parts stay loaded)."""
    monkeypatch.setenv("OLLAMA_HOST", "localhost:99999")
    monkeypatch.delitem(sys.modules, "ollama", raising=False)
    with pytest.raises(ValueError, match="Port"):
        importlib.import_module("ollama")  # what a plain import does
    monkeypatch.delitem(sys.modules, "ollama", raising=False)
    module = import_ollama()
    assert module.__name__ == "ollama" and hasattr(module, "Client")
    assert os.environ["OLLAMA_HOST"] == "localhost:99999"  # left for the front ends to report
    assert import_ollama() is module  # once imported, the same module
