"""The progress bar of a batch job."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import IO


class Progress:
    """A one-line progress bar on a text stream (redrawn at most 5 times a second)."""

    WIDTH = 30

    def __init__(self, total: int | None, stream: IO[str], *, enabled: bool,
                 say: Callable[[str], str] = str) -> None:
        self.total = total
        self.say = say
        self.stream = stream
        self.enabled = enabled
        self.done = 0
        self.errors = 0
        self.started = time.monotonic()
        self._drawn = 0.0

    def update(self, rows: int, errors: int) -> None:
        """Count ``rows`` more rows, ``errors`` of them bad."""
        self.done += rows
        self.errors += errors
        now = time.monotonic()
        if self.enabled and now - self._drawn >= 0.2:
            self._drawn = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        rate = self.done / max(now - self.started, 1e-9)
        if self.total:
            share = min(self.done / self.total, 1.0)
            filled = int(share * self.WIDTH)
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            text = f"[{bar}] {share:6.1%} {self.done:,}/{self.total:,}"
        else:
            text = f"{self.done:,} rows"
        self.stream.write("\r" + self.say(f"{text}  {rate:,.0f} rows/s  {self.errors:,} bad"))
        self.stream.flush()

    def finish(self) -> None:
        """Draw the final state and end the line."""
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()
