"""The sealed body of a version-2 render token: encrypt, then MAC with HMAC-SHA256.

A version-1 token carried its 38 payload bytes in the clear: a public link showed the
26 activations, and scanning the ephemeris for them gave the birth date and a narrow
window of the birth time. Version 2 seals the payload so that a link reveals nothing of
the chart to anyone without the signing key:

* three keys are derived from the signing secret with HKDF-SHA256 (RFC 5869; salt
  :data:`HKDF_SALT`, info :data:`HKDF_INFO`): ``iv_key``, ``enc_key`` and ``mac_key``
  (32 bytes each), so the signing secret itself is used for nothing else;
* ``iv`` = the first 16 bytes of HMAC-SHA256(``iv_key``, ``template || 0x00 || payload``)
  (a synthetic IV, as in SIV mode: the same chart under the same template and key always
  gives the same link, so images stay cacheable, while charts that differ in a single
  activation get unrelated IVs and therefore unrelated ciphertexts);
* ``ciphertext`` = AES-256-CTR(``enc_key``, ``iv``) of the payload;
* ``tag`` = HMAC-SHA256(``mac_key``, ``kid || "." || template || "." || version || iv ||
  ciphertext``): the signature the contract names, over everything the link carries,
  the template id of the link's path included (a token is valid for the template it was
  issued for and no other).

Opening checks the tag first (constant time) and decrypts only then.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from functools import lru_cache

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

HKDF_SALT = b"bodygraph render token"
HKDF_INFO = b"v2: iv, enc, mac"
IV_BYTES = 16
TAG_BYTES = 32
KEY_BYTES = 32


@dataclass(frozen=True, slots=True)
class SealKeys:
    """The three keys derived from one signing secret (never shown in ``repr``)."""

    iv_key: bytes = field(repr=False)
    enc_key: bytes = field(repr=False)
    mac_key: bytes = field(repr=False)


@lru_cache(maxsize=64)
def derive(secret: bytes) -> SealKeys:
    """The keys of ``secret`` (HKDF-SHA256; cached: a ring holds a handful of keys)."""
    okm = HKDF(algorithm=SHA256(), length=3 * KEY_BYTES, salt=HKDF_SALT,
               info=HKDF_INFO).derive(secret)
    return SealKeys(okm[:KEY_BYTES], okm[KEY_BYTES:2 * KEY_BYTES], okm[2 * KEY_BYTES:])


def _ctr(keys: SealKeys, iv: bytes, data: bytes) -> bytes:
    encryptor = Cipher(algorithms.AES(keys.enc_key), modes.CTR(iv)).encryptor()
    return encryptor.update(data) + encryptor.finalize()


def _tag(keys: SealKeys, bound: bytes, sealed: bytes) -> bytes:
    return hmac.new(keys.mac_key, bound + b"." + sealed, hashlib.sha256).digest()


def seal(secret: bytes, bound: bytes, header: bytes, payload: bytes) -> bytes:
    """``header || iv || ciphertext || tag``. ``bound`` (``kid "." template``) is
    authenticated but not carried; ``header`` (the version byte) is carried in clear."""
    keys = derive(secret)
    template = bound.partition(b".")[2]
    iv = hmac.new(keys.iv_key, template + b"\x00" + payload, hashlib.sha256).digest()
    sealed = header + iv[:IV_BYTES] + _ctr(keys, iv[:IV_BYTES], payload)
    return sealed + _tag(keys, bound, sealed)


def sealed_size(header_bytes: int, payload_bytes: int) -> int:
    """The length of a sealed body."""
    return header_bytes + IV_BYTES + payload_bytes + TAG_BYTES


def tag_matches(secret: bytes, bound: bytes, body: bytes) -> bool:
    """Whether the tag at the end of ``body`` is right (constant-time comparison)."""
    sealed, tag = body[:-TAG_BYTES], body[-TAG_BYTES:]
    return hmac.compare_digest(_tag(derive(secret), bound, sealed), tag)


def unseal(secret: bytes, header_bytes: int, body: bytes) -> bytes:
    """The payload of a body whose tag :func:`tag_matches` accepted."""
    sealed = body[:-TAG_BYTES]
    iv, ciphertext = sealed[header_bytes:header_bytes + IV_BYTES], sealed[
        header_bytes + IV_BYTES:]
    return _ctr(derive(secret), iv, ciphertext)
