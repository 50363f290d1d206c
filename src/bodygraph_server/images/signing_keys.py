"""Where the render signing keys come from: ``BODYGRAPH_RENDER_KEYS`` when set, else the
database's ``render_keys`` table (one key made on first start, all verify, the newest
signs); docs/render.md."""

from __future__ import annotations

import secrets
from datetime import datetime

from bodygraph_server.images.tokens import KeyRing, SigningKey
from bodygraph_server.settings import MIN_SECRET_BYTES
from bodygraph_server.store.base import RenderKeyStore

KID_PREFIX = "db"


def new_kid() -> str:
    """A fresh key id for a stored key (``db`` and 8 hex digits)."""
    return KID_PREFIX + secrets.token_hex(4)


def stored_ring(store: RenderKeyStore, now: datetime) -> KeyRing:
    """The keys stored in the database, creating the first one if there is none."""
    first = SigningKey(new_kid(), secrets.token_bytes(MIN_SECRET_BYTES))
    stored = store.ensure_render_key(first.kid, first.secret, now)
    return KeyRing(SigningKey(kid, secret) for kid, secret in stored)


def signing_keys(spec: str, store: RenderKeyStore, now: datetime) -> KeyRing:
    """The service's key ring: ``spec`` (``BODYGRAPH_RENDER_KEYS``) when not blank, else
    the keys stored in the database (see the module docstring). Blocking."""
    if spec.strip():
        return KeyRing.from_spec(spec)
    return stored_ring(store, now)


def rotate(store: RenderKeyStore, now: datetime) -> SigningKey:
    """Store a new, newest key (it signs after the service restarts); returns it."""
    key = SigningKey(new_kid(), secrets.token_bytes(MIN_SECRET_BYTES))
    store.add_render_key(key.kid, key.secret, now)
    return key
