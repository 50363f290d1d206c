"""Birth-time rectification: every window of birth instants, in a local day or a range of
up to seven days, whose chart satisfies all that a person knows of it (the design instant
moving with the birth), exact to the millisecond; one search or many at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, tzinfo
from typing import Any

import numpy as np

from bodygraph._time import as_micros, aware_list
from bodygraph._typing import CodeArray, IntArray, Micros, ObjectArray
from bodygraph.calculator import Calculator
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import (
    AUTHORITIES,
    BODIES,
    DEFINITIONS,
    TYPES,
    Authority,
    Body,
    ChartType,
    Definition,
    NodeKind,
)
from bodygraph.relations.columns import Rows
from bodygraph.relations.common import calculator_or_default, check_span, instant_text, to_second
from bodygraph.relations.constraints import Constraints, fits
from bodygraph.relations.labels import chart_words
from bodygraph.relations.local_span import WallPass, local_span, wall_pass
from bodygraph.relations.pieces import chart_pieces, track

__all__ = ["Rectification", "RectificationTable", "Window", "rectify", "rectify_many"]

_SUN, _EARTH = BODIES.index(Body.SUN), BODIES.index(Body.EARTH)
NO_CONSTRAINT = ("give at least one constraint: type, profile, authority, definition, cross, "
                 "strategy, centers, open centers, channels, gates or activations")


def local_text(instant: datetime, zone: tzinfo) -> str:
    """The wall time of ``instant`` (to the nearest second) with its UTC offset:
    ``1980-01-03T06:12:44+00:00``; in a fold the offset tells the two passes apart."""
    return to_second(instant).astimezone(zone).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class Window:
    """Birth instants ``[start, end)`` (UTC) whose chart satisfies every constraint, with
    the chart's type, profile, authority, definition and incarnation cross (the same all
    through the window), and the time zone of its local times."""

    start: datetime
    end: datetime
    zone: tzinfo
    type: ChartType
    profile: str
    authority: Authority
    definition: Definition
    incarnation_cross: str

    @property
    def start_local(self) -> datetime:
        """``start`` in the zone (``fold`` 1 on the second pass of a fold)."""
        return self.start.astimezone(self.zone)

    @property
    def end_local(self) -> datetime:
        """``end`` in the zone."""
        return self.end.astimezone(self.zone)

    @property
    def start_pass(self) -> WallPass | None:
        """Which pass of a repeated wall time ``start`` is on (``None``: not repeated)."""
        return wall_pass(to_second(self.start), self.zone)

    @property
    def end_pass(self) -> WallPass | None:
        """As :attr:`start_pass`, for ``end``."""
        return wall_pass(to_second(self.end), self.zone)

    def chart_dict(self) -> dict[str, str]:
        """``{"type", "profile", "authority", "definition", "incarnationCross"}``."""
        return {"type": self.type.value, "profile": self.profile,
                "authority": self.authority.value, "definition": self.definition.value,
                "incarnationCross": self.incarnation_cross}

    def to_dict(self) -> dict[str, Any]:
        """``{"from", "to", "fromLocal", "toLocal", "fromPass", "toPass", "chart"}``:
        instants to the second; a pass is ``"first"`` or ``"second"`` where the wall
        time occurs twice, else ``null``."""
        return {"from": instant_text(self.start), "to": instant_text(self.end),
                "fromLocal": local_text(self.start, self.zone),
                "toLocal": local_text(self.end, self.zone),
                "fromPass": self.start_pass, "toPass": self.end_pass,
                "chart": self.chart_dict()}

    def labels(self, lang: str) -> dict[str, Any]:
        """``{"chart": {"type", "authority", "definition", "incarnationCross"}}`` in
        ``lang``."""
        return {"chart": chart_words(lang, type=self.type, authority=self.authority,
                                     definition=self.definition,
                                     cross=self.incarnation_cross)}


@dataclass(frozen=True, slots=True)
class Rectification:
    """The windows, in time order, of the birth instants searched (``start`` to ``end``,
    UTC); none when nothing fits."""

    start: datetime
    end: datetime
    zone: tzinfo
    windows: tuple[Window, ...]

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``bodygraph rectify --json``."""
        return {"searched": {"from": instant_text(self.start), "to": instant_text(self.end),
                             "fromLocal": local_text(self.start, self.zone),
                             "toLocal": local_text(self.end, self.zone),
                             "zone": str(self.zone)},
                "windows": [w.to_dict() for w in self.windows]}

    def labels(self, lang: str) -> dict[str, Any]:
        """The words of :meth:`to_dict` in ``lang`` under its keys: each window's."""
        return {"windows": [w.labels(lang) for w in self.windows]}


