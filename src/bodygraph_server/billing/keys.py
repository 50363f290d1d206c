"""API keys: generated from :mod:`secrets`, shown once, stored only as a SHA-256 hash and a
display prefix (the format and why a plain hash is safe: docs/accounts.md)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

KEY_PREFIX = "bg_"
KEY_RANDOM_BYTES = 32
DISPLAY_PREFIX_LENGTH = 10


@dataclass(frozen=True, slots=True)
class NewKey:
    """A freshly generated key: ``api_key`` is shown to the owner once, never stored."""

    api_key: str
    key_hash: str
    display_prefix: str

    def __repr__(self) -> str:  # keep the secret out of logs and tracebacks
        return f"NewKey(display_prefix={self.display_prefix!r}, key_hash={self.key_hash!r})"

    @classmethod
    def of(cls, api_key: str) -> NewKey:
        """``api_key`` with its hash and display prefix."""
        return cls(api_key, hash_key(api_key), api_key[:DISPLAY_PREFIX_LENGTH])


def generate_key() -> NewKey:
    """A new random API key with its hash and display prefix."""
    return NewKey.of(KEY_PREFIX + secrets.token_urlsafe(KEY_RANDOM_BYTES))


ROTATION_ID_LENGTH = 32
"""The fewest characters of an Idempotency-Key from which a rotation derives its key (a
shorter one gets a random key, whose answer cannot be replayed): the new key is as hard
to guess as the Idempotency-Key for whoever holds the old key."""


def derived_key(old_key: str, idempotency_key: str) -> NewKey:
    """The key that a rotation asked by the holder of ``old_key`` with ``idempotency_key``
    gets: HMAC-SHA256 of the idempotency key under the old key, so that a replay of that
    rotation (the same two) is given the same key again without any key kept in plain,
    and no one without both can have it (docs/accounts.md, "Self-service")."""
    digest = hmac.new(old_key.encode("utf-8"),
                      b"bodygraph key rotation\0" + idempotency_key.encode("utf-8"),
                      hashlib.sha256).digest()
    return NewKey.of(KEY_PREFIX + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii"))


def hash_key(api_key: str) -> str:
    """The stored form of ``api_key``: lowercase hex SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()

