#!/usr/bin/env bash
# Create (or reuse) the project's virtual environment in .venv and install the project
# into it with the extras named in $1 (default: none). Prints one line per step.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $("$python" --version)"
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
spec="."
[ -n "$extras" ] && spec=".[$extras]"
echo "==> installing bodygraph${extras:+ with extras [$extras]} into .venv"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e "$spec"
