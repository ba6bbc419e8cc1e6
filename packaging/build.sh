#!/usr/bin/env bash
# Build the one-folder desktop package: dist/footnotes/footnotes (plus everything it needs).
#
#   packaging/build.sh            # uses .venv/bin/python, or $PYTHON
#
# Installs PyInstaller into that environment if it is missing, builds from
# packaging/footnotes.spec, checks that the result answers --version, and prints its size.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
if [[ ! -x "$PYTHON" ]]; then
    echo "No Python at $PYTHON: run scripts/setup.sh first, or set PYTHON." >&2
    exit 1
fi

if ! "$PYTHON" -c "import PyInstaller" 2>/dev/null; then
    echo "Installing PyInstaller into $("$PYTHON" -c 'import sys; print(sys.prefix)')"
    "$PYTHON" -m pip install --quiet "pyinstaller>=6"
fi

start=$(date +%s)
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" \
    "$ROOT/packaging/footnotes.spec"
elapsed=$(( $(date +%s) - start ))

app="$ROOT/dist/footnotes/footnotes"
# A throw-away HOME: a first start must not need (or write) anything in the user's home.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
version="$(HOME="$scratch" "$app" --version)"

echo
echo "Built $version in ${elapsed}s: $app"
du -sh "$ROOT/dist/footnotes"
