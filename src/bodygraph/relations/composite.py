"""What a bare set of gates defines: the shared part of transits, connections and pentas.

A transit over a natal chart, and the composite of two charts, are charts without
activations of their own: only the union of two gate sets. Their type, definition,
authority, centers and channels follow from the gates by the very rules of a chart
(:mod:`bodygraph.rules.graph` and :mod:`bodygraph.rules.properties`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bodygraph.catalog.tables import Channel
from bodygraph.model.chart import Authority, ChartType, Definition
from bodygraph.relations.labels import center_labels, channel_labels, chart_words
from bodygraph.rules.graph import center_graph, defined_channels
from bodygraph.rules.properties import authority, chart_type, definition


@dataclass(frozen=True, slots=True)
class Composite:
    """The chart a set of gates defines (the overlay of a transit, the composite of a
    connection): ``centers`` sorted by name and ``channels`` by short name, as in a
    :class:`~bodygraph.Chart`."""

    gates: frozenset[int]
    type: ChartType
    definition: Definition
    authority: Authority
    centers: tuple[str, ...]
    channels: tuple[Channel, ...]

    @property
    def channels_short(self) -> list[str]:
        """The channels as ``"lower-higher"``, e.g. ``["13-33", "7-31"]``."""
        return short_names(self.channels)

    def to_dict(self) -> dict[str, Any]:
        """``{"type", "definition", "authority", "centers", "channelsShort"}`` with the
        chart's wordings."""
        return {
            "type": self.type.value,
            "definition": self.definition.value,
            "authority": self.authority.value,
            "centers": list(self.centers),
            "channelsShort": self.channels_short,
        }

    def labels(self, lang: str) -> dict[str, Any]:
        """The words of :meth:`to_dict` in ``lang`` under its keys; ``channelsShort``
        holds each channel's name (as ``channelsLong`` writes it)."""
        return {**chart_words(lang, type=self.type, authority=self.authority,
                              definition=self.definition),
                "centers": center_labels(self.centers, lang),
                "channelsShort": channel_labels(self.channels, lang)}


def composite(gates: Iterable[int]) -> Composite:
    """The type, definition, authority, centers and channels of a set of gates."""
    active = frozenset(gates)
    channels = defined_channels(active)
    graph = center_graph(channels)
    kind = chart_type(graph)
    return Composite(
        gates=active,
        type=kind,
        definition=definition(graph),
        authority=authority(graph, kind),
        centers=tuple(sorted(graph.defined)),
        channels=channels,
    )


def short_names(channels: Iterable[Channel]) -> list[str]:
    """``"lower-higher"`` of each channel, in the order given."""
    return [channel.short for channel in channels]
