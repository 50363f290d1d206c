"""Byte-for-byte snapshots of the SVG for several hand-built charts.

Snapshots live in ``tests/render/snapshots/<name>.svg``: every named chart in the
default theme, the generator in each other preset, the compact variant and a bare one
(columns, header and legend hidden, summary shown), a transit and a connection. After an
intended change to the drawing, regenerate them and review the diff (and the images)
before committing::

    BODYGRAPH_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/render/test_snapshots.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bodygraph.render import RenderInput, Theme, render_svg

from .charts import NAMED, connection_input, named_chart, transit_input

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("BODYGRAPH_UPDATE_SNAPSHOTS") == "1"

CASES: dict[str, tuple[str, Theme | None]] = {name: (name, None) for name in NAMED}
for _preset in ("dark", "print", "high-contrast"):
    CASES[f"generator-{_preset}"] = ("generator", Theme.preset(_preset))
CASES["generator-names"] = ("generator", Theme.from_dict({"planet_labels": "name"}))
CASES["generator-compact"] = ("generator", Theme.from_dict({"variant": "compact",
                                                            "show_summary": True}))
CASES["generator-bare"] = ("generator", Theme.from_dict({
    "show_design": False, "show_personality": False, "show_header": False,
    "show_legend": False, "show_summary": True}))
CASES["transit"] = ("transit", None)
CASES["connection"] = ("connection", None)


def draw(chart_name: str, theme: Theme | None) -> str:
    if chart_name == "transit":
        return render_svg(transit_input(), theme)
    if chart_name == "connection":
        return render_svg(connection_input(), theme)
    return render_svg(RenderInput.from_chart(named_chart(chart_name)), theme)


@pytest.mark.parametrize("case", sorted(CASES))
def test_svg_matches_snapshot(case: str) -> None:
    chart_name, theme = CASES[case]
    document = draw(chart_name, theme)
    path = SNAPSHOTS / f"{case}.svg"
    if UPDATE:
        path.write_text(document, encoding="utf-8", newline="\n")
    assert path.exists(), f"no snapshot {path.name}; see this module's docstring"
    assert document == path.read_text(encoding="utf-8"), (
        f"{path.name} differs; if the change is intended, regenerate (module docstring)"
    )


def test_no_stale_snapshots() -> None:
    on_disk = {p.stem for p in SNAPSHOTS.glob("*.svg")}
    assert on_disk == set(CASES)
