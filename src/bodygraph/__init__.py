"""bodygraph: exact, fast Human Design charts from JPL ephemerides.

>>> from datetime import datetime, timezone
>>> import bodygraph
>>> chart = bodygraph.calculate(datetime(1980, 1, 3, 8, 30, tzinfo=timezone.utc))
>>> chart.personality.sun.gate
38
"""

from __future__ import annotations

from bodygraph.calculator import Calculator, calculate
from bodygraph.chart import (
    Activation,
    Authority,
    Body,
    Chart,
    ChartType,
    Definition,
    NodeKind,
    Side,
)
from bodygraph.errors import (
    BodygraphError,
    EphemerisError,
    InvalidInstantError,
    OutOfRangeError,
)

__version__ = "0.1.0"

__all__ = [
    "Activation",
    "Authority",
    "Body",
    "BodygraphError",
    "Calculator",
    "Chart",
    "ChartType",
    "Definition",
    "EphemerisError",
    "InvalidInstantError",
    "NodeKind",
    "OutOfRangeError",
    "Side",
    "__version__",
    "calculate",
]
