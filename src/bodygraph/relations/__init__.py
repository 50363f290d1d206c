"""Beyond one natal chart: transits, connection charts and pentas; birth-time
sensitivity, cycles and the ingress calendar.

Everything here is built from charts and the engine (``calculator``, ``rules``), never
the reverse. See ``docs/relations.md`` and
``docs/cycles-and-calendar.md``.
"""

from __future__ import annotations

from bodygraph.relations.calendar import Ingress, calendar
from bodygraph.relations.composite import Composite, composite
from bodygraph.relations.connection import (
    ChannelLink,
    Connection,
    ConnectionKind,
    classify,
    connection,
    connection_of_gates,
)
from bodygraph.relations.connection_table import ConnectionTable, connection_many
from bodygraph.relations.cycles import (
    saturn_returns,
    saturn_returns_many,
    solar_return,
    solar_returns,
    uranus_oppositions,
    uranus_oppositions_many,
)
from bodygraph.relations.penta import PENTA_CHANNEL_GATES, PENTA_GATES, Penta, penta
from bodygraph.relations.segments import GateLine, LineChange, Segment, Sensitivity
from bodygraph.relations.sensitivity import SensitivityTable, sensitivity, sensitivity_many
from bodygraph.relations.transit import transit, transit_many
from bodygraph.relations.transit_model import NatalTransit, Transit, natal_transit
from bodygraph.relations.transit_table import TransitTable

__all__ = [
    "PENTA_CHANNEL_GATES",
    "PENTA_GATES",
    "ChannelLink",
    "Composite",
    "Connection",
    "ConnectionKind",
    "ConnectionTable",
    "GateLine",
    "Ingress",
    "LineChange",
    "NatalTransit",
    "Penta",
    "Segment",
    "Sensitivity",
    "SensitivityTable",
    "Transit",
    "TransitTable",
    "calendar",
    "classify",
    "composite",
    "connection",
    "connection_many",
    "connection_of_gates",
    "natal_transit",
    "penta",
    "saturn_returns",
    "saturn_returns_many",
    "sensitivity",
    "sensitivity_many",
    "solar_return",
    "solar_returns",
    "transit",
    "transit_many",
    "uranus_oppositions",
    "uranus_oppositions_many",
]
