"""The layout keeps marks apart: no two gate dots touch (at the compact variant's larger
size too) and the visible parts of neighbouring channels keep a gap between their tubes."""

from __future__ import annotations

import itertools
import math

import pytest

from bodygraph.catalog.tables import tables
from bodygraph.render.drawing import COMPACT, FULL, OUTLINE_WIDTH
from bodygraph.render.geometry import Layout, Point, layout
from bodygraph.render.marks import RING_WIDTH

GAP = 1.0  # graph units of clear space required between two marks


def inside(point: Point, polygon: tuple[Point, ...]) -> bool:
    """Ray casting: is the point inside the (convex or not) polygon?"""
    x, y = point
    hit = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


def to_edge(point: Point, polygon: tuple[Point, ...]) -> float:
    """Distance from a point to the polygon's outline."""
    best = math.inf
    for a, b in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        (ax, ay), (bx, by) = a, b
        length2 = (bx - ax) ** 2 + (by - ay) ** 2
        t = max(0.0, min(1.0, ((point[0] - ax) * (bx - ax) + (point[1] - ay) * (by - ay))
                         / length2))
        best = min(best, math.dist(point, (ax + t * (bx - ax), ay + t * (by - ay))))
    return best


def covered(point: Point, geo: Layout) -> bool:
    """Is the whole width of a tube centred here under a center (drawn on top of channels)?
    Corners count as open: they are rounded off."""
    for poly in geo.centers.values():
        if inside(point, poly) and to_edge(point, poly) > OUTLINE_WIDTH / 2 and all(
            math.dist(point, corner) > 2 * geo.corner_radius for corner in poly
        ):
            return True
    return False


def visible_samples(geo: Layout, short: str, step: float = 0.5) -> list[Point]:
    """Points along a channel's centre line whose tube shows outside the centers."""
    channel = next(c for c in tables().channels if c.short == short)
    points = geo.channel_points(channel)
    out: list[Point] = []
    for (x1, y1), (x2, y2) in itertools.pairwise(points):
        n = max(1, int(math.dist((x1, y1), (x2, y2)) / step))
        for i in range(n + 1):
            p = (x1 + (x2 - x1) * i / n, y1 + (y2 - y1) * i / n)
            if not covered(p, geo):
                out.append(p)
    return out


@pytest.mark.parametrize("sizes", [FULL, COMPACT], ids=["full", "compact"])
def test_no_two_gate_dots_touch(sizes: object) -> None:
    geo = layout()
    reach = sizes.dot + RING_WIDTH / 2  # type: ignore[attr-defined]
    for a, b in itertools.combinations(sorted(geo.gates), 2):
        distance = math.dist(geo.gates[a], geo.gates[b])
        assert distance >= 2 * reach + GAP, f"gates {a} and {b} touch ({distance:.1f})"


def test_throat_gates_33_and_45_stand_apart() -> None:
    geo = layout()
    assert math.dist(geo.gates[33], geo.gates[45]) >= 2 * (COMPACT.dot + RING_WIDTH) + GAP


@pytest.mark.parametrize(("a", "b", "gap"), [("12-22", "21-45", 3.0), ("35-36", "12-22", GAP),
                                             ("21-45", "26-44", GAP), ("21-45", "25-51", GAP)])
def test_neighbouring_channels_do_not_touch(a: str, b: str, gap: float) -> None:
    geo = layout()
    first, second = visible_samples(geo, a), visible_samples(geo, b)
    assert first and second
    ends = {g for c in tables().channels if c.short in (a, b) for g in c.gates}
    shared = [geo.gates[g] for g in ends if sum(g in c.gates for c in tables().channels
                                                if c.short in (a, b)) == 2]
    closest = min((math.dist(p, q) for p in first for q in second
                   if not any(math.dist(p, s) < 15 for s in shared)), default=math.inf)
    assert closest >= OUTLINE_WIDTH + gap, f"{a} and {b} come within {closest:.1f}"
