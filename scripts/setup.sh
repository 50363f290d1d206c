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
# pip() hides only the notes this machine's pip configuration prints about local mirror
# folders that do not exist; every other line, and pip's exit status, come through.
pip() {
  .venv/bin/python -m pip "$@" 2>&1 | { grep -v "^WARNING: Location 'file:" || true; }
}
pip install --quiet --disable-pip-version-check --upgrade pip
spec="."
[ -n "$extras" ] && spec=".[$extras]"
echo "==> installing bodygraph${extras:+ with extras [$extras]} into .venv"
pip install --quiet --disable-pip-version-check -e "$spec"
