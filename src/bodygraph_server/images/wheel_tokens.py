"""Render tokens of the mandala wheel (versions 8 and 9, sealed as the chart tokens): the
26 or 39 longitudes as big-endian doubles and nothing else, no date, place, account or
theme (layout: docs/render.md, "Render tokens")."""

from __future__ import annotations

import math
import struct

from bodygraph.catalog.translations import pgettext
from bodygraph.model.chart import BODIES
from bodygraph.render.wheel import WheelInput
from bodygraph_server.images.tokens import (
    LONGITUDE_BYTES,
    WHEEL_TRANSIT_VERSION,
    WHEEL_VERSION,
    MalformedTokenError,
)

_COUNT = len(BODIES)


def encode_wheel(data: WheelInput) -> tuple[int, bytes]:
    """The token version and payload of a wheel: its longitudes (in 0..360)."""
    rows = [data.personality, data.design]
    if data.transit is not None:
        rows.append(data.transit)
    values = [value % 360.0 for row in rows for value in row]
    version = WHEEL_VERSION if data.transit is None else WHEEL_TRANSIT_VERSION
    return version, struct.pack(f">{len(values)}d", *values)


def decode_wheel(payload: bytes) -> WheelInput:
    """The wheel of a payload of version 8 or 9 (its length checked by the token);
    :class:`MalformedTokenError` for a value that is not a longitude."""
    values = struct.unpack(f">{len(payload) // LONGITUDE_BYTES}d", payload)
    if not all(math.isfinite(v) and 0.0 <= v < 360.0 for v in values):
        raise MalformedTokenError(pgettext(
            "service error", "payload is not a wheel: a longitude is out of range"))
    rows = [tuple(values[k:k + _COUNT]) for k in range(0, len(values), _COUNT)]
    return WheelInput(rows[0], rows[1], rows[2] if len(rows) > 2 else None)
