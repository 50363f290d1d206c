"""The progress bar of a batch job."""

from __future__ import annotations

import time
from typing import IO

from bodygraph.catalog.batch_lines import PROGRESS, ROWS
from bodygraph.catalog.numbers import number_text, percent_text
from bodygraph.catalog.translations import SOURCE_LANGUAGE


class Progress:
    """A one-line progress bar on a text stream (redrawn at most 5 times a second), its
    words and numbers in ``lang``."""

    WIDTH = 30

    def __init__(self, total: int | None, stream: IO[str], *, enabled: bool,
                 lang: str = SOURCE_LANGUAGE) -> None:
        self.total = total
        self.lang = lang
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
        lang = self.lang
        rate = self.done / max(now - self.started, 1e-9)
        done = number_text(self.done, lang)
        if self.total:
            share = min(self.done / self.total, 1.0)
            filled = int(share * self.WIDTH)
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            text = (f"[{bar}] {percent_text(share, lang):>6} {done}/"
                    f"{number_text(self.total, lang)}")
        else:
            text = ROWS.said(lang, self.done).format(count=done)
        self.stream.write("\r" + PROGRESS.said(lang, self.errors).format(
            progress=text, rate=number_text(rate, lang),
            errors=number_text(self.errors, lang)))
        self.stream.flush()

    def finish(self) -> None:
        """Draw the final state and end the line."""
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()
