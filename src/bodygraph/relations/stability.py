"""How stable a chart is: for each property and each of the 26 activations (line level),
the birth instants around the given one over which it stays the same (the design instant
moving with the birth), exact to the millisecond, within a bound either side."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from bodygraph._time import as_micros, aware_list
from bodygraph._typing import IntArray, Micros, ObjectArray
from bodygraph.calculator import Calculator
from bodygraph.catalog.translations import body_name, word_translator
from bodygraph.columnar import SIDES
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import BODIES, Body, NodeKind
from bodygraph.relations.columns import Rows
from bodygraph.relations.common import Births, calculator_or_default, check_span, instant_text
from bodygraph.relations.pieces import chart_pieces
from bodygraph.relations.search import US_PER_S
from bodygraph.relations.segments import SIDE_NAMES, SideName

__all__ = ["PROPERTIES", "Stability", "StabilityTable", "Stretch", "stability",
           "stability_many"]

DEFAULT_BOUND = timedelta(hours=12)
MAX_BOUND = timedelta(hours=48)
#: The properties, as (JSON key, column of :meth:`bodygraph.ChartTable.columns`).
PROPERTIES: tuple[tuple[str, str], ...] = (
    ("type", "type"), ("profile", "profile"), ("authority", "authority"),
    ("definition", "definition"), ("incarnationCross", "incarnation_cross"),
    ("strategy", "strategy"), ("variables", "variables"))
#: The activations, as (side, body, column).
ACTIVATIONS: tuple[tuple[SideName, Body, str], ...] = tuple(
    (SIDE_NAMES[s], body, f"{side}_{body.v1_key}")
    for s, side in enumerate(SIDES) for body in BODIES)
_COLUMNS: tuple[str, ...] = (*(c for _, c in PROPERTIES), *(c for _, _, c in ACTIVATIONS))


@dataclass(frozen=True, slots=True)
class Stretch:
    """A value and the birth instants over which it holds: from ``earliest`` (the first
    instant with this value) until ``until`` (the first instant after the birth with
    another); ``None`` where it holds to the bound on that side."""

    value: str
    earliest: datetime | None
    until: datetime | None

    def to_dict(self) -> dict[str, str | None]:
        """``{"value", "from", "to"}``, instants to the second (``null`` at the bound)."""
        return {"value": self.value,
                "from": None if self.earliest is None else instant_text(self.earliest),
                "to": None if self.until is None else instant_text(self.until)}


@dataclass(frozen=True, slots=True)
class Stability:
    """The stability of a birth's chart within ``bound`` either side: its properties and
    its 26 activations (``activations[side][body]``, the value ``"gate.line"``)."""

    birth: datetime
    bound: timedelta
    type: Stretch
    profile: Stretch
    authority: Stretch
    definition: Stretch
    incarnation_cross: Stretch
    strategy: Stretch
    variables: Stretch
    activations: dict[SideName, dict[Body, Stretch]]

    def properties(self) -> dict[str, Stretch]:
        """The properties by their JSON keys, in the order of the JSON object."""
        return {key: getattr(self, column) for key, column in PROPERTIES}

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``bodygraph stability --json``."""
        return {"birth": instant_text(self.birth),
                "properties": {key: s.to_dict() for key, s in self.properties().items()},
                "activations": {side: {body.value: s.to_dict() for body, s in bodies.items()}
                                for side, bodies in self.activations.items()}}

    def labels(self, lang: str) -> dict[str, Any]:
        """The words of :meth:`to_dict` in ``lang`` under its keys: the ``value`` of each
        property that is a word (type, authority, definition, cross, strategy), and each
        activation's body name (``activations[side][body]``)."""
        words = {"type": "type", "authority": "authority", "definition": "definition",
                 "incarnationCross": "cross", "strategy": "strategy"}
        return {"properties": {key: {"value": word_translator(words[key], lang)(s.value)}
                               for key, s in self.properties().items() if key in words},
                "activations": {side: {body.value: body_name(body, lang) for body in bodies}
                                for side, bodies in self.activations.items()}}


