"""Byte-for-byte snapshots of the SVG for several hand-built charts.

Snapshots live in ``tests/render/snapshots/<name>.svg``. After an intended change to
the drawing, regenerate them and review the diff (and the images) before committing::

    BODYGRAPH_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/render/test_snapshots.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bodygraph.render import Theme, svg

from .charts import NAMED, named_chart

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("BODYGRAPH_UPDATE_SNAPSHOTS") == "1"

CASES: dict[str, tuple[str, Theme | None]] = {name: (name, None) for name in NAMED}
CASES["generator-dark"] = ("generator", Theme.from_dict({
    "name": "dark", "background": "#15171c", "open_center": "#2a2e36",
    "center_outline": "#9aa3b0", "channel_outline": "#4a505b", "channel_empty": "#2a2e36",
    "design_color": "#ff6b6b", "personality_color": "#f5f7fa", "gate_text": "#c8ced8",
    "gate_active_text": "#15171c", "text_color": "#f5f7fa", "muted_text": "#9aa3b0",
    "planet_labels": "name",
}))


@pytest.mark.parametrize("case", sorted(CASES))
def test_svg_matches_snapshot(case: str) -> None:
    chart_name, theme = CASES[case]
    document = svg(named_chart(chart_name), theme)
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
