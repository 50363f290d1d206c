"""The calendar's cache of months (bodygraph_server.calendar_cache): stored bytes give
back the same columns; memory holds at most its capacity and an evicted month comes back
from the shared store, not from a new computation; one computation at a time per
process, and threads asking for the same months at once compute them once; the OpenAPI
document says so."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import httpx
import numpy as np
import pytest

import bodygraph.relations.calendar_blocks as calendar_blocks
from bodygraph.calculator import default_calculator
from bodygraph.relations.calendar_blocks import IngressColumns, compute_blocks
from bodygraph_server.calendar_cache import CalendarCache, decode, encode

JANUARY_2024 = (2024 - 1970) * 12


class DictBlocks:
    """A shared store in a dict."""

    def __init__(self) -> None:
        self.rows: dict[str, bytes] = {}

    def get(self, keys: Sequence[str]) -> dict[str, bytes]:
        return {key: self.rows[key] for key in keys if key in self.rows}

    def put(self, blocks: Sequence[tuple[str, bytes]], now: datetime) -> None:
        for key, value in blocks:
            self.rows.setdefault(key, value)


class Counted:
    """The library's block computation, counted: months computed, and the most calls
    running at once (each held a moment, so that overlapping calls would overlap)."""

    def __init__(self) -> None:
        self.months: list[int] = []
        self.running = 0
        self.most = 0
        self._lock = threading.Lock()

    def __call__(self, months: Sequence[int], *args: Any, **kwargs: Any) -> list[IngressColumns]:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
            self.months.extend(months)
        try:
            time.sleep(0.05)
            return compute(months, *args, **kwargs)
        finally:
            with self._lock:
                self.running -= 1


compute = calendar_blocks.compute_blocks


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counted]:
    calls = Counted()
    monkeypatch.setattr(calendar_blocks, "compute_blocks", calls)
    yield calls


def _now() -> datetime:
    return datetime(2026, 3, 1, tzinfo=UTC)


def _same(a: IngressColumns, b: IngressColumns) -> bool:
    return all(np.array_equal(getattr(a, name), getattr(b, name))
               for name in ("at", "body", "gate", "line"))


def test_stored_bytes_give_back_the_columns() -> None:
    block = compute_blocks([JANUARY_2024], range(13), "line", "true",
                           default_calculator(None))[0]
    assert len(block) > 100
    again = decode(encode(block))
    assert _same(again, block) and again.at.dtype == np.int64


def test_memory_is_bounded_and_an_evicted_month_comes_from_the_store(
    counted: Counted,
) -> None:
    shared = DictBlocks()
    cache = CalendarCache(shared, _now, capacity=2)
    months = [JANUARY_2024, JANUARY_2024 + 1, JANUARY_2024 + 2]
    first = cache.blocks("gate", months)
    assert counted.months == months and len(shared.rows) == 3
    assert cache.memory_size() == 2
    again = cache.blocks("gate", months)  # January was evicted: read back, not computed
    assert counted.months == months and cache.computed == 3
    assert all(_same(a, b) for a, b in zip(first, again, strict=True))
    other = CalendarCache(shared, _now, capacity=2)  # another process on the same store
    assert all(_same(a, b) for a, b in zip(other.blocks("gate", months), first, strict=True))
    assert other.computed == 0


def test_one_computation_at_a_time_and_each_month_once(counted: Counted) -> None:
    cache = CalendarCache(DictBlocks(), _now)
    asks = [[JANUARY_2024, JANUARY_2024 + 1], [JANUARY_2024 + 1], [JANUARY_2024 + 5],
            [JANUARY_2024, JANUARY_2024 + 1], [JANUARY_2024 + 7, JANUARY_2024 + 5]]
    threads = [threading.Thread(target=cache.blocks, args=("line", months))
               for months in asks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counted.most == 1
    assert sorted(counted.months) == sorted({m for months in asks for m in months})
    assert cache.computed == 4


@pytest.mark.anyio
async def test_the_openapi_document_says_the_months_are_shared(
    client: httpx.AsyncClient,
) -> None:
    document = (await client.get("/openapi.json")).json()
    described = document["paths"]["/v2/calendar"]["post"]["description"]
    assert "computed once and shared by every caller" in described
    assert "at most 366 days" in described
