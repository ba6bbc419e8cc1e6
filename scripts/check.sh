#!/usr/bin/env bash
# The static checks CI runs before the tests: architecture contracts, lint, format, types.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "==> lint-imports (architecture contracts in pyproject.toml)"
.venv/bin/lint-imports --no-cache
echo "==> ruff check"
.venv/bin/ruff check app tests bench
echo "==> ruff format --check"
.venv/bin/ruff format --check app tests bench
echo "==> mypy app (the core, the window, the command line and the evaluation)"
.venv/bin/mypy app
