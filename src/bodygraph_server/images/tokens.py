"""Render tokens: the sealed, self-contained payload of a rendered-image link (activations
and defined centers only), its text form, versions and verification; the byte layouts:
docs/render.md, "Render tokens"."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bodygraph.catalog.tables import CENTER_NAMES
from bodygraph.catalog.translations import pgettext
from bodygraph.model.chart import BODIES
from bodygraph.render import RenderInput, RenderInputError
from bodygraph_server.images.sealing import (
    legacy_sealed_size,
    legacy_tag_matches,
    legacy_unseal,
    open_sealed,
    seal,
    sealed_size,
)
from bodygraph_server.settings import (
    KEY_ID,
    MIN_SECRET_BYTES,
    KeyConfigError,
    check_render_key,
    check_render_keys,
    parse_render_keys,
)

FORMAT_VERSION = 5
"""The version of the chart tokens issued now (AES-SIV)."""
PLAIN_VERSION = 1
"""The first, unencrypted version: verified, no longer issued."""
DEFAULT_TEMPLATE = "default"
"""The template name of links without a template (``default.svg``)."""
GATE_BYTES = 2 * len(BODIES)
LINE_BYTES = 10
MASK_BYTES = 2
PAYLOAD_BYTES = GATE_BYTES + LINE_BYTES + MASK_BYTES
TAG_BYTES = 32
PLAIN_BODY_BYTES = 1 + PAYLOAD_BYTES + TAG_BYTES
TRANSIT_VERSION = 6
"""The version byte of a transit overlay token issued now
(:mod:`bodygraph_server.images.overlay_tokens`)."""
CONNECTION_VERSION = 7
"""The version byte of a connection token issued now
(:mod:`bodygraph_server.images.overlay_tokens`)."""
WHEEL_VERSION = 8
"""The version byte of a wheel token (:mod:`bodygraph_server.images.wheel_tokens`)."""
WHEEL_TRANSIT_VERSION = 9
"""The version byte of a wheel token with a transit ring."""
TRANSIT_PAYLOAD_BYTES = PAYLOAD_BYTES + 2 * len(BODIES) + 3
CONNECTION_PAYLOAD_BYTES = 2 * PAYLOAD_BYTES
LONGITUDE_BYTES = 8
WHEEL_PAYLOAD_BYTES = 2 * len(BODIES) * LONGITUDE_BYTES
WHEEL_TRANSIT_PAYLOAD_BYTES = 3 * len(BODIES) * LONGITUDE_BYTES
SEALED_PAYLOADS = {FORMAT_VERSION: PAYLOAD_BYTES, TRANSIT_VERSION: TRANSIT_PAYLOAD_BYTES,
                   CONNECTION_VERSION: CONNECTION_PAYLOAD_BYTES,
                   WHEEL_VERSION: WHEEL_PAYLOAD_BYTES,
                   WHEEL_TRANSIT_VERSION: WHEEL_TRANSIT_PAYLOAD_BYTES}
"""The payload length of each version issued now (kind); a body's length names its kind."""
LEGACY_VERSIONS = {2: FORMAT_VERSION, 3: TRANSIT_VERSION, 4: CONNECTION_VERSION}
"""The versions sealed by the hand-made composition (verified, no longer issued) and the
kind each is: the version issued now for the same picture."""
BODY_BYTES = sealed_size(1, PAYLOAD_BYTES)


def _chars(size: int) -> int:
    return (size * 8 + 5) // 6


BODY_CHARS = _chars(BODY_BYTES)
PLAIN_BODY_CHARS = _chars(PLAIN_BODY_BYTES)
_SEALED_KINDS = {sealed_size(1, n): version for version, n in SEALED_PAYLOADS.items()}
_LEGACY_KINDS = {legacy_sealed_size(1, SEALED_PAYLOADS[kind]): version
                 for version, kind in LEGACY_VERSIONS.items()}
_LENGTHS = (PLAIN_BODY_CHARS, *(_chars(size) for size in (*_SEALED_KINDS, *_LEGACY_KINDS)))
_B64 = re.compile(r"[A-Za-z0-9_-]+")
TOKEN_PATTERN = (
    f"^{KEY_ID.pattern}\\.("
    + "|".join(f"{_B64.pattern[:-1]}{{{n}}}" for n in _LENGTHS) + ")$"
)
"""What the ``t`` parameter of a link looks like (key id, dot, a body of any version)."""
KEYS_VARIABLE = "BODYGRAPH_RENDER_KEYS"


RenderPayload = RenderInput
"""What a token carries; the renderer draws it directly (:func:`bodygraph.render.render_svg`)."""


class TokenError(Exception):
    """A render token is refused."""


#: The refusals' messages that hold a value (the others are marked where they are raised).
UNSUPPORTED_VERSION = pgettext("service error",
                               "render token version {version} is not supported")
NOT_A_BODYGRAPH = pgettext("service error", "payload is not a bodygraph: {reason}")


class MalformedTokenError(TokenError):
    """The text cannot be a render token (shape, alphabet, length, version, content)."""


