#!/usr/bin/env bash
# Create (or reuse) the project's virtual environment in .venv and install the project
# into it with the extras named in $1 (default: none), and always `translate`: a source
# checkout has no compiled catalogs and compiles them in memory with Babel (--lang, labels).
# Prints one line per step.
#
# When .venv already holds this checkout (an editable install of this folder, at the version
# pyproject.toml states, its commands in .venv/bin) and every requirement pyproject.toml names
# for those extras is installed at an allowed version, there is nothing to install and pip is
# not run (it would rebuild the editable wheel in a fresh build environment: about 25 s).
# Set BODYGRAPH_REINSTALL=1 to install anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="translate${1:+,$1}"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $("$python" --version)"
  "$python" -m venv .venv
fi
if [ -z "${BODYGRAPH_REINSTALL:-}" ] && env -u PYTHONPATH .venv/bin/python - "$extras" <<'EOF'
"""Exit 0 if .venv already holds this checkout with every requirement of the extras."""
import json
import sys
import tomllib
from importlib import metadata
from pathlib import Path

try:
    from packaging.requirements import Requirement
except ImportError:  # not in a .venv without the test tools: pip's own copy
    try:
        from pip._vendor.packaging.requirements import Requirement
    except ImportError:
        sys.exit(1)

project = tomllib.loads(Path("pyproject.toml").read_text())["project"]
name = project["name"]
try:
    installed = metadata.distribution(name)
    origin = json.loads(installed.read_text("direct_url.json") or "{}")
except (metadata.PackageNotFoundError, ValueError):
    sys.exit(1)
if (installed.version != project["version"]
        or origin.get("url") != Path.cwd().resolve().as_uri()
        or not origin.get("dir_info", {}).get("editable")
        or not all((Path(".venv/bin") / script).exists() for script in project.get("scripts", {}))):
    sys.exit(1)

wanted = [(text, "") for text in project.get("dependencies", [])]
extras, seen = [e for e in sys.argv[1].split(",") if e], set()
while extras:
    extra = extras.pop()
    if extra not in seen:
        seen.add(extra)
        for text in project.get("optional-dependencies", {}).get(extra, []):
            requirement = Requirement(text)
            if requirement.name == name:
                extras.extend(requirement.extras)
            else:
                wanted.append((text, ""))
checked = set()
while wanted:  # (requirement, the extra of its dependant it came from)
    text, extra = wanted.pop()
    if (text, extra) in checked:
        continue
    checked.add((text, extra))
    requirement = Requirement(text)
    if requirement.marker and not requirement.marker.evaluate({"extra": extra}):
        continue
    try:
        version = metadata.version(requirement.name)
    except metadata.PackageNotFoundError:
        sys.exit(1)
    if not requirement.specifier.contains(version, prereleases=True):
        sys.exit(1)
    for text in metadata.requires(requirement.name) or []:  # and what its extras add
        wanted.extend((text, extra) for extra in requirement.extras)
EOF
then
  echo "==> .venv already holds bodygraph[$extras] from this checkout: nothing to install"
  exit 0
fi
# pip() hides only the notes this machine's pip configuration prints about local mirror
# folders that do not exist; every other line, and pip's exit status, come through.
pip() {
  .venv/bin/python -m pip "$@" 2>&1 | { grep -v "^WARNING: Location 'file:" || true; }
}
pip install --quiet --disable-pip-version-check --upgrade pip
echo "==> installing bodygraph with extras [$extras] into .venv"
pip install --quiet --disable-pip-version-check -e ".[$extras]"
