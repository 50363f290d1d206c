"""The ingress calendar's months, shared by every caller: each month of each level computed
once and kept in this process (an LRU) and in the database (table ``calendar_blocks``);
the keys and the sharing rules: docs/api.md, "The calendar's months"."""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from bodygraph.calculator import Calculator
    from bodygraph.relations.calendar_blocks import BlockSource, IngressColumns, Level, Month

MEMORY_BLOCKS = 512
"""Most blocks one process keeps in memory (the size of a month: docs/performance.md)."""
FORMAT = "c1"
"""The layout of a stored block (:func:`encode`); part of the key."""


class SharedBlocks(Protocol):
    """Where blocks are shared between processes (:class:`~bodygraph_server.store.
    calendar_blocks.SqlCalendarBlocks`)."""

    def get(self, keys: Sequence[str]) -> dict[str, bytes]: ...

    def put(self, blocks: Sequence[tuple[str, bytes]], now: datetime) -> None: ...


def encode(block: IngressColumns) -> bytes:
    """A block as bytes: its ingresses' instants (little-endian int64), then bodies,
    gates and lines (one byte each), compressed."""
    parts = [block.at.astype("<i8").tobytes()]
    parts += [column.astype(np.uint8).tobytes() for column in (block.body, block.gate,
                                                                block.line)]
    return zlib.compress(b"".join(parts))


def decode(data: bytes) -> IngressColumns:
    """The block :func:`encode` wrote."""
    from bodygraph.relations.calendar_blocks import IngressColumns

    raw = zlib.decompress(data)
    count = len(raw) // 11
    at = np.frombuffer(raw, dtype="<i8", count=count).astype(np.int64)
    small = [np.frombuffer(raw, dtype=np.uint8, count=count, offset=8 * count + k * count)
             .astype(np.int64) for k in range(3)]
    return IngressColumns(at, *small)


class CalendarCache:
    """The blocks of the service's calendar (true node, the default kernel): memory,
    then ``shared``, then computed. Thread-safe; blocking (call from a worker thread)."""

    def __init__(self, shared: SharedBlocks | None, now: Callable[[], datetime],
                 capacity: int = MEMORY_BLOCKS) -> None:
        self._shared = shared
        self._now = now
        self._capacity = capacity
        self._memory: OrderedDict[str, IngressColumns] = OrderedDict()
        self._memory_lock = threading.Lock()
        self._compute_lock = threading.Lock()
        self._made: tuple[Calculator, str] | None = None
        self.computed = 0
        """Blocks this process computed (the rest came from memory or ``shared``)."""

    def source(self, level: Level) -> BlockSource:
        """The blocks of ``level`` for :func:`bodygraph.relations.calendar.calendar_columns`."""
        return lambda months: self.blocks(level, months)

    def blocks(self, level: Level, months: Sequence[Month]) -> list[IngressColumns]:
        """Every body's ingresses at ``level`` in each of ``months``, in that order."""
        named = [self._key(level, month) for month in months]
        keys = dict(zip(named, months, strict=True))
        found = self._recall(list(keys))
        if len(found) < len(keys):
            found.update(self._load([key for key in keys if key not in found]))
        if len(found) < len(keys):
            with self._compute_lock:  # one computation at a time; then look again
                wanted = [key for key in keys if key not in found]
                found.update(self._recall(wanted))
                wanted = [key for key in wanted if key not in found]
                if wanted:
                    found.update(self._load(wanted))
                wanted = [key for key in wanted if key not in found]
                if wanted:
                    found.update(self._compute(level, {key: keys[key] for key in wanted}))
        return [found[key] for key in named]

    def memory_size(self) -> int:
        """How many blocks this process holds in memory (at most its capacity)."""
        with self._memory_lock:
            return len(self._memory)

    def _calculator(self) -> tuple[Calculator, str]:
        with self._memory_lock:
            if self._made is None:
                from bodygraph.calculator import default_calculator
                from bodygraph.relations.calendar_blocks import block_identity

                calculator = default_calculator(None)
                self._made = calculator, block_identity(calculator, "true")
            return self._made

    def _key(self, level: Level, month: Month) -> str:
        year, month0 = divmod(month, 12)
        return f"{FORMAT}/{self._calculator()[1]}/{level}/{1970 + year:04d}-{month0 + 1:02d}"

    def _recall(self, keys: Sequence[str]) -> dict[str, IngressColumns]:
        with self._memory_lock:
            found = {key: self._memory[key] for key in keys if key in self._memory}
            for key in found:
                self._memory.move_to_end(key)
        return found

    def _remember(self, blocks: dict[str, IngressColumns]) -> None:
        with self._memory_lock:
            self._memory.update(blocks)
            for key in blocks:
                self._memory.move_to_end(key)
            while len(self._memory) > self._capacity:
                self._memory.popitem(last=False)

    def _load(self, keys: Sequence[str]) -> dict[str, IngressColumns]:
        if self._shared is None:
            return {}
        found = {key: decode(data) for key, data in self._shared.get(keys).items()}
        self._remember(found)
        return found

    def _compute(self, level: Level, months: dict[str, Month]) -> dict[str, IngressColumns]:
        from bodygraph.model.chart import BODIES
        from bodygraph.relations.calendar_blocks import compute_blocks

        calculator = self._calculator()[0]
        blocks = compute_blocks(list(months.values()), range(len(BODIES)), level=level,
                                node="true", calculator=calculator)
        found = dict(zip(months, blocks, strict=True))
        self.computed += len(found)
        if self._shared is not None:
            self._shared.put([(key, encode(block)) for key, block in found.items()],
                             self._now())
        self._remember(found)
        return found
