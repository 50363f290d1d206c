"""Regenerate the example bodygraph images in ``docs/images/`` (PNG, through cairosvg).

    .venv/bin/python scripts/render_examples.py [--out docs/images] [--scale 1.5]

Needs the ``png`` extra (cairosvg) and the system cairo library. The charts are
calculated from fixed UTC instants with the shipped ephemeris, so reruns give the
same pictures.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

import bodygraph
from bodygraph import render

EXAMPLES: dict[str, datetime] = {
    "bodygraph-manifesting-generator": datetime(2001, 5, 21, 6, 5, tzinfo=UTC),
    "bodygraph-projector": datetime(1970, 1, 1, 6, 15, tzinfo=UTC),
    "bodygraph-reflector": datetime(1976, 4, 23, 16, 30, tzinfo=UTC),
}


def main(argv: list[str] | None = None) -> int:
    """Write one PNG per example and print what was written."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parents[1] / "docs/images")
    parser.add_argument("--scale", type=float, default=1.5)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, birth in EXAMPLES.items():
        chart = bodygraph.calculate(birth)
        path = render.png(chart, args.out / f"{name}.png", scale=args.scale)
        print(f"{path}: {chart.type.value} {chart.profile}, born {birth:%Y-%m-%d %H:%M} UTC")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