@dataclass(frozen=True, slots=True)
class StabilityTable(Rows[Stability]):
    """The stability of N births as columns: for each column name of
    :meth:`bodygraph.ChartTable.columns` among the properties and activations, the
    ``values`` at the birth, the ``earliest`` and ``until`` instants (datetime64 UTC,
    NaT where the value holds to the bound)."""

    birth: Micros
    bound: timedelta
    values: dict[str, ObjectArray]
    earliest: dict[str, Micros]
    until: dict[str, Micros]

    def __len__(self) -> int:
        return int(self.birth.shape[0])

    def _stretch(self, column: str, i: int) -> Stretch:
        first, until = self.earliest[column][i], self.until[column][i]
        return Stretch(str(self.values[column][i]),
                       None if np.isnat(first) else aware_list(first.reshape(1))[0],
                       None if np.isnat(until) else aware_list(until.reshape(1))[0])

    def row(self, i: int) -> Stability:
        """The stability of the birth at index ``i``."""
        activations: dict[SideName, dict[Body, Stretch]] = {side: {} for side in SIDE_NAMES}
        for side, body, column in ACTIVATIONS:
            activations[side][body] = self._stretch(column, i)
        properties = {column: self._stretch(column, i) for _, column in PROPERTIES}
        return Stability(aware_list(self.birth[i:i + 1])[0], self.bound, **properties,
                         activations=activations)


def _bound_us(bound: timedelta) -> int:
    if not isinstance(bound, timedelta) or not timedelta(0) < bound <= MAX_BOUND:
        given = (f"{bound.total_seconds() / 3600:g} hours" if isinstance(bound, timedelta)
                 else repr(bound))
        raise InvalidOptionError(
            f"the bound must be more than 0 and at most 48 hours either side, not {given}; "
            "give one such as 12h")
    return round(bound / timedelta(microseconds=1))


def _runs(owner: IntArray, values: ObjectArray) -> tuple[IntArray, IntArray]:
    """For each piece, the first and the last piece of its run of equal values."""
    size = values.shape[0]
    index = np.arange(size)
    new = np.ones(size, dtype=bool)
    new[1:] = (owner[1:] != owner[:-1]) | (values[1:] != values[:-1])
    ends = np.ones(size, dtype=bool)
    ends[:-1] = new[1:]
    first = np.maximum.accumulate(np.where(new, index, 0))
    last = np.minimum.accumulate(np.where(ends, index, size)[::-1])[::-1]
    return first, last


def stability_many(births: Births, bound: timedelta = DEFAULT_BOUND, node: NodeKind = "true",
                   *, calculator: Calculator | None = None) -> StabilityTable:
    """:func:`stability` of many births at once, as columns (aware datetimes, or
    datetime64 read as UTC)."""
    span = _bound_us(bound)
    calculator = calculator_or_default(calculator)
    utc = as_micros(births).astype(np.int64)
    if utc.size:
        margin = span + 60 * US_PER_S
        check_span(calculator, np.datetime64(int(utc.min() - margin), "us"),
                   np.datetime64(int(utc.max() + margin), "us"), "the bound")
    starts, ends = utc - span, utc + span
    pieces = chart_pieces(calculator, starts, ends, node, arrows=True)
    birth = utc[pieces.owner]
    where = np.flatnonzero((pieces.start <= birth) & (birth < pieces.end))
    columns = pieces.charts.columns()
    nat = np.datetime64("NaT", "us")
    values, earliest, until = {}, {}, {}
    for column in _COLUMNS:
        first, last = _runs(pieces.owner, columns[column])
        first, last = first[where], last[where]
        values[column] = columns[column][where]
        from_at, to_at = pieces.start[first], pieces.end[last]
        earliest[column] = np.where(from_at == starts, nat, from_at.astype("datetime64[us]"))
        until[column] = np.where(to_at == ends, nat, to_at.astype("datetime64[us]"))
    return StabilityTable(utc.astype("datetime64[us]"), bound, values, earliest, until)


def stability(birth_utc: datetime, bound: timedelta = DEFAULT_BOUND, node: NodeKind = "true",
              *, calculator: Calculator | None = None) -> Stability:
    """For each property (type, profile, authority, definition, incarnation cross,
    strategy, variables) and each of the 26 activations at line level, its value at
    ``birth_utc`` and the birth instants around it over which it stays the same, the
    design side at the design instant of each candidate birth, to the millisecond;
    within ``bound`` either side (more than zero, at most 48 hours).

    >>> from datetime import datetime, timezone
    >>> result = stability(datetime(1980, 1, 3, 8, 30, tzinfo=timezone.utc))
    >>> result.profile.value
    '3/5'
    """
    return stability_many([birth_utc], bound, node, calculator=calculator)[0]
