#!/usr/bin/env bash
# Newcomer command 2: set everything up and run the whole test suite (plus type and lint
# checks). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! ldconfig -p 2>/dev/null | grep -q 'libcairo\.so\.2' && command -v apt-get >/dev/null; then
  echo "==> installing the system cairo library (PNG rendering tests)"
  (apt-get update -qq && apt-get install -y -qq libcairo2 >/dev/null) \
    || echo "warning: could not install libcairo2; PNG tests will fail"
fi
bash scripts/setup.sh test
echo "==> ruff"
.venv/bin/ruff check src tests scripts examples benchmarks
echo "==> mypy --strict src"
.venv/bin/mypy
echo "==> pytest"
exec .venv/bin/python -m pytest "$@"