@dataclass(frozen=True, slots=True)
class RectificationTable(Rows[Rectification]):
    """N rectifications as columns: the spans searched (``start``, ``end``), and every
    window: ``window_owner`` (index of its search, ascending), ``window_start``,
    ``window_end`` (UTC, in time order within a search), its chart's ``type``,
    ``authority`` and ``definition`` codes (indices of ``TYPES``, ``AUTHORITIES``,
    ``DEFINITIONS``), ``profile`` and ``incarnation_cross`` texts."""

    start: Micros
    end: Micros
    zones: tuple[tzinfo, ...]
    window_owner: IntArray
    window_start: Micros
    window_end: Micros
    type: CodeArray
    authority: CodeArray
    definition: CodeArray
    profile: ObjectArray
    incarnation_cross: ObjectArray

    def __len__(self) -> int:
        return int(self.start.shape[0])

    def row(self, i: int) -> Rectification:
        """The rectification at index ``i``."""
        zone = self.zones[i if len(self.zones) > 1 else 0]
        w0, w1 = np.searchsorted(self.window_owner, [i, i + 1])
        windows = tuple(
            Window(start, end, zone, TYPES[kind], profile, AUTHORITIES[authority],
                   DEFINITIONS[definition], cross)
            for start, end, kind, authority, definition, profile, cross in zip(
                aware_list(self.window_start[w0:w1]), aware_list(self.window_end[w0:w1]),
                self.type[w0:w1].tolist(), self.authority[w0:w1].tolist(),
                self.definition[w0:w1].tolist(), self.profile[w0:w1].tolist(),
                self.incarnation_cross[w0:w1].tolist(), strict=True))
        start, end = aware_list(np.array([self.start[i], self.end[i]]))
        return Rectification(start, end, zone, windows)


def rectify_many(starts: Sequence[datetime] | Micros, ends: Sequence[datetime] | Micros,
                 constraints: Constraints | Sequence[Constraints], node: NodeKind = "true",
                 *, zones: tzinfo | Sequence[tzinfo] = UTC,
                 calculator: Calculator | None = None) -> RectificationTable:
    """The windows of many searches at once, as columns: search i covers the birth
    instants ``starts[i]`` to ``ends[i]`` (aware datetimes, or datetime64 read as UTC)
    and keeps those satisfying ``constraints`` (one set for all, or one per search);
    ``zones`` (one, or one per search) only write the local times of its rows."""
    calculator = calculator_or_default(calculator)
    first, last = as_micros(starts), as_micros(ends)
    count = first.shape[0]
    wanted = [constraints] * count if isinstance(constraints, Constraints) else list(constraints)
    zone_list = (zones,) if isinstance(zones, tzinfo) else tuple(zones)
    if last.shape[0] != count or len(wanted) != count or len(zone_list) not in (1, count):
        raise InvalidOptionError("give one end, one set of constraints (or one for all) and "
                                 "one zone (or one for all) for each start")
    if not all(wanted):
        raise InvalidOptionError(NO_CONSTRAINT)
    if np.any(last <= first):
        raise InvalidOptionError("every search must end after it begins")
    if count:
        check_span(calculator, first.min(), last.max(), "the search")
    lines = {track(side, Body.SUN) for side in (0, 1)} | {
        track(a.side, a.body) for given in wanted for a in given.activations
        if a.line is not None}
    pieces = chart_pieces(calculator, first.astype(np.int64), last.astype(np.int64), node,
                          line_tracks=sorted(lines))
    keep = fits(pieces.charts, pieces.owner, wanted)
    owner, start, end = pieces.owner[keep], pieces.start[keep], pieces.end[keep]
    charts = pieces.charts[np.flatnonzero(keep)]
    key = charts.type.astype(np.int64)
    for part, size in ((charts.authority, 8), (charts.definition, 5),
                       (charts.line[0, _SUN], 7), (charts.line[1, _SUN], 7),
                       *((charts.gate[s, b], 65) for s in (0, 1) for b in (_SUN, _EARTH))):
        key = key * size + part
    opens = np.ones(owner.shape[0], dtype=bool)
    opens[1:] = (owner[1:] != owner[:-1]) | (start[1:] != end[:-1]) | (key[1:] != key[:-1])
    heads = np.flatnonzero(opens)
    tails = np.append(heads[1:], owner.shape[0])[:heads.size] - 1
    summary = charts[heads].columns()
    return RectificationTable(
        first, last, zone_list, owner[heads], start[heads].astype("datetime64[us]"),
        end[tails].astype("datetime64[us]"), charts.type[heads], charts.authority[heads],
        charts.definition[heads], summary["profile"], summary["incarnation_cross"])


def rectify(first_day: date, constraints: Constraints, *, zone: tzinfo,
            last_day: date | None = None, from_time: time | None = None,
            to_time: time | None = None, node: NodeKind = "true",
            calculator: Calculator | None = None) -> Rectification:
    """Every window of birth instants from ``from_time`` (default midnight) on
    ``first_day`` to ``to_time`` (default the day's end) on ``last_day`` (default
    ``first_day``; at most seven days in all), local times in ``zone``, whose chart
    satisfies all of ``constraints`` (:func:`~bodygraph.relations.constraints`), exact to
    the millisecond and in time order. Touching pieces with one chart make one window;
    where a chart that satisfies them changes type, profile, authority, definition or
    cross, a window ends and the next begins. No window is an answer, not an error.

    >>> from datetime import date
    >>> from zoneinfo import ZoneInfo
    >>> from bodygraph.relations.constraints import constraints
    >>> found = rectify(date(1980, 1, 3), constraints(profile="3/5", type="Generator"),
    ...                 zone=ZoneInfo("Europe/London"))
    >>> found.windows[0].profile
    '3/5'
    """
    if not constraints:
        raise InvalidOptionError(NO_CONSTRAINT)
    start, end = local_span(first_day, zone, last_day, from_time, to_time)
    return rectify_many([start], [end], constraints, node, zones=zone,
                        calculator=calculator)[0]
