"""Footnotes: answers from your own files, every claim pointing at its passage."""

__version__ = "0.1.0"
