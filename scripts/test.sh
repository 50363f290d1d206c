#!/usr/bin/env bash
# Newcomer command 2: set everything up and run the whole test suite (plus type and lint
# checks, and the import layers). Extra arguments go to pytest (`-n 0` runs it serially).
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
# Every pytest worker, server and CLI the tests start compiles src/ and tests/ (and pytest
# rewrites its asserts) unless bytecode may be cached: keep it outside the tree, in .venv.
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="$PWD/.venv/pycache"
# The fast engine's numba functions are compiled once and cached on disk (next to their
# modules). On a fresh clone that takes seconds of one core: do it on the other core while
# the static checks run, instead of in every pytest worker at once. A failure here is left
# to the tests to report.
warm_log="$(mktemp)"
.venv/bin/python -c 'import datetime, bodygraph
bodygraph.calculate_many([datetime.datetime(1980, 1, 3, 8, 30, tzinfo=datetime.UTC)] * 2)' \
  >"$warm_log" 2>&1 &
warm=$!
trap 'kill "$warm" 2>/dev/null || true; rm -f "$warm_log"' EXIT
echo "==> ruff"
.venv/bin/ruff check src tests scripts examples benchmarks
echo "==> mypy --strict src"
.venv/bin/mypy
echo "==> lint-imports (the layers, pyproject.toml [tool.importlinter])"
.venv/bin/lint-imports
# The docs site (`mkdocs build --strict`, the reference from the docstrings) is built once,
# by tests/docs/test_site.py, in a pytest worker.
wait "$warm" || { echo "note: compiling the fast engine failed:"; cat "$warm_log"; }
trap - EXIT
rm -f "$warm_log"
# One pytest worker more than there are cores: many tests wait on a server, a browser or
# the JVM they started, and the extra worker uses the core they leave idle (2 cores, pytest
# alone, alternated: 61.3 and 61.8 s with 3 workers against 65.4 and 62.6 s with 2;
# tests/conftest.py starts the slow modules first).
workers=$(( $(nproc) + 1 ))
echo "==> pytest (tests and the doctests in src, $workers workers)"
exec .venv/bin/python -m pytest -n "$workers" --dist worksteal "$@"
