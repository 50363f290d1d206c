#!/usr/bin/env bash
# Newcomer command 2: set everything up and run the whole test suite (plus type and lint
# checks). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
# System packages some tests need: the cairo library (PNG rendering), wrk (the load
# test's generator) and chromium (the browser test). Installed from Debian's packages only
# when missing.
missing=()
ldconfig -p 2>/dev/null | grep -q 'libcairo\.so\.2' || missing+=(libcairo2)
command -v wrk >/dev/null || missing+=(wrk)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null; then
  echo "==> installing system packages: ${missing[*]}"
  (apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null) \
    || echo "warning: could not install ${missing[*]}; the tests that need them will fail"
fi
bash scripts/setup.sh test
echo "==> ruff"
.venv/bin/ruff check src tests scripts examples benchmarks
echo "==> mypy --strict src"
.venv/bin/mypy
echo "==> pytest"
exec .venv/bin/python -m pytest "$@"
