"""Transits over a natal chart, a connection chart, a penta, and a year of daily transits.

Run: python examples/transits_and_connections.py
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

import bodygraph


def main() -> None:
    me = bodygraph.calculate(datetime(1980, 1, 3, 8, 30, tzinfo=UTC))
    partner = bodygraph.calculate(datetime(1985, 7, 9, 14, 0, tzinfo=UTC))

    # The sky at one instant, over my chart
    now = bodygraph.transit(datetime(2024, 3, 20, 3, 6, tzinfo=UTC), natal=me)
    assert now.natal is not None
    print(f"Transit sun:        {now.activations.sun}")
    print(f"Completed channels: {', '.join(c.short for c in now.natal.completed_channels)}")
    print(f"Overlay type:       {now.natal.overlay.type.value}")

    # Two people
    pair = bodygraph.connection(me, partner)
    print(f"Electromagnetic:    {', '.join(c.short for c in pair.electromagnetic)}")
    print(f"Dominance:          "
          f"{', '.join(f'{d.channel.short} (person {d.person})' for d in pair.dominance)}")
    print(f"Composite:          {pair.composite.type.value}, {pair.composite.definition.value}")

    # A group of three
    friend = bodygraph.calculate(datetime(1990, 1, 3, 8, 30, tzinfo=UTC))
    group = bodygraph.penta([me, partner, friend])
    print(f"Penta channels:     {', '.join(c.short for c in group.channels)}")

    # Every day of 2025 at noon, at once: the days a transit completes 34-57 for me
    days = np.arange("2025-01-01T12:00", "2026-01-01T12:00", np.timedelta64(1, "D"),
                     dtype="datetime64[us]")
    year = bodygraph.transit_many(days, natal=me)
    hits = days[year.completes("34-57")]
    print(f"Days in 2025 when transits complete 34-57: {len(hits)}, first {str(hits[0])[:10]}"
          if len(hits) else "No day in 2025 completes 34-57")


if __name__ == "__main__":
    main()
