"""The two forms of a rendered chart on the image route: SVG (gzip when accepted, the same
bytes every time) and PNG (rasterised in a worker thread, a bounded number at once, costing
more of the throttle); docs/render.md."""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field

import anyio
import anyio.to_thread

from bodygraph.render.raster import svg_to_png

SVG_MEDIA_TYPE = "image/svg+xml"
PNG_MEDIA_TYPE = "image/png"
FORMATS = ("svg", "png")
"""The suffixes the route serves."""
PNG_COST = 10
"""Images of the render throttle one PNG takes (an SVG takes one)."""
RASTER_CONCURRENCY = 2
"""PNGs rasterised at once per worker process; further requests wait their turn."""


def split_image_name(image: str) -> tuple[str, str]:
    """``("<template>", "svg"|"png")`` of a path segment such as ``default.png``; else
    ``ValueError``."""
    name, dot, suffix = image.rpartition(".")
    if not dot or suffix not in FORMATS:
        raise ValueError(f"{image!r} is not <template>.svg or <template>.png")
    return name, suffix


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header allows gzip (RFC 9110 section 12.5.3):
    ``gzip`` or ``x-gzip`` with a non-zero weight, or ``*`` with a non-zero weight when
    gzip is not named."""
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        coding, _, params = item.partition(";")
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value.strip())
                except ValueError:
                    weight = 0.0
        weights[coding.strip().lower()] = weight
    for name in ("gzip", "x-gzip"):
        if name in weights:
            return weights[name] > 0
    return weights.get("*", 0.0) > 0


def svg_body(document: str, accept_encoding: str) -> tuple[bytes, dict[str, str]]:
    """The body of an SVG answer and its encoding headers."""
    data = document.encode("utf-8")
    if accepts_gzip(accept_encoding):
        return (gzip.compress(data, compresslevel=6, mtime=0),
                {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
    return data, {"Vary": "Accept-Encoding"}


@dataclass(slots=True)
class Rasteriser:
    """Rasterises documents in worker threads, at most ``concurrency`` at once."""

    concurrency: int = RASTER_CONCURRENCY
    _limiter: anyio.CapacityLimiter | None = field(default=None, init=False, repr=False)

    async def png(self, document: str) -> bytes:
        """The PNG of ``document``; :class:`~bodygraph.render.PngUnavailableError` without
        cairosvg or cairo."""
        if self._limiter is None:  # created in the event loop that uses it
            self._limiter = anyio.CapacityLimiter(self.concurrency)
        return await anyio.to_thread.run_sync(svg_to_png, document, limiter=self._limiter)