class InvalidSignatureError(TokenError):
    """The token's signature does not verify (changed token, unknown or wrong key id)."""


@dataclass(frozen=True, slots=True)
class SigningKey:
    """One HMAC key and its id. The secret never appears in ``repr``."""

    kid: str
    secret: bytes = field(repr=False)

    def __post_init__(self) -> None:
        check_render_key(self.kid, self.secret)


class KeyRing:
    """The render keys, oldest first; the last one signs new links, all of them verify."""

    def __init__(self, keys: Iterable[SigningKey]) -> None:
        ordered = tuple(keys)
        check_render_keys([(key.kid, key.secret) for key in ordered])
        self._keys: Mapping[str, SigningKey] = {key.kid: key for key in ordered}
        self._current = ordered[-1]

    def __repr__(self) -> str:
        return f"KeyRing(kids={list(self._keys)!r}, current={self._current.kid!r})"

    @property
    def current(self) -> SigningKey:
        """The key that signs new links (the newest)."""
        return self._current

    @property
    def kids(self) -> tuple[str, ...]:
        """Every key id, oldest first."""
        return tuple(self._keys)

    def get(self, kid: str) -> SigningKey | None:
        """The key with id ``kid``, if it is in the ring."""
        return self._keys.get(kid)

    @classmethod
    def from_spec(cls, spec: str) -> KeyRing:
        """Parse ``"kid:secret,kid:secret"`` (oldest first; secrets base64url, >= 32 bytes)."""
        return cls(SigningKey(kid, secret) for kid, secret in parse_render_keys(spec))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> KeyRing:
        """The ring from ``BODYGRAPH_RENDER_KEYS`` (see :meth:`from_spec`)."""
        env = os.environ if environ is None else environ
        spec = env.get(KEYS_VARIABLE, "")
        if not spec.strip():
            raise KeyConfigError(
                f"{KEYS_VARIABLE} is not set; create a key with "
                "'python -c \"from bodygraph_server.images.tokens import new_key_spec; "
                "print(new_key_spec(\\\"k1\\\"))\"'"
            )
        return cls.from_spec(spec)


def new_key_spec(kid: str) -> str:
    """A fresh ``kid:secret`` entry (32 random bytes) to append to ``BODYGRAPH_RENDER_KEYS``."""
    key = SigningKey(kid, secrets.token_bytes(MIN_SECRET_BYTES))
    return f"{key.kid}:{_b64encode(key.secret)}"


def _b64encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


#: The mask bit that says the variable arrows follow (bits 10-13).
_ARROWS_BIT = len(CENTER_NAMES)
_ARROW_LETTERS = (1, 2, 5, 6)  # places of the four letters in "PLR DRL"


def _arrow_letters(variables: str) -> list[str]:
    return [variables[i] for i in _ARROW_LETTERS]


def _variables(mask: int) -> str | None:
    if not mask >> _ARROWS_BIT & 1:
        return None
    a, b, c, d = ("R" if mask >> (_ARROWS_BIT + 1 + k) & 1 else "L" for k in range(4))
    return f"P{a}{b} D{c}{d}"


def encode_payload(data: RenderPayload) -> bytes:
    """The 38 payload bytes of ``data`` (placements, centers and the variable arrows)."""
    placements = data.design + data.personality
    gates = bytes(p.gate for p in placements)
    packed = 0
    for p in placements:
        packed = (packed << 3) | (p.line - 1)
    lines = (packed << 2).to_bytes(LINE_BYTES, "big")
    mask = sum(1 << i for i, name in enumerate(CENTER_NAMES) if name in data.centers)
    if data.variables is not None:
        mask |= 1 << _ARROWS_BIT
        for k, letter in enumerate(_arrow_letters(data.variables)):
            mask |= (letter == "R") << (_ARROWS_BIT + 1 + k)
    return gates + lines + mask.to_bytes(MASK_BYTES, "big")


def decode_payload(payload: bytes) -> RenderPayload:
    """Read 38 payload bytes; :class:`MalformedTokenError` for any value out of range."""
    if len(payload) != PAYLOAD_BYTES:
        raise MalformedTokenError(pgettext("service error", "payload has the wrong length"))
    gates = payload[:GATE_BYTES]
    packed = int.from_bytes(payload[GATE_BYTES:GATE_BYTES + LINE_BYTES], "big")
    mask = int.from_bytes(payload[GATE_BYTES + LINE_BYTES:], "big")
    arrows = mask >> _ARROWS_BIT
    if packed & 0b11 or arrows >> 5 or (arrows and not arrows & 1):
        raise MalformedTokenError(pgettext("service error", "payload padding bits are set"))
    packed >>= 2
    lines = [((packed >> (3 * (len(gates) - 1 - i))) & 0b111) + 1 for i in range(len(gates))]
    pairs = tuple(zip(gates, lines, strict=True))
    centers = frozenset(n for i, n in enumerate(CENTER_NAMES) if mask >> i & 1)
    try:
        return RenderInput.from_gate_lines(
            pairs[: len(BODIES)], pairs[len(BODIES):], centers, _variables(mask)
        )
    except RenderInputError as exc:
        raise MalformedTokenError(NOT_A_BODYGRAPH.format(reason=exc)) from exc


