"""Render tokens of kinds 3 (transit) and 4 (connection): round trips, the labels they may
carry, and refusals (a valid signature over a bad payload, every bit flipped)."""

from __future__ import annotations

import base64
import dataclasses
from datetime import UTC, date, datetime

import pytest

import bodygraph
from bodygraph.render import ConnectionInput, TransitInput, render_svg
from bodygraph.render.from_relations import connection_input, transit_input
from bodygraph_server.images import tokens
from bodygraph_server.images.overlay_tokens import (
    decode_transit,
    encode_transit,
    issue_picture,
    verify_picture,
)
from bodygraph_server.images.sealing import seal
from bodygraph_server.images.tokens import (
    InvalidSignatureError,
    KeyRing,
    MalformedTokenError,
    SigningKey,
)

KEY = SigningKey("k1", b"\x09" * 32)
RING = KeyRing([KEY])
NATAL = bodygraph.calculate(datetime(1987, 6, 5, 4, 32, tzinfo=UTC))
OTHER = bodygraph.calculate(datetime(1990, 1, 2, 3, 4, tzinfo=UTC))
MOMENT = bodygraph.transit(datetime(2024, 3, 20, 3, 6, tzinfo=UTC), natal=NATAL)


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def raw_of(token: str) -> bytes:
    body = token.split(".", 1)[1]
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


@pytest.mark.parametrize("picture", [transit_input(NATAL, MOMENT),
                                     connection_input(NATAL, OTHER)])
def test_round_trip_and_template_binding(picture: TransitInput | ConnectionInput) -> None:
    template = "00000000-0000-4000-8000-000000000000"
    token = issue_picture(picture, RING, template)
    assert verify_picture(token, RING, template) == picture
    assert render_svg(verify_picture(token, RING, template)) == render_svg(picture)
    with pytest.raises(InvalidSignatureError):
        verify_picture(token, RING)  # issued for another template
    with pytest.raises(MalformedTokenError):
        tokens.verify(token, RING, template)  # not a chart token


def test_only_the_fixed_labels_are_carried() -> None:
    with pytest.raises(ValueError, match="date label"):
        issue_picture(dataclasses.replace(transit_input(NATAL, MOMENT), label="Ann Smith"),
                      RING)
    with pytest.raises(ValueError, match="labels"):
        issue_picture(dataclasses.replace(connection_input(NATAL, OTHER), first_label="Ann"),
                      RING)


def test_every_bit_flip_is_refused() -> None:
    token = issue_picture(transit_input(NATAL, MOMENT), RING)
    raw = raw_of(token)
    for i in range(len(raw) * 8):
        flipped = bytearray(raw)
        flipped[i // 8] ^= 1 << (i % 8)
        with pytest.raises(tokens.TokenError):
            verify_picture(f"k1.{b64(bytes(flipped))}", RING)


def test_a_valid_signature_over_a_bad_payload_is_refused() -> None:
    good = encode_transit(transit_input(NATAL, MOMENT))
    n = tokens.PAYLOAD_BYTES
    for bad in (good[:n] + b"\x00" + good[n + 1:],            # gate 0
                good[:n + 13] + b"\x07" + good[n + 14:],      # line 7
                good[:-3] + b"\x00\x00\x00"):                 # no such date
        body = seal(KEY.secret, b"k1.default", bytes([tokens.TRANSIT_VERSION]), bad)
        with pytest.raises(MalformedTokenError):
            verify_picture(f"k1.{b64(body)}", RING)
    assert decode_transit(good).label == f"Transit {date(2024, 3, 20):%Y-%m-%d}"
