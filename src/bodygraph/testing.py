"""Hypothesis strategies for your own property tests (``pip install bodygraph[testing]``).

>>> from hypothesis import given
>>> from bodygraph.testing import birth_instants
>>> import bodygraph
>>> @given(birth_instants())
... def test_same_birth_same_chart(instant):
...     assert bodygraph.calculate(instant) == bodygraph.calculate(instant)
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import strategies as st

from bodygraph.calculator import default_calculator
from bodygraph.model.chart import Chart, NodeKind


def supported_range() -> tuple[datetime, datetime]:
    """First and last birth instant (UTC) the default ephemeris supports."""
    calculator = default_calculator(None)
    return calculator.first_birth, calculator.last_birth


def birth_instants(
    min_value: datetime | None = None,
    max_value: datetime | None = None,
    *,
    any_offset: bool = False,
) -> st.SearchStrategy[datetime]:
    """Aware birth instants in the supported range (or the narrower one given).

    With ``any_offset=True`` the instants carry random fixed UTC offsets
    (-12:00..+14:00) instead of UTC, which must not change any chart.
    """
    first, last = supported_range()
    low = max(first, min_value.astimezone(UTC)) if min_value else first
    high = min(last, max_value.astimezone(UTC)) if max_value else last
    naive = st.datetimes(
        min_value=low.replace(tzinfo=None), max_value=high.replace(tzinfo=None)
    )
    instants = naive.map(lambda moment: moment.replace(tzinfo=UTC))
    if not any_offset:
        return instants
    offsets = st.integers(min_value=-12 * 4, max_value=14 * 4).map(
        lambda quarters: timezone(timedelta(minutes=15 * quarters))
    )
    return st.tuples(instants, offsets).map(lambda pair: pair[0].astimezone(pair[1]))


def charts(
    instants: st.SearchStrategy[datetime] | None = None,
    *,
    node: NodeKind = "true",
) -> st.SearchStrategy[Chart]:
    """Charts of birth instants drawn from ``instants`` (default: :func:`birth_instants`)."""
    calculator = default_calculator(None)
    source = instants or birth_instants()
    return source.map(lambda moment: calculator.calculate(moment, node=node))


def chart_pairs(
    instants: st.SearchStrategy[datetime] | None = None,
    *,
    node: NodeKind = "true",
) -> st.SearchStrategy[tuple[Chart, Chart]]:
    """Two charts (for connection charts), each of an instant drawn from ``instants``."""
    return st.tuples(charts(instants, node=node), charts(instants, node=node))


def penta_groups(
    instants: st.SearchStrategy[datetime] | None = None,
    *,
    min_size: int = 3,
    max_size: int = 5,
    node: NodeKind = "true",
) -> st.SearchStrategy[list[Chart]]:
    """Groups of ``min_size`` to ``max_size`` charts (a penta has 3 to 5 members)."""
    return st.lists(charts(instants, node=node), min_size=min_size, max_size=max_size)


def gate_sets(*, max_size: int = 26) -> st.SearchStrategy[frozenset[int]]:
    """Sets of gates 1..64 (up to 26, as many as a chart's activations)."""
    return st.frozensets(st.integers(min_value=1, max_value=64), max_size=max_size)


def sensitivity_windows(*, max_hours: float = 48.0) -> st.SearchStrategy[timedelta]:
    """Windows :func:`bodygraph.sensitivity` accepts: whole seconds, more than zero and
    at most ``max_hours`` (48, the most it takes) either side of the birth."""
    most = int(min(max_hours, 48.0) * 3600)
    return st.integers(min_value=1, max_value=most).map(lambda s: timedelta(seconds=s))
