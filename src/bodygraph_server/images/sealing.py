"""The sealed body of a render token: AES-SIV (key from HKDF, key id and template as
associated data) for the tokens issued now, the older hand-made composition opened only
for links issued before (docs/render.md, "Render tokens")."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from functools import lru_cache

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESSIV
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

HKDF_SALT = b"bodygraph render token"
SIV_INFO = b"v5: aes-siv"
SIV_KEY_BYTES = 64
SIV_BYTES = 16
HKDF_INFO = b"v2: iv, enc, mac"
IV_BYTES = 16
TAG_BYTES = 32
KEY_BYTES = 32


@lru_cache(maxsize=64)
def _siv(secret: bytes) -> AESSIV:
    """The AES-SIV cipher of ``secret`` (cached: a ring holds a handful of keys)."""
    key = HKDF(algorithm=SHA256(), length=SIV_KEY_BYTES, salt=HKDF_SALT,
               info=SIV_INFO).derive(secret)
    return AESSIV(key)


def seal(secret: bytes, bound: bytes, header: bytes, payload: bytes) -> bytes:
    """``header || SIV || ciphertext``. ``bound`` (``kid "." template``) is authenticated
    but not carried; ``header`` (the version byte) is carried in clear and authenticated."""
    return header + _siv(secret).encrypt(payload, [bound, header])


def sealed_size(header_bytes: int, payload_bytes: int) -> int:
    """The length of a body sealed by :func:`seal`."""
    return header_bytes + SIV_BYTES + payload_bytes


def open_sealed(secret: bytes, bound: bytes, header_bytes: int, body: bytes) -> bytes | None:
    """The payload of a body made by :func:`seal` for ``bound``; None when it does not
    authenticate (another key, key id or template, or any change)."""
    try:
        return _siv(secret).decrypt(body[header_bytes:], [bound, body[:header_bytes]])
    except InvalidTag:
        return None


# -- versions 2 to 4: opened, no longer made -------------------------------------------------


@dataclass(frozen=True, slots=True)
class LegacyKeys:
    """The three keys of a version 2-4 body, derived from one signing secret (never
    shown in ``repr``)."""

    iv_key: bytes = field(repr=False)
    enc_key: bytes = field(repr=False)
    mac_key: bytes = field(repr=False)


@lru_cache(maxsize=64)
def legacy_keys(secret: bytes) -> LegacyKeys:
    """The keys of ``secret`` (HKDF-SHA256; cached)."""
    okm = HKDF(algorithm=SHA256(), length=3 * KEY_BYTES, salt=HKDF_SALT,
               info=HKDF_INFO).derive(secret)
    return LegacyKeys(okm[:KEY_BYTES], okm[KEY_BYTES:2 * KEY_BYTES], okm[2 * KEY_BYTES:])


def legacy_sealed_size(header_bytes: int, payload_bytes: int) -> int:
    """The length of a version 2-4 body."""
    return header_bytes + IV_BYTES + payload_bytes + TAG_BYTES


def legacy_tag_matches(secret: bytes, bound: bytes, body: bytes) -> bool:
    """Whether the tag at the end of a version 2-4 ``body`` is right (constant time)."""
    sealed, tag = body[:-TAG_BYTES], body[-TAG_BYTES:]
    expected = hmac.new(legacy_keys(secret).mac_key, bound + b"." + sealed,
                        hashlib.sha256).digest()
    return hmac.compare_digest(expected, tag)


def legacy_unseal(secret: bytes, header_bytes: int, body: bytes) -> bytes:
    """The payload of a version 2-4 body whose tag :func:`legacy_tag_matches` accepted."""
    sealed = body[:-TAG_BYTES]
    iv = sealed[header_bytes:header_bytes + IV_BYTES]
    decryptor = Cipher(algorithms.AES(legacy_keys(secret).enc_key), modes.CTR(iv)).decryptor()
    return decryptor.update(sealed[header_bytes + IV_BYTES:]) + decryptor.finalize()
