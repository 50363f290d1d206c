"""Disk size of a fresh install of bodygraph, per distribution.

Creates a new virtual environment in a temporary directory, installs the project into it
with pip (the default install unless ``--extras`` is given; pip may use its cache), and
prints what every installed distribution takes on disk (allocated blocks, as ``du``
counts them), largest first, and the total the install added to the empty environment
(whose own pip and setuptools are not counted).

    python3 benchmarks/install_size.py [SOURCE] [--extras server,png] [--json] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: Run by the new environment's interpreter: disk bytes per installed distribution.
_PER_DISTRIBUTION = """
import json, os, sys
from importlib.metadata import distributions
sizes = {}
for dist in distributions():
    root = dist.locate_file("")
    total = 0
    for entry in dist.files or ():
        path = os.path.join(str(root), str(entry))
        try:
            total += os.lstat(path).st_blocks * 512
        except OSError:
            pass
    sizes[dist.metadata["Name"]] = sizes.get(dist.metadata["Name"], 0) + total
json.dump(sizes, sys.stdout)
"""


def disk_bytes(root: Path) -> int:
    """What the files under ``root`` take on disk (like ``du -s``)."""
    total = 0
    for directory, _, names in os.walk(root):
        for name in names:
            total += os.lstat(os.path.join(directory, name)).st_blocks * 512
    return total


def measure(source: str, extras: str, place: Path) -> dict[str, object]:
    """Install ``source`` into a new environment under ``place`` and measure it."""
    env = place / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    python = env / "bin" / "python"
    empty = disk_bytes(env)
    before = json.loads(subprocess.run([python, "-c", _PER_DISTRIBUTION], check=True,
                                       capture_output=True, text=True).stdout)
    target = f"{source}[{extras}]" if extras else source
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    target], check=True)
    after = json.loads(subprocess.run([python, "-c", _PER_DISTRIBUTION], check=True,
                                      capture_output=True, text=True).stdout)
    added = {name: size for name, size in after.items() if name not in before}
    return {"source": target, "total": disk_bytes(env) - empty,
            "distributions": dict(sorted(added.items(), key=lambda item: -item[1]))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--extras", default="", help="comma-separated extras to install too")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the environment")
    args = parser.parse_args()
    place = Path(tempfile.mkdtemp(prefix="bodygraph-size-"))
    try:
        figures = measure(args.source, args.extras, place)
    finally:
        if not args.keep:
            shutil.rmtree(place, ignore_errors=True)
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    print(f"{figures['source']}: {figures['total'] / 1e6:.1f} MB added to an empty venv")
    distributions = figures["distributions"]
    assert isinstance(distributions, dict)
    for name, size in distributions.items():
        print(f"  {size / 1e6:8.1f} MB  {name}")
    if args.keep:
        print(f"kept in {place}")


if __name__ == "__main__":
    main()
