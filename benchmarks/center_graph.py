"""Time ``bodygraph.rules.graph.center_graph`` on the channel sets of a batch of random
births, without a cache (as it is) and behind caches of several sizes, with their hit
rates: whether a cache of channel sets earns its memory in a long-running worker.

    .venv/bin/python benchmarks/center_graph.py [--births 20000] [--rounds 5]

CPU time per call, best of ``--rounds`` passes over the batch (each cache emptied first,
so a pass sees the batch's own repeats only).
"""

from __future__ import annotations

import argparse
import functools
import random
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import bodygraph
from bodygraph.catalog.tables import Channel
from bodygraph.rules.graph import CenterGraph, center_graph

CACHE_SIZES = (256, 4096, None)
"""The caches tried (None: unbounded, as it was)."""


def channel_sets(births: int, seed: int = 1) -> list[tuple[Channel, ...]]:
    """The defined channels of ``births`` random births, 1801-2198."""
    draw = random.Random(seed)
    start, span = datetime(1801, 1, 1, tzinfo=UTC), int(397 * 365.25 * 86400)
    instants = [start + timedelta(seconds=draw.randrange(span)) for _ in range(births)]
    return [chart.channels for chart in bodygraph.Calculator().calculate_list(instants)]


def per_call(build: Callable[[Sequence[Channel]], CenterGraph],
             sets: list[tuple[Channel, ...]], rounds: int, clear: Callable[[], None]) -> float:
    """Microseconds of CPU per call, best of ``rounds`` passes."""
    best = float("inf")
    for _ in range(rounds):
        clear()
        started = time.process_time()
        for channels in sets:
            build(channels)
        best = min(best, time.process_time() - started)
    return best / len(sets) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--births", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sets = channel_sets(args.births)
    print(f"{args.births:,} births, {len(set(map(frozenset, sets))):,} distinct channel sets")
    print(f"{'variant':<22} {'us per call':>11} {'hit rate':>9}")
    plain = per_call(center_graph, sets, args.rounds, lambda: None)
    print(f"{'no cache':<22} {plain:>11.2f} {'-':>9}")
    for size in CACHE_SIZES:
        cached = functools.lru_cache(maxsize=size)(
            lambda channels: center_graph(channels))

        def lookup(channels: Sequence[Channel],
                   cached: Callable[[frozenset[Channel]], CenterGraph] = cached) -> CenterGraph:
            return cached(frozenset(channels))  # keyed as the old cache was

        seconds = per_call(lookup, sets, args.rounds, cached.cache_clear)
        info = cached.cache_info()
        rate = info.hits / (info.hits + info.misses)
        name = f"cache of {size:,}" if size else "unbounded cache"
        print(f"{name:<22} {seconds:>11.2f} {rate:>9.2f}")


if __name__ == "__main__":
    main()
