"""Beyond one natal chart: transits, connection charts and pentas.

Everything here is built from charts and the engine (``calculator``, ``rules``), never
the reverse. See ``docs/relations.md``.
"""

from __future__ import annotations

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
from bodygraph.relations.penta import PENTA_CHANNEL_GATES, PENTA_GATES, Penta, penta
from bodygraph.relations.transit import transit, transit_many
from bodygraph.relations.transit_model import NatalTransit, Transit, natal_transit
from bodygraph.relations.transit_table import TransitTable

# Birth-time sensitivity, cycles and the ingress calendar (relations/sensitivity.py,
# cycles.py, calendar.py) are built on another branch: export them here when merged.

__all__ = [
    "PENTA_CHANNEL_GATES",
    "PENTA_GATES",
    "ChannelLink",
    "Composite",
    "Connection",
    "ConnectionKind",
    "ConnectionTable",
    "NatalTransit",
    "Penta",
    "Transit",
    "TransitTable",
    "classify",
    "composite",
    "connection",
    "connection_many",
    "connection_of_gates",
    "natal_transit",
    "penta",
    "transit",
    "transit_many",
]
