"""Defined channels and centers, and connectivity between centers.

Connectivity is a search over the defined channels (centers are the nodes, merged into
groups), never a list of channel combinations.
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
    """Build the center graph of a set of defined channels: each channel joins the groups
    its two centers are in (the centers as bits), the groups in the order of their
    alphabetically first center. No cache: as fast as a cache's lookup on a batch, and
    nothing to grow in a long-running process (docs/performance.md)."""
    bits, groups = _center_bits()
    found: list[int] = []
    for channel in channels:
        a, b = channel.centers
        merged = bits[a] | bits[b]
        apart = []
        for group in found:
            if group & merged:
                merged |= group
            else:
                apart.append(group)
        apart.append(merged)
        found = apart
    found.sort(key=lambda group: group & -group)  # its lowest bit: its first center
    return CenterGraph(tuple(groups[group] for group in found))


@cache
def _center_bits() -> tuple[dict[str, int], tuple[frozenset[str], ...]]:
    """A bit per center, in alphabetical order, and the centers of every set of bits."""
    names = sorted({name for channel in tables().channels for name in channel.centers})
    bits = {name: 1 << index for index, name in enumerate(names)}
    groups = tuple(frozenset(name for name in names if mask & bits[name])
                   for mask in range(1 << len(names)))
    return bits, groups
