"""Footnotes: answers from your own files, every claim pointing at its passage."""

__version__ = "0.1.0"

import os as _os

# onnxruntime writes a telemetry id under ~/.cache unless told not to before its first import;
# nothing may be written outside the data directory.
_os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
