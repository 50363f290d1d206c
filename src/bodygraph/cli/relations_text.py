"""Readable text of transits, connections and pentas (``bodygraph transit`` etc.), and
of the instants the time searches find."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from bodygraph.catalog.tables import Channel, reading_order
from bodygraph.cli.report import _LABELS, _cell, utc_seconds_text
from bodygraph.model.chart import Side
from bodygraph.relations import Composite
from bodygraph.relations.common import to_second

INDENT = " " * 22


def rounded_seconds_text(instant: datetime) -> str:
    """A found instant for a reader, rounded to the nearest second (:func:`utc_seconds_text`
    truncates): ``2024-03-20 03:06:00 UTC``."""
    return utc_seconds_text(to_second(instant))


def channel_lines(channels: Iterable[Channel]) -> str:
    """One channel a line (short name and name) in reading order, or ``none``."""
    return ("\n" + INDENT).join(f"{c.short:<6} {c.name}"
                                for c in sorted(channels, key=reading_order)) or "none"


def side_lines(side: Side) -> list[str]:
    """The 13 activations, one a line."""
    return [f"  {_LABELS[a.body.value]:<19} {_cell(a)}" for a in side]


def composite_text(chart: Composite) -> str:
    """``"Generator, Split Definition, Emotional authority"``."""
    return f"{chart.type.value}, {chart.definition.value}, {chart.authority.value} authority"


def composite_lines(title: str, chart: Composite) -> list[str]:
    """Type, definition, authority, centers and channels of a composite."""
    return [
        f"  {title:<19} {composite_text(chart)}",
        f"  {'Centers':<19} {', '.join(chart.centers) or 'none defined'}",
        f"  {'Channels':<19} {channel_lines(chart.channels)}",
    ]