def _plain_tag(key: SigningKey, signed: bytes) -> bytes:
    return hmac.new(key.secret, key.kid.encode("ascii") + b"." + signed, hashlib.sha256).digest()


def _bound(key: SigningKey, template: str) -> bytes:
    return f"{key.kid}.{template}".encode("ascii")


def issue_sealed(version: int, payload: bytes, keys: KeyRing,
                 template: str = DEFAULT_TEMPLATE) -> str:
    """A sealed token of kind ``version`` (a key of :data:`SEALED_PAYLOADS`) carrying
    ``payload``, for a link to ``template``, sealed with the newest key of ``keys``."""
    if len(payload) != SEALED_PAYLOADS[version]:
        raise ValueError(f"a version-{version} payload has {SEALED_PAYLOADS[version]} bytes")
    key = keys.current
    body = seal(key.secret, _bound(key, template), bytes([version]), payload)
    return f"{key.kid}.{_b64encode(body)}"


def issue(data: RenderPayload, keys: KeyRing, template: str = DEFAULT_TEMPLATE) -> str:
    """A version-5 token for ``data`` shown with ``template`` (the name in the link's path:
    ``default`` or the canonical template UUID), sealed with the newest key of ``keys``."""
    return issue_sealed(FORMAT_VERSION, encode_payload(data), keys, template)


def _body(token: str) -> tuple[str, bytes]:
    if not isinstance(token, str) or len(token) > 17 + max(_LENGTHS) or not token.isascii():
        raise MalformedTokenError(pgettext("service error", "not a render token"))
    kid, sep, body = token.partition(".")
    if not sep or not KEY_ID.fullmatch(kid):
        raise MalformedTokenError(pgettext("service error", "render token has no valid key id"))
    if len(body) not in _LENGTHS or not _B64.fullmatch(body):
        raise MalformedTokenError(pgettext(
            "service error", "render token body has the wrong length or alphabet"))
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    if _b64encode(raw) != body:  # unused low bits of the last character must be zero
        raise MalformedTokenError(pgettext(
            "service error", "render token body is not canonical base64url"))
    return kid, raw


def verify(token: str, keys: KeyRing, template: str = DEFAULT_TEMPLATE) -> RenderPayload:
    """Check a chart token (version 1, 2 or 5) for a link to ``template`` and return its
    payload; nothing is read before the body is authenticated.

    Raises :class:`MalformedTokenError` or :class:`InvalidSignatureError`.
    """
    kind, payload = open_token(token, keys, template)
    if kind != FORMAT_VERSION:
        raise MalformedTokenError(pgettext("service error", "render token is not a chart token"))
    return decode_payload(payload)


def open_token(token: str, keys: KeyRing,
               template: str = DEFAULT_TEMPLATE) -> tuple[int, bytes]:
    """Check a token of any version for a link to ``template``: its kind (the version
    issued now for its picture: :data:`FORMAT_VERSION`, :data:`TRANSIT_VERSION` or
    :data:`CONNECTION_VERSION`) and its plain payload bytes; nothing is read before the
    body is authenticated.

    Raises :class:`MalformedTokenError` or :class:`InvalidSignatureError`.
    """
    kid, raw = _body(token)
    key = keys.get(kid)
    if key is None:
        raise InvalidSignatureError(pgettext(
            "service error", "render token signed with an unknown key"))
    if len(raw) == PLAIN_BODY_BYTES:
        signed, tag = raw[:-TAG_BYTES], raw[-TAG_BYTES:]
        if not hmac.compare_digest(_plain_tag(key, signed), tag):
            raise InvalidSignatureError(pgettext(
                "service error", "render token signature does not verify"))
        if signed[0] != PLAIN_VERSION:
            raise MalformedTokenError(UNSUPPORTED_VERSION.format(version=signed[0]))
        return FORMAT_VERSION, signed[1:]
    if not template.isascii():
        raise InvalidSignatureError(pgettext(
            "service error", "render token signature does not verify"))
    bound = _bound(key, template)
    if len(raw) in _LEGACY_KINDS:
        if not legacy_tag_matches(key.secret, bound, raw):
            raise InvalidSignatureError(pgettext(
                "service error", "render token signature does not verify"))
        if raw[0] != _LEGACY_KINDS[len(raw)]:
            raise MalformedTokenError(UNSUPPORTED_VERSION.format(version=raw[0]))
        return LEGACY_VERSIONS[raw[0]], legacy_unseal(key.secret, 1, raw)
    payload = open_sealed(key.secret, bound, 1, raw)
    if payload is None:
        raise InvalidSignatureError(pgettext(
            "service error", "render token signature does not verify"))
    if raw[0] != _SEALED_KINDS[len(raw)]:
        raise MalformedTokenError(UNSUPPORTED_VERSION.format(version=raw[0]))
    return raw[0], payload
