"""Transits on the engine: :func:`transit` for one instant, :func:`transit_many` for
an array of them (the engine's compiled path, no design instant to solve)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import numpy as np

from bodygraph._time import as_micros, utc64_to_tt
from bodygraph._typing import Micros
from bodygraph.calculator import CHUNK, Calculator, activation_longitudes
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import BODIES, Chart, NodeKind
from bodygraph.relations.common import calculator_or_default
from bodygraph.relations.transit_model import Transit
from bodygraph.relations.transit_table import TransitTable, build_transit_table


def transit_many(
    instants: Sequence[datetime] | Micros,
    *,
    natal: Chart | None = None,
    node: NodeKind = "true",
    calculator: Calculator | None = None,
) -> TransitTable:
    """Transits at many instants (aware datetimes, or datetime64 read as UTC), over
    ``natal`` if given, as a :class:`TransitTable`; ``table[i]`` is ``transit(at[i])``.

    The instants must lie in the kernel's range of births (1800-04 to 2199-12 with the
    shipped kernel), else :class:`~bodygraph.OutOfRangeError`.
    """
    if node not in ("true", "mean"):
        raise InvalidOptionError(f"node must be 'true' or 'mean', not {node!r}")
    calc = calculator_or_default(calculator)
    utc = as_micros(instants)
    calc.check_range_micros(utc)
    if utc.shape[0] == 0:
        return build_transit_table(utc, np.empty((len(BODIES), 0)), node, natal)
    parts = []
    for i in range(0, utc.shape[0], CHUNK):  # blocks that stay in the processor's cache
        block = utc[i:i + CHUNK]
        rows = calc.engine.longitudes(utc64_to_tt(block), node)
        parts.append(build_transit_table(block, activation_longitudes(rows), node, natal))
    return parts[0] if len(parts) == 1 else TransitTable.concat(parts)


def transit(
    at: datetime,
    *,
    natal: Chart | None = None,
    node: NodeKind = "true",
    calculator: Calculator | None = None,
) -> Transit:
    """The transit at an aware instant ``at``, over ``natal`` if given.

    ``transit(at).activations`` is exactly ``calculate(at).personality``; ``calculator``
    picks another kernel or engine (default: the shared one of ``calculate``).

    >>> from datetime import datetime, timezone
    >>> now = transit(datetime(2024, 3, 20, 3, 6, tzinfo=timezone.utc))
    >>> now.activations.sun.gate
    25
    """
    return transit_many([at], natal=natal, node=node, calculator=calculator)[0]
