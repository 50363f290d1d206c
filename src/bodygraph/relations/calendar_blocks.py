"""The ingress calendar in fixed blocks: every UTC calendar month ``(first instant of the
month, first instant of the next]`` is searched on its own grid, so its ingresses do not
depend on the range asked for, and a calendar is the union of its months' ingresses cut
to the range. A month's ingresses are therefore the same whoever asks and can be kept
(:class:`BlockSource`; the service shares them between callers).

A block's ingresses are columns (:class:`IngressColumns`): the microsecond instant, the
body (its index in ``BODIES``), the gate and the line entered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from bodygraph._time import utc64_to_tt
from bodygraph._typing import IntArray, Micros
from bodygraph.calculator import Calculator, activation_longitudes
from bodygraph.ephemeris.fast.jit import sources_digest
from bodygraph.model.chart import BODIES, NodeKind
from bodygraph.relations.labels import ingress_labels
from bodygraph.relations.search import (
    OPPOSITES,
    SOURCES,
    US_PER_S,
    WHEEL_OFFSET,
    crossings,
    wheel_sides,
)
from bodygraph.rules.wheel import GATE, LINE, opposite, positions

Level = Literal["gate", "line"]
LEVELS: dict[str, int] = {"gate": GATE, "line": LINE}
#: Grid of the bracketing search: the true node's stations are hours apart at their closest.
STEP_US = 3600 * US_PER_S
#: Most blocks searched in one pass (bounds the memory of long ranges).
BLOCKS_PER_PASS = 12
#: A block: months since January 1970 (``numpy.datetime64(..., "M")`` as an integer).
Month = int
#: The blocks of ``months`` (in that order), each with every body's ingresses.
BlockSource = Callable[[Sequence[Month]], Sequence["IngressColumns"]]

_OPPOSITE_OF = np.full(len(BODIES), -1, dtype=np.int64)
for _source, _mirror in OPPOSITES.items():
    _OPPOSITE_OF[_source] = _mirror
_BODY_NAMES = np.array([b.value for b in BODIES])


@dataclass(frozen=True, slots=True)
class IngressColumns:
    """Ingresses in time order (bodies in contract order at equal instants): the
    instant (microseconds since 1970, UTC; the first microsecond on the new side), the
    body (index in ``BODIES``), the gate and the line entered."""

    at: IntArray
    body: IntArray
    gate: IntArray
    line: IntArray

    def __len__(self) -> int:
        return int(self.at.size)

    @staticmethod
    def join(blocks: Iterable[IngressColumns]) -> IngressColumns:
        """Consecutive blocks' ingresses in one set of columns."""
        parts = list(blocks)
        if not parts:
            return _empty()
        return IngressColumns(*(np.concatenate([getattr(b, name) for b in parts])
                                for name in ("at", "body", "gate", "line")))

    def select(self, first: int, last: int, bodies: Iterable[int]) -> IngressColumns:
        """The ingresses of ``bodies`` (``BODIES`` indices) in ``(first, last]``
        (microseconds)."""
        keep = (self.at > first) & (self.at <= last) & np.isin(self.body, list(bodies))
        return IngressColumns(self.at[keep], self.body[keep], self.gate[keep],
                              self.line[keep])

    def to_dicts(self) -> list[dict[str, str]]:
        """``Ingress.to_dict()`` of every ingress, written from the columns (the instant
        to the nearest second, half a second up; the tests hold the two equal)."""
        seconds = (self.at + US_PER_S // 2) // US_PER_S
        texts = np.datetime_as_string(seconds.astype("datetime64[s]"), unit="s").tolist()
        names = _BODY_NAMES[self.body].tolist()
        return [{"at": at + ".000Z", "body": body, "gate": str(gate), "line": str(line)}
                for at, body, gate, line in zip(texts, names, self.gate.tolist(),
                                                self.line.tolist(), strict=True)]

    def labels(self, lang: str) -> list[dict[str, str]]:
        """``Ingress.labels(lang)`` of every ingress, in the order of :meth:`to_dicts`."""
        named = {b: ingress_labels(BODIES[b], lang) for b in set(self.body.tolist())}
        return [dict(named[b]) for b in self.body.tolist()]


def _empty() -> IngressColumns:
    none = np.zeros(0, dtype=np.int64)
    return IngressColumns(none, none, none, none)


def month_start(month: Month) -> int:
    """The first instant of ``month`` (microseconds since 1970, UTC)."""
    return int(np.datetime64(month, "M").astype("datetime64[us]").astype(np.int64))


def months_between(first: int, last: int) -> list[Month]:
    """The blocks that hold the instants of ``(first, last]`` (microseconds): an
    instant belongs to the month of the microsecond before it (midnight of the 1st
    closes the month before)."""
    def month_of(micros: int) -> Month:
        return int(np.datetime64(micros, "us").astype("datetime64[M]").astype(np.int64))

    return list(range(month_of(first), month_of(last - 1) + 1))


def block_span(month: Month, calculator: Calculator) -> tuple[int, int]:
    """The block ``(start, end]`` of ``month`` in microseconds, cut to the instants the
    kernel serves."""
    low = int(np.datetime64(calculator.first_birth.replace(tzinfo=None), "us")
              .astype(np.int64))
    high = int(np.datetime64(calculator.last_birth.replace(tzinfo=None), "us")
               .astype(np.int64))
    return max(month_start(month), low), min(month_start(month + 1), high)


def compute_blocks(months: Sequence[Month], bodies: Iterable[int], level: Level,
                   node: NodeKind, calculator: Calculator) -> list[IngressColumns]:
    """The ingresses of ``bodies`` (``BODIES`` indices) in each block of ``months`` (in
    the kernel's range), in that order. Every block is searched on its own hourly grid
    and each body on its own, so a block's ingresses of a body are the same whichever
    other blocks and bodies are searched with it."""
    wanted = sorted(set(bodies))
    spans = [block_span(month, calculator) for month in months]
    by_length: dict[int, list[int]] = {}
    for i, (start, end) in enumerate(spans):
        by_length.setdefault(end - start, []).append(i)
    found: list[IngressColumns] = [_empty()] * len(spans)
    for same in by_length.values():
        for k in range(0, len(same), BLOCKS_PER_PASS):
            part = same[k:k + BLOCKS_PER_PASS]
            blocks = _search([spans[i] for i in part], wanted, LEVELS[level], node,
                             calculator)
            for i, block in zip(part, blocks, strict=True):
                found[i] = block
    return found


def _search(spans: Sequence[tuple[int, int]], wanted: Sequence[int], width: int,
            node: NodeKind, calculator: Calculator) -> list[IngressColumns]:
    """One pass of :func:`~bodygraph.relations.search.crossings` over blocks of one
    length; the ingresses of each block."""
    rows = np.array([s for s in SOURCES if s in wanted or OPPOSITES.get(s) in wanted],
                    dtype=np.intp)

    def sample(instants: Micros) -> np.ndarray:
        engine_rows = calculator.engine.longitudes(utc64_to_tt(instants), node)
        out: np.ndarray = activation_longitudes(engine_rows)[rows]
        return out

    starts = np.array([s for s, _ in spans], dtype=np.int64).astype("datetime64[us]")
    ends = np.array([e for _, e in spans], dtype=np.int64).astype("datetime64[us]")
    found = crossings(sample, starts, ends, np.array(float(WHEEL_OFFSET)), width, STEP_US)
    _, after = wheel_sides(found)
    source = rows[found.track].astype(np.int64)
    mirror = _OPPOSITE_OF[source]
    direct = np.isin(source, wanted)
    mirrored = (mirror >= 0) & np.isin(mirror, wanted)
    at = found.at.astype(np.int64)
    crossing = np.arange(at.size)
    instants = np.concatenate([at[direct], at[mirrored]])
    body = np.concatenate([source[direct], mirror[mirrored]])
    index = np.concatenate([crossing[direct], crossing[mirrored]])
    units = np.concatenate([after[direct], opposite(after[mirrored])]).astype(np.int64)
    window = np.concatenate([found.window[direct], found.window[mirrored]])
    order = np.lexsort((units, index, body, instants))
    wheel = positions(units[order])
    columns = IngressColumns(instants[order], body[order], wheel.gate.astype(np.int64),
                             wheel.line.astype(np.int64))
    window = window[order]
    return [IngressColumns(columns.at[window == w], columns.body[window == w],
                           columns.gate[window == w], columns.line[window == w])
            for w in range(len(spans))]


def block_identity(calculator: Calculator, node: NodeKind) -> str:
    """A digest of what a block's ingresses depend on besides its month and level: the
    library's sources (the search, the engine, the wheel), the kernel file, the engine
    and the node. Blocks kept under another identity must not be used."""
    package = Path(__file__).parents[1]
    files = [*sorted(package.rglob("*.py")), package / "data" / "hd-tables.json",
             calculator.kernel_path]
    engine = type(calculator.engine)
    return f"{sources_digest(files)}-{engine.__module__}.{engine.__qualname__}-{node}"
