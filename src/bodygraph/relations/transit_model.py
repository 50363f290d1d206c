"""The transit types: the 13 bodies at an instant, alone or over a natal chart.

A transit is the personality-style calculation at an instant (no design side): exactly
the personality side :func:`bodygraph.calculate` gives for a birth at that instant. Over
a natal chart it completes channels (channels of the overlay, natal gates plus transit
gates, that the natal chart does not define) and defines new centers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bodygraph._time import utc_text
from bodygraph.catalog.tables import Channel
from bodygraph.catalog.translations import body_name
from bodygraph.model.chart import Chart, NodeKind, Side
from bodygraph.relations.composite import Composite, composite, short_names
from bodygraph.relations.labels import center_labels, channel_labels
from bodygraph.rules.graph import defined_channels
from bodygraph.rules.properties import gate_list


@dataclass(frozen=True, slots=True)
class NatalTransit:
    """What a transit does to a natal chart."""

    #: channels of the overlay that the natal chart does not define, by short name
    completed_channels: tuple[Channel, ...]
    #: centers the overlay defines and the natal chart does not, by name
    new_centers: tuple[str, ...]
    #: the chart of the natal gates and the transit gates together
    overlay: Composite

    def to_dict(self) -> dict[str, Any]:
        """``{"completedChannels", "newCenters", "overlay"}``."""
        return {
            "completedChannels": short_names(self.completed_channels),
            "newCenters": list(self.new_centers),
            "overlay": self.overlay.to_dict(),
        }

    def labels(self, lang: str) -> dict[str, Any]:
        """The words of :meth:`to_dict` in ``lang`` under its keys."""
        return {"completedChannels": channel_labels(self.completed_channels, lang),
                "newCenters": center_labels(self.new_centers, lang),
                "overlay": self.overlay.labels(lang)}


@dataclass(frozen=True, slots=True)
class Transit:
    """The sky at one instant, as Human Design reads it."""

    at: datetime
    node: NodeKind
    #: the 13 bodies (a personality-style side: sun, earth, nodes, moon ... pluto)
    activations: Side
    #: the gates, in order of first appearance in the chart's gate order
    gates: tuple[int, ...]
    #: channels the transit defines on its own, by short name
    channels: tuple[Channel, ...]
    #: with a natal chart: what the transit completes; otherwise None
    natal: NatalTransit | None

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``bodygraph transit --json``."""
        return {
            "at": utc_text(self.at),
            "activations": {a.body.value: str(a) for a in self.activations},
            "gates": [str(g) for g in self.gates],
            "channelsShort": short_names(self.channels),
            "natal": None if self.natal is None else self.natal.to_dict(),
        }

    def labels(self, lang: str) -> dict[str, Any]:
        """The words of :meth:`to_dict` in ``lang`` under its keys: each body's name
        (``activations``), each channel's name (``channelsShort``) and ``natal``'s words."""
        out: dict[str, Any] = {
            "activations": {a.body.value: body_name(a.body, lang) for a in self.activations},
            "channelsShort": channel_labels(self.channels, lang)}
        if self.natal is not None:
            out["natal"] = self.natal.labels(lang)
        return out


def natal_transit(natal_gates: Iterable[int], transit_gates: Iterable[int]) -> NatalTransit:
    """The channels and centers transit gates add to natal gates."""
    natal = composite(natal_gates)
    overlay = composite(natal.gates | frozenset(transit_gates))
    return NatalTransit(
        completed_channels=tuple(c for c in overlay.channels if c not in natal.channels),
        new_centers=tuple(c for c in overlay.centers if c not in natal.centers),
        overlay=overlay,
    )


def transit_of_side(at: datetime, node: NodeKind, side: Side,
                    natal: Chart | None = None) -> Transit:
    """A transit from the 13 activations at ``at`` (and the natal chart it falls on)."""
    gates = gate_list(side, side)
    return Transit(
        at=at,
        node=node,
        activations=side,
        gates=gates,
        channels=defined_channels(gates),
        natal=None if natal is None else natal_transit(natal.gates, gates),
    )
