"""A per-client token bucket for the image route, in one worker's memory, for a bounded
number of client addresses (the rates, proxies and why: docs/render.md)."""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

RENDER_RATE = 20.0
"""Images per second and client address, per worker."""
RENDER_BURST = 40
"""Images a client may fetch at once before the rate applies."""
MAX_CLIENTS = 10_000
"""Client addresses whose buckets are kept."""


class Throttle:
    """Token buckets keyed by client address (thread-safe)."""

    def __init__(
        self,
        rate: float = RENDER_RATE,
        burst: int = RENDER_BURST,
        *,
        max_clients: int = MAX_CLIENTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate <= 0 or burst < 1 or max_clients < 1:
            raise ValueError("rate, burst and max_clients must be positive")
        self.rate = rate
        self.burst = burst
        self._max = max_clients
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, client: str, cost: int = 1) -> int:
        """Take ``cost`` images (at most ``burst``) for ``client``: 0 when allowed, else
        the seconds to wait."""
        if not 1 <= cost <= self.burst:
            raise ValueError("cost must be between 1 and the burst")
        now = self._clock()
        with self._lock:
            tokens, stamp = self._buckets.pop(client, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - stamp) * self.rate)
            allowed = tokens >= cost
            if allowed:
                tokens -= cost
            self._buckets[client] = (tokens, now)
            while len(self._buckets) > self._max:
                self._buckets.popitem(last=False)
        return 0 if allowed else max(1, math.ceil((cost - tokens) / self.rate))

    def __len__(self) -> int:
        with self._lock:
            return len(self._buckets)
