"""Render tokens of the relation pictures (a transit over a natal chart, a connection):
sealed like the chart tokens, told apart by their version byte and length; the layouts:
docs/render.md, "Render tokens"."""

from __future__ import annotations

from datetime import date

from bodygraph.catalog.translations import pgettext
from bodygraph.model.chart import BODIES
from bodygraph.render import ConnectionInput, RenderInput, RenderInputError, TransitInput
from bodygraph.render.from_relations import PERSON_LABELS, transit_day, transit_label
from bodygraph.render.wheel import WheelInput
from bodygraph_server.images.tokens import (
    CONNECTION_VERSION,
    DEFAULT_TEMPLATE,
    FORMAT_VERSION,
    PAYLOAD_BYTES,
    TRANSIT_VERSION,
    UNSUPPORTED_VERSION,
    WHEEL_TRANSIT_VERSION,
    WHEEL_VERSION,
    KeyRing,
    MalformedTokenError,
    decode_payload,
    encode_payload,
    issue,
    issue_sealed,
    open_token,
)
from bodygraph_server.images.wheel_tokens import decode_wheel, encode_wheel

#: The refusal of a transit token whose payload is not one (``{reason}``: why).
NOT_A_TRANSIT = pgettext("service error", "payload is not a transit: {reason}")

DATE_BYTES = 3
Picture = RenderInput | TransitInput | ConnectionInput | WheelInput
"""What a render token of any kind draws."""


def encode_transit(data: TransitInput) -> bytes:
    """The 67 payload bytes of a transit picture; ``ValueError`` when its label is not a
    :func:`~bodygraph.render.from_relations.transit_label` (only a date can be carried)."""
    day = transit_day(data.label)
    if day is None:
        raise ValueError(f"a transit token carries a date label, not {data.label!r}")
    gates = bytes(p.gate for p in data.transit)
    lines = bytes(p.line for p in data.transit)
    return encode_payload(data.natal) + gates + lines + day.toordinal().to_bytes(DATE_BYTES, "big")


def decode_transit(payload: bytes) -> TransitInput:
    """Read a transit payload (its length checked by the token); :class:`MalformedTokenError`
    for any value out of range."""
    natal = decode_payload(payload[:PAYLOAD_BYTES])
    n = len(BODIES)
    gates = payload[PAYLOAD_BYTES:PAYLOAD_BYTES + n]
    lines = payload[PAYLOAD_BYTES + n:PAYLOAD_BYTES + 2 * n]
    try:
        day = date.fromordinal(int.from_bytes(payload[PAYLOAD_BYTES + 2 * n:], "big"))
        return TransitInput.from_gate_lines(natal, zip(gates, lines, strict=True),
                                            transit_label(day))
    except (ValueError, OverflowError, RenderInputError) as exc:
        raise MalformedTokenError(NOT_A_TRANSIT.format(reason=exc)) from exc


def encode_connection(data: ConnectionInput) -> bytes:
    """The 76 payload bytes of a connection picture; ``ValueError`` for labels other than
    ``Person 1`` and ``Person 2`` (names are never carried)."""
    if (data.first_label, data.second_label) != PERSON_LABELS:
        raise ValueError(f"a connection token carries the labels {PERSON_LABELS}")
    return encode_payload(data.first) + encode_payload(data.second)


def decode_connection(payload: bytes) -> ConnectionInput:
    """Read a connection payload; :class:`MalformedTokenError` for any value out of range."""
    return ConnectionInput(decode_payload(payload[:PAYLOAD_BYTES]),
                           decode_payload(payload[PAYLOAD_BYTES:]), *PERSON_LABELS)


def issue_picture(data: Picture, keys: KeyRing, template: str = DEFAULT_TEMPLATE) -> str:
    """A token of the kind of ``data`` for a link to ``template``, newest key."""
    if isinstance(data, TransitInput):
        return issue_sealed(TRANSIT_VERSION, encode_transit(data), keys, template)
    if isinstance(data, ConnectionInput):
        return issue_sealed(CONNECTION_VERSION, encode_connection(data), keys, template)
    if isinstance(data, WheelInput):
        return issue_sealed(*encode_wheel(data), keys, template)
    return issue(data, keys, template)


def verify_picture(token: str, keys: KeyRing, template: str = DEFAULT_TEMPLATE) -> Picture:
    """Check a token of any kind for a link to ``template`` and return what it draws.

    Raises :class:`~bodygraph_server.images.tokens.MalformedTokenError` or
    :class:`~bodygraph_server.images.tokens.InvalidSignatureError`.
    """
    kind, payload = open_token(token, keys, template)
    if kind == TRANSIT_VERSION:
        return decode_transit(payload)
    if kind == CONNECTION_VERSION:
        return decode_connection(payload)
    if kind == FORMAT_VERSION:
        return decode_payload(payload)
    if kind in (WHEEL_VERSION, WHEEL_TRANSIT_VERSION):
        return decode_wheel(payload)
    raise MalformedTokenError(UNSUPPORTED_VERSION.format(version=kind))
