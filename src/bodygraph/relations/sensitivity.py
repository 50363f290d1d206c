"""Birth-time sensitivity: every birth instant in a window at which one of the 26
activations changes line, exact to the millisecond by root finding on the engine, and
the segments between the changes with their type, profile, authority, definition and
incarnation cross.

The personality side is read at the candidate birth instant and the design side at its
own design instant, which moves with it: each evaluation is the engine's two-epoch
computation of a chart (:meth:`bodygraph.Calculator.epochs_micros`), so that a change
found here is where :func:`bodygraph.calculate` itself changes.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np

from bodygraph._time import as_micros
from bodygraph._typing import Micros
from bodygraph.calculator import Calculator
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import NodeKind
from bodygraph.relations.common import Births, calculator_or_default, check_span
from bodygraph.relations.search import (
    OPPOSITES,
    SOURCES,
    US_PER_S,
    WHEEL_OFFSET,
    Sampler,
    crossings,
    wheel_sides,
)
from bodygraph.relations.segments import (
    SEGMENT_COLUMNS,
    GateLine,
    LineChange,
    Segment,
    Sensitivity,
    SensitivityTable,
)
from bodygraph.rules.wheel import LINE, opposite, positions

__all__ = ["GateLine", "LineChange", "Segment", "Sensitivity", "SensitivityTable",
           "sensitivity", "sensitivity_many"]

MAX_WINDOW = timedelta(hours=48)
DEFAULT_WINDOW = timedelta(hours=2)
#: Grid of the bracketing search (the true node's stations are hours apart at closest).
STEP_US = 3600 * US_PER_S
#: Births per pass (bounds memory).
CHUNK = 4096
_TRACKS = len(SOURCES)


def _window_us(window: timedelta) -> int:
    if not timedelta(0) < window <= MAX_WINDOW:
        raise InvalidOptionError(
            "the window must be more than 0 and at most 48 hours either side, not "
            f"{window.total_seconds() / 3600:g} hours")
    return round(window / timedelta(microseconds=1))


def activation_sampler(calculator: Calculator, node: NodeKind) -> Sampler:
    """The 22 computed tracks: personality then design longitudes of ``SOURCES``, the
    design side at the design instant of each sampled birth."""
    rows = np.array(SOURCES, dtype=np.intp)

    def sample(instants: Micros) -> np.ndarray:
        epochs = calculator.epochs_micros(instants, node)
        out: np.ndarray = np.concatenate([epochs.personality[rows],
                                          epochs.design_longitudes[rows]])
        return out

    return sample


def _changes(found_window: np.ndarray, at: Micros, track: np.ndarray, before: np.ndarray,
             after: np.ndarray) -> dict[str, np.ndarray]:
    """The crossings of the 22 computed tracks -> changes of the 26 activations."""
    side = track // _TRACKS
    body = np.array(SOURCES)[track % _TRACKS]
    parts = [(np.arange(at.size), side, body, before, after)]
    for source, target in OPPOSITES.items():
        pick = np.flatnonzero(body == source)
        parts.append((pick, side[pick], np.full(pick.size, target), opposite(before[pick]),
                      opposite(after[pick])))
    index = np.concatenate([p[0] for p in parts])
    side, body = np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts])
    was = positions(np.concatenate([p[3] for p in parts]))
    now = positions(np.concatenate([p[4] for p in parts]))
    birth, moment = found_window[index], at[index]
    order = np.lexsort((body, side, moment, birth))
    small = np.int16
    return {"change_birth": birth[order].astype(np.int64), "change_at": moment[order],
            "change_side": side[order].astype(small), "change_body": body[order].astype(small),
            "before_gate": was.gate[order].astype(small),
            "before_line": was.line[order].astype(small),
            "after_gate": now.gate[order].astype(small),
            "after_line": now.line[order].astype(small)}


def _segments(calculator: Calculator, node: NodeKind, starts: Micros, ends: Micros,
              change_birth: np.ndarray, change_at: Micros) -> dict[str, object]:
    """Segments between the distinct change instants of each birth, and their charts
    (at each segment's midpoint)."""
    count = starts.shape[0]
    births = np.concatenate([np.arange(count), change_birth, np.arange(count)])
    cuts = np.concatenate([starts, change_at, ends]).astype(np.int64)
    kind = np.concatenate([np.zeros(count), np.ones(change_at.size), np.full(count, 2)])
    order = np.lexsort((kind, cuts, births))
    births, cuts = births[order], cuts[order]
    keep = np.ones(cuts.size, dtype=bool)
    keep[1:] = (births[1:] != births[:-1]) | (cuts[1:] != cuts[:-1])
    births, cuts = births[keep], cuts[keep]
    inner = births[1:] == births[:-1]
    owner, first, last = births[:-1][inner], cuts[:-1][inner], cuts[1:][inner]
    middle = (first + (last - first) // 2).astype("datetime64[us]")
    columns = calculator.calculate_many(middle, node=node).columns()
    return {"segment_birth": owner, "segment_start": first.astype("datetime64[us]"),
            "segment_end": last.astype("datetime64[us]"),
            "segment_columns": {name: columns[name] for name in SEGMENT_COLUMNS}}


def _table(calculator: Calculator, utc: Micros, span: int, node: NodeKind) -> SensitivityTable:
    delta = np.timedelta64(span, "us")
    starts, ends = utc - delta, utc + delta
    sample = activation_sampler(calculator, node)
    found = crossings(sample, starts, ends, np.array(float(WHEEL_OFFSET)), LINE, STEP_US)
    before, after = wheel_sides(found)
    changes = _changes(found.window, found.at, found.track, before, after)
    segments = _segments(calculator, node, starts, ends, changes["change_birth"],
                         changes["change_at"])
    return SensitivityTable(node, utc, starts, ends, **changes, **segments)  # type: ignore[arg-type]


def sensitivity_many(births: Births, window: timedelta = DEFAULT_WINDOW, node: NodeKind = "true",
                     *, calculator: Calculator | None = None) -> SensitivityTable:
    """:func:`sensitivity` of many births at once, as columns (aware datetimes, or
    datetime64 read as UTC)."""
    span = _window_us(window)
    calculator = calculator_or_default(calculator)
    utc = as_micros(births)
    if utc.size:
        margin = np.timedelta64(span + 60 * US_PER_S, "us")
        check_span(calculator, utc.min() - margin, utc.max() + margin, "the window")
    parts = [_table(calculator, utc[i:i + CHUNK], span, node)
             for i in range(0, max(utc.shape[0], 1), CHUNK)]
    return parts[0] if len(parts) == 1 else _concat(parts)


def _concat(parts: list[SensitivityTable]) -> SensitivityTable:
    offsets = np.cumsum([0] + [len(p) for p in parts[:-1]])

    def join(name: str) -> np.ndarray:
        return np.concatenate([getattr(p, name) for p in parts])

    return SensitivityTable(
        parts[0].node, join("birth"), join("start"), join("end"),
        np.concatenate([p.change_birth + o for p, o in zip(parts, offsets, strict=True)]),
        join("change_at"), join("change_side"), join("change_body"), join("before_gate"),
        join("before_line"), join("after_gate"), join("after_line"),
        np.concatenate([p.segment_birth + o for p, o in zip(parts, offsets, strict=True)]),
        join("segment_start"), join("segment_end"),
        {name: np.concatenate([p.segment_columns[name] for p in parts])
         for name in SEGMENT_COLUMNS})


def sensitivity(birth_utc: datetime, window: timedelta = DEFAULT_WINDOW, node: NodeKind = "true",
                *, calculator: Calculator | None = None) -> Sensitivity:
    """Every instant in ``[birth - window, birth + window]`` at which one of the 26
    activations changes line (the design side at the design instant of each candidate
    birth), to the millisecond, in time order; and the segments between them.
    ``window`` is more than zero and at most 48 hours.

    >>> from datetime import datetime, timezone
    >>> result = sensitivity(datetime(1980, 1, 3, 8, 30, tzinfo=timezone.utc))
    >>> result.segments[0].profile
    '3/5'
    """
    return sensitivity_many([birth_utc], window, node, calculator=calculator)[0]
