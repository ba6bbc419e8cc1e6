"""The ``footnotes`` command line: one module per command, the shared helpers in ``common``."""

from app.cli.main import main

__all__ = ["main"]
