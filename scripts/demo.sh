#!/usr/bin/env bash
# Newcomer command 1: set everything up and print a real chart.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "==> bodygraph chart --utc 1980-01-03T08:30:00Z"
exec .venv/bin/bodygraph chart --utc 1980-01-03T08:30:00Z "$@"
