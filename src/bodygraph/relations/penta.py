"""Penta: the group chart of 3 to 5 people.

A penta is read from 12 gates of the G, Throat and Sacral centers and the 6 channels
between them; the group has a gate when any member has it, and defines a channel
when the group has both its gates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from bodygraph._time import utc_text
from bodygraph.catalog.tables import Channel
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import Chart
from bodygraph.relations.composite import short_names
from bodygraph.relations.labels import channel_labels
from bodygraph.rules.graph import defined_channels

#: The 6 penta channels, as gate pairs (lower, higher).
PENTA_CHANNEL_GATES: tuple[tuple[int, int], ...] = (
    (1, 8), (13, 33), (7, 31), (2, 14), (5, 15), (29, 46),
)
#: The 12 penta gates: those of the 6 channels, in numeric order.
PENTA_GATES: tuple[int, ...] = tuple(sorted(g for pair in PENTA_CHANNEL_GATES for g in pair))
#: How many members a penta has.
MIN_MEMBERS, MAX_MEMBERS = 3, 5


@cache
def penta_channels() -> tuple[Channel, ...]:
    """The 6 penta channels of the tables, sorted by short name as ``Chart.channels``."""
    return defined_channels(PENTA_GATES)


@dataclass(frozen=True, slots=True)
class Penta:
    """What a group of 3 to 5 people has of the penta."""

    #: the members' birth instants, in the order given
    members: tuple[datetime, ...]
    #: the penta gates any member has, in numeric order
    gates: tuple[int, ...]
    #: the penta channels the group defines, by short name
    channels: tuple[Channel, ...]

    @property
    def missing_gates(self) -> tuple[int, ...]:
        """The penta gates no member has."""
        return tuple(g for g in PENTA_GATES if g not in self.gates)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``bodygraph penta --json``."""
        return {
            "members": [utc_text(m) for m in self.members],
            "gates": [str(g) for g in self.gates],
            "channels": short_names(self.channels),
        }

    def labels(self, lang: str) -> dict[str, Any]:
        """The words of :meth:`to_dict` in ``lang``: ``{"channels": names}``."""
        return {"channels": channel_labels(self.channels, lang)}


def penta(charts: Sequence[Chart]) -> Penta:
    """The penta of 3 to 5 charts; other group sizes raise
    :class:`~bodygraph.errors.InvalidOptionError`.

    >>> from datetime import datetime, timezone
    >>> import bodygraph
    >>> group = [bodygraph.calculate(datetime(y, 1, 3, 8, 30, tzinfo=timezone.utc))
    ...          for y in (1980, 1983, 1990)]
    >>> [c.short for c in bodygraph.penta(group).channels]
    ['13-33', '2-14']
    """
    members = list(charts)
    if not MIN_MEMBERS <= len(members) <= MAX_MEMBERS:
        raise InvalidOptionError(
            f"a penta has {MIN_MEMBERS} to {MAX_MEMBERS} members, not {len(members)}")
    held = {g for chart in members for g in chart.gates}
    gates = tuple(g for g in PENTA_GATES if g in held)
    return Penta(
        members=tuple(chart.birth_utc for chart in members),
        gates=gates,
        channels=defined_channels(gates),
    )
