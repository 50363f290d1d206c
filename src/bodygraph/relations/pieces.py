"""Spans of birth instants cut where the chart can change, and the chart of each piece:
the common ground of stability and rectification.

A chart is constant between two changes of its activations: every property follows from
the gates and lines of the 26 activations, except the variables, which follow the arrows
(tone 1-3 or 4-6) of the Sun and the North Node on both sides, and an arrow turns at
every half color. The cuts are found by the root finder of :mod:`bodygraph.relations.search`
on the sensitivity search's sampler (the design side moving with the birth), each piece's
chart is computed once at its midpoint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bodygraph._typing import IntArray, Micros
from bodygraph.calculator import Calculator
from bodygraph.columnar import ChartTable
from bodygraph.model.chart import BODIES, Body, NodeKind
from bodygraph.relations.search import SOURCES, WHEEL_OFFSET, Sampler, crossings
from bodygraph.relations.sensitivity import STEP_US, activation_sampler
from bodygraph.rules.wheel import COLOR, GATE, LINE

#: Spans per pass of the root finder (bounds memory).
CHUNK = 4096
#: The computed tracks whose arrows make the variables: the Sun and the North Node, on
#: the personality then the design side (rows of the sensitivity sampler).
ARROW_TRACKS = np.array([side * len(SOURCES) + SOURCES.index(BODIES.index(body))
                         for side in (0, 1) for body in (Body.SUN, Body.NORTH_NODE)],
                        dtype=np.intp)


@dataclass(frozen=True, slots=True)
class Pieces:
    """The pieces of P spans: ``owner`` (the span of each piece, ascending), ``start``
    and ``end`` (UTC microseconds; a piece holds ``[start, end)``, and the last piece of
    a span ends at the span's end), in time order within each span; ``charts`` holds the
    chart at each piece's midpoint."""

    owner: IntArray
    start: IntArray
    end: IntArray
    charts: ChartTable


def track(side: int, body: Body) -> int:
    """The sampler row of an activation (earth and the south node: the Sun's and the North
    Node's, whose exact opposites they are; the wheel's boundaries are symmetric)."""
    source = {Body.EARTH: Body.SUN, Body.SOUTH_NODE: Body.NORTH_NODE}.get(body, body)
    return side * len(SOURCES) + SOURCES.index(BODIES.index(source))


def _rows(sample: Sampler, rows: Sequence[int]) -> Sampler:
    pick = np.array(rows, dtype=np.intp)

    def some(instants: Micros) -> np.ndarray:
        out: np.ndarray = sample(instants)[pick]
        return out

    return some


def _cuts(calculator: Calculator, starts: IntArray, ends: IntArray, node: NodeKind,
          arrows: bool, line_tracks: Sequence[int] | None) -> tuple[IntArray, IntArray]:
    """(span, instant) of every change in ``(start, end]`` of each span: one root finding
    over every track at its own lattice (the grid is sampled once)."""
    computed = 2 * len(SOURCES)
    rows = list(range(computed))
    widths = [LINE if line_tracks is None or k in line_tracks else GATE for k in rows]
    if arrows:
        rows += ARROW_TRACKS.tolist()
        widths += [COLOR // 2] * ARROW_TRACKS.size
    sample = activation_sampler(calculator, node)
    found = crossings(sample if len(rows) == computed else _rows(sample, rows),
                      starts.astype("datetime64[us]"), ends.astype("datetime64[us]"),
                      np.array(float(WHEEL_OFFSET)), np.array(widths, dtype=np.int64), STEP_US)
    return found.window.astype(np.int64), found.at.astype(np.int64)


def _pieces(calculator: Calculator, starts: IntArray, ends: IntArray, node: NodeKind,
            arrows: bool, line_tracks: Sequence[int] | None) -> Pieces:
    count = starts.shape[0]
    change_owner, change_at = _cuts(calculator, starts, ends, node, arrows, line_tracks)
    owners = np.concatenate([np.arange(count), change_owner, np.arange(count)])
    cuts = np.concatenate([starts, change_at, ends]).astype(np.int64)
    order = np.lexsort((cuts, owners))
    owners, cuts = owners[order], cuts[order]
    keep = np.ones(cuts.size, dtype=bool)
    keep[1:] = (owners[1:] != owners[:-1]) | (cuts[1:] != cuts[:-1])
    owners, cuts = owners[keep], cuts[keep]
    inner = owners[1:] == owners[:-1]
    owner, first, last = owners[:-1][inner], cuts[:-1][inner], cuts[1:][inner]
    middle = (first + (last - first) // 2).astype("datetime64[us]")
    return Pieces(owner, first, last, calculator.calculate_many(middle, node=node))


def chart_pieces(calculator: Calculator, starts: IntArray, ends: IntArray, node: NodeKind,
                 *, arrows: bool = False, line_tracks: Sequence[int] | None = None) -> Pieces:
    """The pieces of the spans ``[starts[i], ends[i]]`` (UTC microseconds, each span
    longer than zero), cut at every line change of the 26 activations, and with
    ``arrows`` at every arrow change of the Sun and the North Node too. With
    ``line_tracks`` (sampler rows, :func:`track`), only those are cut at their line
    changes and the others at their gate changes only: enough for every property but
    the variables and for the lines of those activations."""
    parts = [_pieces(calculator, starts[i:i + CHUNK], ends[i:i + CHUNK], node, arrows,
                     line_tracks)
             for i in range(0, max(starts.shape[0], 1), CHUNK)]
    if len(parts) == 1:
        return parts[0]
    return Pieces(
        np.concatenate([p.owner + k * CHUNK for k, p in enumerate(parts)]),
        np.concatenate([p.start for p in parts]), np.concatenate([p.end for p in parts]),
        ChartTable.concat([p.charts for p in parts]))
