#!/usr/bin/env bash
# Newcomer command 2: set everything up and run the whole test suite (plus type and lint
# checks, and the import layers). Extra arguments go to pytest (`-n 0` runs it serially).
set -euo pipefail
cd "$(dirname "$0")/.."
# What the tests need from the system, installed from Debian's packages when missing (as
# root, with apt-get): the cairo library (PNG rendering), wrk (the load test's
# generator), chromium (the browser tests), a CJK font (fonts-noto-cjk: the Japanese and
# Chinese PNG images), Java 17 or newer (the Spark test), and the
# PostgreSQL and Redis that scripts/services.sh starts where none listens on their ports.
# Without root or apt-get, one line says what is missing, and nothing runs.
#
# The major version of the Java that Spark runs (JAVA_HOME's, else the one on PATH), from
# `java -version`: 8 for "1.8.0_392", 17 for "17.0.9", 21 for "21-ea"; empty if none runs.
java_major() {
  local java="${JAVA_HOME:+$JAVA_HOME/bin/}java" said line version quote='"'
  command -v "$java" >/dev/null || return 0
  said="$("$java" -version 2>&1)" || return 0
  line="$(grep ' version "' <<<"$said")" || return 0
  version="${line#*$quote}"
  version="${version%%$quote*}"
  case "$version" in 1.*) version="${version#1.}" ;; esac
  echo "${version%%[!0-9]*}"
}
missing=()
note=""
ldconfig -p 2>/dev/null | grep -q 'libcairo\.so\.2' || missing+=(libcairo2)
command -v wrk >/dev/null || missing+=(wrk)
[ -x /usr/bin/chromium ] || missing+=(chromium)
fc-list :lang=ja 2>/dev/null | grep -q . || missing+=(fonts-noto-cjk)
java_version="$(java_major)"
if [ -z "$java_version" ]; then
  missing+=(default-jre-headless)
elif [ "$java_version" -lt 17 ]; then
  missing+=(openjdk-17-jre-headless)
  note=" (the Spark test needs Java 17 or newer, this is Java $java_version)"
fi
read -r -a servers <<<"$(bash scripts/services.sh packages)"
missing+=("${servers[@]}")
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "error: the tests need ${missing[*]}$note: as root, apt-get install" \
      "${missing[*]} (or their equivalents on this system)" >&2
    exit 1
  fi
  echo "==> installing system packages: ${missing[*]}"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq "${missing[@]}" >/dev/null) \
    || { echo "error: could not install ${missing[*]} with apt-get" >&2; exit 1; }
  java_version="$(java_major)"
  if [ "${java_version:-0}" -lt 17 ]; then
    echo "error: the Spark test needs Java 17 or newer, and the java it runs" \
      "(${JAVA_HOME:-on PATH}) is ${java_version:+Java }${java_version:-missing}:" \
      "set JAVA_HOME to a Java 17 or newer" >&2
    exit 1
  fi
fi
bash scripts/setup.sh test
# Every pytest worker, server and CLI the tests start compiles src/ and tests/ (and pytest
# rewrites its asserts) unless bytecode may be cached: keep it outside the tree, in .venv.
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="$PWD/.venv/pycache"
# The fast engine's numba code is compiled once and cached on disk (beside its modules).
# On a fresh clone that takes seconds of one core: compile everything the tests run
# compiled on the other core while the static checks run (tests/compiled_engine.py), so
# that the pytest workers load it from the cache instead of each compiling it in a test.
warm_log="$(mktemp)"
.venv/bin/python tests/compiled_engine.py >"$warm_log" 2>&1 &
warm=$!
# PostgreSQL and Redis: checked, or started for this run and stopped at its end.
services="$(mktemp -d)"
finish() {
  if [ -n "$warm" ]; then kill "$warm" 2>/dev/null || true; fi
  rm -f "$warm_log"
  bash scripts/services.sh stop "$services"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
bash scripts/services.sh start "$services"
echo "==> ruff"
.venv/bin/ruff check src tests scripts examples benchmarks
echo "==> mypy --strict src"
.venv/bin/mypy
echo "==> lint-imports (the layers, pyproject.toml [tool.importlinter])"
.venv/bin/lint-imports
# The docs site (`mkdocs build --strict`, the reference from the docstrings) is built once,
# by tests/docs/test_site.py, in a pytest worker.
warmed=0
wait "$warm" || warmed=$?
warm=""
if [ "$warmed" != 0 ]; then
  echo "error: compiling the fast engine (python tests/compiled_engine.py) failed:" >&2
  cat "$warm_log" >&2
  exit 1
fi
echo "==> $(tail -n 1 "$warm_log")"
# One pytest worker more than there are cores: many tests wait on a server, a browser or
# the JVM they started, and the extra worker uses the core they leave idle (2 cores, pytest
# alone, alternated: 61.3 and 61.8 s with 3 workers against 65.4 and 62.6 s with 2;
# tests/conftest.py starts the slow modules first).
workers=$(( $(nproc) + 1 ))
echo "==> pytest (tests and the doctests in src, $workers workers)"
status=0
.venv/bin/python -m pytest -n "$workers" --dist worksteal "$@" || status=$?
exit "$status"
