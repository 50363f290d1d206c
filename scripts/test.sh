#!/usr/bin/env bash
# Newcomer command 2: set everything up and run the whole test suite (plus type and lint
# checks). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
echo "==> ruff"
.venv/bin/ruff check src tests scripts examples benchmarks
echo "==> mypy --strict src"
.venv/bin/mypy
echo "==> pytest"
exec .venv/bin/python -m pytest "$@"
