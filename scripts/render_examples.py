"""Regenerate the example bodygraph images in ``docs/images/`` (PNG, through cairosvg).

    .venv/bin/python scripts/render_examples.py [--out docs/images] [--scale 1.5]

Needs the ``png`` extra (cairosvg) and the system cairo library. The charts are
calculated from fixed UTC instants with the shipped ephemeris, so reruns give the
same pictures: three charts in the default theme, the first one in every other preset
and in the compact variant, a transit over it, a connection of two of them and the
mandala wheel of the first with the transit.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

import bodygraph
from bodygraph import render
from bodygraph.render import ConnectionInput, RenderInput, Theme, TransitInput, WheelInput
from bodygraph.render.raster import svg_to_png

EXAMPLES: dict[str, datetime] = {
    "bodygraph-manifesting-generator": datetime(2001, 5, 21, 6, 5, tzinfo=UTC),
    "bodygraph-projector": datetime(1970, 1, 1, 6, 15, tzinfo=UTC),
    "bodygraph-reflector": datetime(1976, 4, 23, 16, 30, tzinfo=UTC),
}
TRANSIT = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def main(argv: list[str] | None = None) -> int:
    """Write one PNG per example and print what was written."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parents[1] / "docs/images")
    parser.add_argument("--scale", type=float, default=1.5)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    charts = {name: bodygraph.calculate(birth) for name, birth in EXAMPLES.items()}
    for name, chart in charts.items():
        path = render.png(chart, args.out / f"{name}.png", scale=args.scale)
        print(f"{path}: {chart.type.value} {chart.profile}, "
              f"born {EXAMPLES[name]:%Y-%m-%d %H:%M} UTC")
    first = charts["bodygraph-manifesting-generator"]
    for preset in ("dark", "print", "high-contrast"):
        path = render.png(first, args.out / f"theme-{preset}.png", Theme.preset(preset),
                          scale=1.0)
        print(f"{path}: the first chart in the {preset} theme")
    compact = Theme.from_dict({"variant": "compact", "show_summary": True})
    path = render.png(first, args.out / "compact.png", compact, scale=300 / 484)
    print(f"{path}: the compact variant at 300 px wide")
    natal = RenderInput.from_chart(first)
    now = bodygraph.calculate(TRANSIT).personality
    transit = TransitInput.from_gate_lines(natal, [(a.gate, a.line) for a in now])
    path = render.png(transit, args.out / "transit.png", scale=1.0)
    print(f"{path}: the first chart with the transit of {TRANSIT:%Y-%m-%d %H:%M} UTC")
    other = RenderInput.from_chart(charts["bodygraph-projector"])
    connection = ConnectionInput(natal, other, "Manifesting Gen", "Projector")
    path = render.png(connection, args.out / "connection.png", scale=1.0)
    print(f"{path}: a connection of the first two charts")
    wheel = WheelInput.from_chart(first, bodygraph.calculate(TRANSIT),
                                  transit_label=f"Transit {TRANSIT:%Y-%m-%d %H:%M} UTC")
    path = args.out / "wheel.png"
    path.write_bytes(svg_to_png(render.wheel_svg(wheel), scale=1.0))
    print(f"{path}: the mandala wheel of the first chart with the same transit")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
