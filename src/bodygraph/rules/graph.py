"""Defined channels and centers, and connectivity between centers.

Connectivity is a graph search over the defined channels (centers are the
nodes), never a list of channel combinations.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from bodygraph.catalog.tables import Channel, tables


def defined_channels(gates: Iterable[int]) -> tuple[Channel, ...]:
    """Channels whose two gates are both activated, sorted as their short names."""
    active = set(gates)
    found = [c for c in tables().channels if c.gates[0] in active and c.gates[1] in active]
    return tuple(sorted(found, key=lambda c: c.short))


@dataclass(frozen=True, slots=True)
class CenterGraph:
    """The defined centers and the groups (connected components) they form."""

    components: tuple[frozenset[str], ...]

    @property
    def defined(self) -> frozenset[str]:
        """Every defined center."""
        return frozenset().union(*self.components)

    def connected(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are both defined and joined by defined channels."""
        return any(a in group and b in group for group in self.components)


def center_graph(channels: Iterable[Channel]) -> CenterGraph:
    """Build the center graph of a set of defined channels (breadth-first search)."""
    return _center_graph(frozenset(channels))


@cache
def _center_graph(channels: frozenset[Channel]) -> CenterGraph:
    neighbours: dict[str, set[str]] = {}
    for channel in channels:
        a, b = channel.centers
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    seen: set[str] = set()
    components: list[frozenset[str]] = []
    for start in sorted(neighbours):
        if start in seen:
            continue
        group = {start}
        frontier = [start]
        while frontier:
            for nxt in neighbours[frontier.pop()]:
                if nxt not in group:
                    group.add(nxt)
                    frontier.append(nxt)
        seen |= group
        components.append(frozenset(group))
    return CenterGraph(tuple(components))
