"""Beyond one natal chart: transits, connection charts and pentas; birth-time
sensitivity, stability and rectification, cycles and the ingress calendar.

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
from bodygraph.relations.constraints import ActivationConstraint, Constraints, constraints
from bodygraph.relations.cycles import (
    Cycles,
    cycles_of,
    saturn_returns,
    saturn_returns_many,
    solar_return,
    solar_returns,
    uranus_oppositions,
    uranus_oppositions_many,
)
from bodygraph.relations.ical import cycles_to_ical, to_ical
from bodygraph.relations.penta import PENTA_CHANNEL_GATES, PENTA_GATES, Penta, penta
from bodygraph.relations.rectification import (
    Rectification,
    RectificationTable,
    Window,
    rectify,
    rectify_many,
)
from bodygraph.relations.segments import GateLine, LineChange, Segment, Sensitivity
from bodygraph.relations.sensitivity import SensitivityTable, sensitivity, sensitivity_many
from bodygraph.relations.stability import (
    Stability,
    StabilityTable,
    Stretch,
    stability,
    stability_many,
)
from bodygraph.relations.transit import transit, transit_many
from bodygraph.relations.transit_model import NatalTransit, Transit, natal_transit
from bodygraph.relations.transit_table import TransitTable

__all__ = [
    "PENTA_CHANNEL_GATES",
    "PENTA_GATES",
    "ActivationConstraint",
    "ChannelLink",
    "Composite",
    "Connection",
    "ConnectionKind",
    "ConnectionTable",
    "Constraints",
    "Cycles",
    "GateLine",
    "Ingress",
    "LineChange",
    "NatalTransit",
    "Penta",
    "Rectification",
    "RectificationTable",
    "Segment",
    "Sensitivity",
    "SensitivityTable",
    "Stability",
    "StabilityTable",
    "Stretch",
    "Transit",
    "TransitTable",
    "Window",
    "calendar",
    "classify",
    "composite",
    "connection",
    "connection_many",
    "connection_of_gates",
    "constraints",
    "cycles_of",
    "cycles_to_ical",
    "natal_transit",
    "penta",
    "rectify",
    "rectify_many",
    "saturn_returns",
    "saturn_returns_many",
    "sensitivity",
    "sensitivity_many",
    "solar_return",
    "solar_returns",
    "stability",
    "stability_many",
    "to_ical",
    "transit",
    "transit_many",
    "uranus_oppositions",
    "uranus_oppositions_many",
]
