"""A per-client token bucket for the image route, kept in the memory of one worker.

Render links are public and need no key, so the API's rate limit cannot apply; without
a limit one client fetching one link in a loop keeps a worker drawing. Each client
address gets a bucket of ``burst`` images refilled at ``rate`` per second; an empty
bucket is 429 ``RATE_LIMIT_EXCEEDED`` with ``Retry-After``. A costly image (a PNG) takes
several images from the bucket at once. The buckets of at most
``max_clients`` addresses are kept (the least recently seen dropped first), so the
memory is bounded whatever the number of clients. The limit is per worker process: with
``n`` workers a client can draw at most ``n`` times the rate. Behind a reverse proxy
every request comes from the proxy's address unless the proxy is one of the
``forwarded_allow_ips`` setting (none by default), whose ``X-Forwarded-For`` uvicorn then
believes (:mod:`bodygraph_server.serve`).
"""

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
