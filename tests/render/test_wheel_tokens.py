"""Render tokens of the mandala wheel (versions 8 and 9): round trips of the exact
longitudes, a payload of longitudes only, refusals (a valid seal over values that are no
longitudes, every bit flipped, another template, another kind)."""

from __future__ import annotations

import base64
import math
import struct
from datetime import UTC, datetime

import pytest

import bodygraph
from bodygraph.render.wheel import WheelInput
from bodygraph_server.images import tokens
from bodygraph_server.images.overlay_tokens import issue_picture, verify_picture
from bodygraph_server.images.tokens import (
    InvalidSignatureError,
    KeyRing,
    MalformedTokenError,
    SigningKey,
)
from bodygraph_server.images.wheel_tokens import encode_wheel

RING = KeyRing([SigningKey("k1", b"\x0b" * 32)])
NATAL = bodygraph.calculate(datetime(1987, 6, 5, 4, 32, tzinfo=UTC))
SKY = bodygraph.calculate(datetime(2027, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize("transit", [None, SKY], ids=["alone", "transit"])
def test_round_trip_is_exact(transit: bodygraph.Chart | None) -> None:
    wheel = WheelInput.from_chart(NATAL, transit)
    token = issue_picture(wheel, RING, "dark")
    assert len(token.split(".")[1]) == (300 if transit is None else 439)
    assert verify_picture(token, RING, "dark") == wheel
    version, payload = encode_wheel(wheel)
    rows = 2 if transit is None else 3
    assert version == (tokens.WHEEL_VERSION if transit is None else tokens.WHEEL_TRANSIT_VERSION)
    assert payload == struct.pack(f">{13 * rows}d", *wheel.personality, *wheel.design,
                                  *(wheel.transit or ()))
    assert tokens.open_token(token, RING, "dark") == (version, payload)


def test_bound_to_template_and_kind() -> None:
    token = issue_picture(WheelInput.from_chart(NATAL), RING)
    with pytest.raises(InvalidSignatureError):
        verify_picture(token, RING, "dark")
    with pytest.raises(MalformedTokenError):
        tokens.verify(token, RING)  # a chart reader refuses a wheel


@pytest.mark.parametrize("bad", [360.0, -0.5, math.inf, math.nan])
def test_a_sealed_value_that_is_no_longitude_is_refused(bad: float) -> None:
    values = [10.0] * 26
    values[7] = bad
    token = tokens.issue_sealed(tokens.WHEEL_VERSION, struct.pack(">26d", *values), RING)
    with pytest.raises(MalformedTokenError, match="longitude"):
        verify_picture(token, RING)


def test_every_flipped_bit_is_refused() -> None:
    token = issue_picture(WheelInput.from_chart(NATAL, SKY), RING)
    kid, body = token.split(".")
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    for bit in range(len(raw) * 8):
        flipped = bytearray(raw)
        flipped[bit // 8] ^= 1 << (bit % 8)
        text = base64.urlsafe_b64encode(bytes(flipped)).rstrip(b"=").decode()
        with pytest.raises((InvalidSignatureError, MalformedTokenError)):
            verify_picture(f"{kid}.{text}", RING)
