"""Straightforward re-implementations of the relations, from their definitions in
issue 12, written without the library's relations code (only the channel table)."""

from __future__ import annotations

from bodygraph.catalog.tables import tables

PENTA_PAIRS = {(1, 8), (13, 33), (7, 31), (2, 14), (5, 15), (29, 46)}


def channel_pairs() -> list[tuple[int, int]]:
    return [c.gates for c in tables().channels]


def classes(a: set[int], b: set[int]) -> dict[str, tuple[str, int | None]]:
    """{short name: (class, person who has the whole channel or None)}."""
    out: dict[str, tuple[str, int | None]] = {}
    for x, y in channel_pairs():
        a_x, a_y, b_x, b_y = x in a, y in a, x in b, y in b
        a_whole, b_whole = a_x and a_y, b_x and b_y
        a_none, b_none = not (a_x or a_y), not (b_x or b_y)
        name = f"{x}-{y}"
        if a_whole and b_whole:
            out[name] = ("companionship", None)
        elif a_whole and b_none:
            out[name] = ("dominance", 1)
        elif b_whole and a_none:
            out[name] = ("dominance", 2)
        elif a_whole:
            out[name] = ("compromise", 1)
        elif b_whole:
            out[name] = ("compromise", 2)
        elif (a_x and not a_y and b_y and not b_x) or (a_y and not a_x and b_x and not b_y):
            out[name] = ("electromagnetic", None)
    return out


def defined(gates: set[int]) -> set[str]:
    """Short names of the channels whose two gates are in ``gates``."""
    return {f"{x}-{y}" for x, y in channel_pairs() if x in gates and y in gates}


def centers_of(gates: set[int]) -> set[str]:
    """Centers touched by a defined channel."""
    return {center for c in tables().channels if c.gates[0] in gates and c.gates[1] in gates
            for center in c.centers}
