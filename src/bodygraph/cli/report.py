"""A chart as readable text for the terminal."""

from __future__ import annotations

from datetime import UTC, datetime

from bodygraph.catalog.tables import CENTER_NAMES, reading_order, tables
from bodygraph.model.chart import BODIES, Activation, Chart

_LABELS = {
    "sun": "Sun", "earth": "Earth", "northNode": "North Node", "southNode": "South Node",
    "moon": "Moon", "mercury": "Mercury", "venus": "Venus", "mars": "Mars",
    "jupiter": "Jupiter", "saturn": "Saturn", "uranus": "Uranus", "neptune": "Neptune",
    "pluto": "Pluto",
}


def _cell(a: Activation) -> str:
    return f"{a.gate:>2}.{a.line}  c{a.color} t{a.tone} b{a.base}  {a.longitude:9.5f}°"


def utc_seconds_text(instant: datetime) -> str:
    """An instant for a reader: ``YYYY-MM-DD HH:MM:SS UTC``."""
    return instant.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def render_text(chart: Chart) -> str:
    """A readable multi-line summary: properties, centers, channels (in reading order),
    both columns."""
    profile_name = " / ".join(tables().profile_names[chart.profile])
    defined = set(chart.centers)
    open_centers = [c for c in CENTER_NAMES if c not in defined]
    rows = [
        f"Human Design chart   birth {utc_seconds_text(chart.birth_utc)}   "
        f"design {utc_seconds_text(chart.design_utc)}",
        "",
        f"  Type           {chart.type.value}",
        f"  Strategy       {chart.strategy}",
        f"  Authority      {chart.authority.value}",
        f"  Profile        {chart.profile} ({profile_name})",
        f"  Definition     {chart.definition.value}",
        f"  Cross          {chart.incarnation_cross}",
        f"  Signature      {chart.signature}   not-self theme: {chart.not_self_theme}",
        f"  Variables      {chart.variables}",
        f"    determination {chart.determination}, cognition {chart.cognition}, "
        f"environment {chart.environment}",
        f"    motivation {chart.motivation} (transference {chart.transference}), "
        f"perspective {chart.perspective} (distraction {chart.distraction})",
        f"  Circuitries    {chart.circuitries or '-'}",
        f"  Centers        {', '.join(chart.centers) or 'none defined'}",
        f"  Open           {', '.join(open_centers) or 'none'}",
        "  Channels       " + (
            ("\n" + " " * 17).join(f"{c.short:<6} {c.name}"
                                    for c in sorted(chart.channels, key=reading_order))
            or "none"
        ),
        "",
        f"  {'':<11} {'Design':<34} {'Personality':<34}",
    ]
    for body in BODIES:
        rows.append(
            f"  {_LABELS[body.value]:<11} {_cell(chart.design[body]):<34} "
            f"{_cell(chart.personality[body]):<34}"
        )
    rows.append(f"\n  node: {chart.node}")
    return "\n".join(rows)
