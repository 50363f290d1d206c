"""The bodygraph layout as data: center outlines, gate positions and channel routes.

The numbers live in ``layout.json`` next to this module (graph units, x to the
right, y down). This module loads them once, checks them against the domain
tables (nine centers, 64 gates, 36 channels) and answers geometric questions:
the outline path of a center, the path of a channel and where it is cut in half.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from itertools import pairwise
from types import MappingProxyType
from typing import Any

from bodygraph.catalog.tables import CENTER_NAMES, Channel, tables
from bodygraph.render.errors import RenderError

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Layout:
    """Positions of everything drawn in the bodygraph, in graph units."""

    width: float
    height: float
    gate_radius: float
    corner_radius: float
    centers: Mapping[str, tuple[Point, ...]]
    gates: Mapping[int, Point]
    routes: Mapping[str, tuple[Point, ...]]
    #: Each center's outline, corners rounded (SVG path data): the same in every drawing.
    center_paths: Mapping[str, str]
    #: Each channel's two halves (:func:`split_half`), by its short name.
    channel_halves: Mapping[str, tuple[tuple[Point, ...], tuple[Point, ...]]]

    def channel_points(self, channel: Channel) -> tuple[Point, ...]:
        """The polyline of a channel: lower gate, waypoints, higher gate."""
        return _channel_points(self.gates, self.routes, channel)


def _channel_points(gates: Mapping[int, Point], routes: Mapping[str, tuple[Point, ...]],
                    channel: Channel) -> tuple[Point, ...]:
    low, high = channel.gates
    return (gates[low], *routes.get(channel.short, ()), gates[high])


def _point(raw: Any, where: str) -> Point:
    if (
        not isinstance(raw, list)
        or len(raw) != 2
        or not all(isinstance(v, int | float) for v in raw)
    ):
        raise RenderError(f"layout: {where} must be [x, y]")
    return (float(raw[0]), float(raw[1]))


def parse_layout(raw: Mapping[str, Any]) -> Layout:
    """Check a layout document against the tables and type it."""
    t = tables()
    centers = {
        name: tuple(_point(p, f"center {name}") for p in raw["centers"][name])
        for name in CENTER_NAMES
    }
    if set(raw["centers"]) != set(CENTER_NAMES):
        raise RenderError("layout: centers must be exactly the nine centers")
    gates = {int(g): _point(p, f"gate {g}") for g, p in raw["gates"].items()}
    if set(gates) != set(t.gates):
        raise RenderError("layout: gates must be exactly 1..64")
    shorts = {c.short for c in t.channels}
    routes = {
        short: tuple(_point(p, f"route {short}") for p in points)
        for short, points in raw["routes"].items()
    }
    if not set(routes) <= shorts:
        raise RenderError(f"layout: routes for unknown channels {sorted(set(routes) - shorts)}")
    radius = float(raw["corner_radius"])
    return Layout(
        width=float(raw["width"]),
        height=float(raw["height"]),
        gate_radius=float(raw["gate_radius"]),
        corner_radius=radius,
        centers=MappingProxyType(centers),
        gates=MappingProxyType(gates),
        routes=MappingProxyType(routes),
        center_paths=MappingProxyType({
            name: rounded_polygon_path(points, radius) for name, points in centers.items()}),
        channel_halves=MappingProxyType({
            channel.short: split_half(_channel_points(gates, routes, channel))
            for channel in t.channels}),
    )


@cache
def layout() -> Layout:
    """The shipped layout, parsed once per process."""
    text = resources.files("bodygraph.render").joinpath("layout.json").read_text("utf-8")
    return parse_layout(json.loads(text))


@lru_cache(maxsize=4096)
def num(value: float) -> str:
    """A coordinate as short, stable text: at most two decimals, no ``-0``.

    Cached: a drawing formats some 1,300 numbers, nearly all of them the layout's
    (a few hundred distinct values over many charts), and a cache hit costs a third of
    formatting. Equal keys format alike (``0.0`` and ``-0.0`` both give ``"0"``, ``2``
    and ``2.0`` both ``"2"``), so the text does not depend on what was cached first.
    """
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def polyline_path(points: Sequence[Point]) -> str:
    """SVG path data through ``points``."""
    head, *rest = points
    return f"M{num(head[0])} {num(head[1])}" + "".join(f"L{num(x)} {num(y)}" for x, y in rest)


def rounded_polygon_path(points: Sequence[Point], radius: float) -> str:
    """SVG path data of a closed polygon whose corners are rounded by ``radius``.

    Each corner is cut at ``radius`` (at most a third of the shorter side) along
    both sides and joined by a quadratic curve through the corner.
    """
    n = len(points)
    parts: list[str] = []
    for i in range(n):
        prev, here, nxt = points[i - 1], points[i], points[(i + 1) % n]
        cut_in = _toward(here, prev, radius)
        cut_out = _toward(here, nxt, radius)
        op = "M" if i == 0 else "L"
        parts.append(f"{op}{num(cut_in[0])} {num(cut_in[1])}")
        parts.append(f"Q{num(here[0])} {num(here[1])} {num(cut_out[0])} {num(cut_out[1])}")
    return "".join(parts) + "Z"


def _toward(origin: Point, target: Point, distance: float) -> Point:
    dx, dy = target[0] - origin[0], target[1] - origin[1]
    length = math.hypot(dx, dy)
    step = min(distance, length / 3) / length
    return (origin[0] + dx * step, origin[1] + dy * step)


def split_half(points: Sequence[Point]) -> tuple[tuple[Point, ...], tuple[Point, ...]]:
    """Cut a polyline at half its length: (first half, second half), both from the ends."""
    lengths = [math.dist(a, b) for a, b in pairwise(points)]
    remaining = sum(lengths) / 2
    for i, seg in enumerate(lengths):
        if remaining <= seg:
            a, b = points[i], points[i + 1]
            f = remaining / seg if seg else 0.0
            mid = (a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f)
            return (*points[: i + 1], mid), (mid, *points[i + 1 :])
        remaining -= seg
    raise RenderError("cannot split an empty polyline")  # pragma: no cover - lengths sum
