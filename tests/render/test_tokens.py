"""Render tokens: round trip, every possible tampering refused, key rotation, no personal
data, constant-time comparison."""

from __future__ import annotations

import base64
import dataclasses
import hmac
import itertools
import re
from datetime import UTC, datetime, timedelta

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESSIV
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from hypothesis import given, settings
from hypothesis import strategies as st

import bodygraph
from bodygraph.catalog.tables import CENTER_NAMES
from bodygraph.render import RenderInput
from bodygraph_server.images import sealing, tokens
from bodygraph_server.images.tokens import (
    BODY_BYTES,
    InvalidSignatureError,
    KeyRing,
    MalformedTokenError,
    SigningKey,
    TokenError,
    issue,
    new_key_spec,
    verify,
)
from bodygraph_server.settings import KeyConfigError

from .charts import named_chart

K1 = SigningKey("k1", b"\x01" * 32)
K2 = SigningKey("k2", b"\x02" * 32)
RING = KeyRing([K1])
SAMPLE = RenderInput.from_chart(named_chart("half-and-half-2"))
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

placement_lists = st.lists(st.tuples(st.integers(1, 64), st.integers(1, 6)),
                           min_size=13, max_size=13).map(tuple)


def body_bytes(token: str) -> bytes:
    body = token.split(".", 1)[1]
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


@settings(max_examples=150)
@given(design=placement_lists, personality=placement_lists,
       variables=st.none() | st.from_regex(r"P[LR]{2} D[LR]{2}", fullmatch=True))
def test_round_trip(design: tuple[tuple[int, int], ...],
                    personality: tuple[tuple[int, int], ...], variables: str | None) -> None:
    data = RenderInput.from_gate_lines(design, personality, variables=variables)
    token = issue(data, RING)
    assert token.startswith("k1.")
    assert verify(token, RING) == data


def test_every_single_bit_flip_is_refused() -> None:
    token = issue(SAMPLE, RING)
    raw = token.encode("ascii")
    refused = 0
    for i in range(len(raw)):
        for bit in range(8):
            changed = bytearray(raw)
            changed[i] ^= 1 << bit
            with pytest.raises(TokenError):
                verify(changed.decode("latin-1"), RING)
            refused += 1
    assert refused == 8 * len(raw)


def test_every_truncation_and_extension_is_refused() -> None:
    token = issue(SAMPLE, RING)
    for end in range(len(token)):
        with pytest.raises(TokenError):
            verify(token[:end], RING)
    for extra in [*B64, "=", ".", "==", "A" * 4, token]:
        with pytest.raises(TokenError):
            verify(token + extra, RING)
        with pytest.raises(TokenError):
            verify(extra + token, RING)


def test_every_character_substitution_in_the_body_is_refused() -> None:
    token = issue(SAMPLE, RING)
    prefix_len = len("k1.")
    for i in range(prefix_len, len(token)):
        for ch in B64:
            if ch != token[i]:
                with pytest.raises(TokenError):
                    verify(token[:i] + ch + token[i + 1:], RING)


def test_statuses_map_malformed_and_bad_signature() -> None:
    token = issue(SAMPLE, RING)
    body = token.split(".", 1)[1]
    with pytest.raises(MalformedTokenError):
        verify("", RING)
    with pytest.raises(MalformedTokenError):
        verify("k1" + body, RING)  # no separator
    with pytest.raises(MalformedTokenError):
        verify("k1." + body[:-1] + "*", RING)
    with pytest.raises(MalformedTokenError):
        verify("k1." + body + "==", RING)
    flipped = body[:10] + ("A" if body[10] != "A" else "B") + body[11:]
    with pytest.raises(InvalidSignatureError):
        verify("k1." + flipped, RING)
    with pytest.raises(InvalidSignatureError):
        verify("k9." + body, RING)  # unknown key id


def test_another_key_id_of_the_ring_is_refused() -> None:
    ring = KeyRing([K1, K2])
    old = issue(SAMPLE, KeyRing([K1]))
    relabelled = "k2." + old.split(".", 1)[1]
    with pytest.raises(InvalidSignatureError):
        verify(relabelled, ring)


def test_key_rotation() -> None:
    old_token = issue(SAMPLE, KeyRing([K1]))
    rotated = KeyRing([K1, K2])
    new_token = issue(SAMPLE, rotated)
    assert new_token.startswith("k2.") and old_token.startswith("k1.")
    assert verify(old_token, rotated) == SAMPLE  # old links still work
    assert verify(new_token, rotated) == SAMPLE
    retired = KeyRing([K2])
    with pytest.raises(InvalidSignatureError):
        verify(old_token, retired)
    assert verify(new_token, retired) == SAMPLE


def plain_token(payload: bytes, version: int = tokens.PLAIN_VERSION) -> str:
    """A version-1 token made by hand from the documented layout."""
    signed = bytes([version]) + payload
    tag = hmac.new(K1.secret, b"k1." + signed, "sha256").digest()
    return "k1." + base64.urlsafe_b64encode(signed + tag).rstrip(b"=").decode()


def test_a_valid_signature_over_a_bad_payload_is_still_refused() -> None:
    with pytest.raises(MalformedTokenError):
        verify(plain_token(bytes([0] * 26) + bytes(12)), RING)  # gate 0
    good = tokens.encode_payload(dataclasses.replace(SAMPLE, variables=None))
    for arrows in (0b10, 0b100000):  # arrow bits without their presence bit; bit 14
        mask = int.from_bytes(good[36:], "big") | arrows << 9
        with pytest.raises(MalformedTokenError, match="padding"):
            verify(plain_token(good[:36] + mask.to_bytes(2, "big")), RING)
    with pytest.raises(MalformedTokenError, match="version"):
        verify(plain_token(tokens.encode_payload(SAMPLE), version=7), RING)
    payload = tokens.encode_payload(SAMPLE)
    resealed = sealing.seal(K1.secret, b"k1.default", bytes([9]), payload)
    with pytest.raises(MalformedTokenError, match="version"):
        verify("k1." + base64.urlsafe_b64encode(resealed).rstrip(b"=").decode(), RING)
    old = body_bytes(OLD_CHART)  # a version-2 body relabelled 9, its tag made anew
    relabelled = bytes([9]) + old[1:-32]
    tag = hmac.new(sealing.legacy_keys(K1.secret).mac_key, b"k1.default." + relabelled,
                   "sha256").digest()
    with pytest.raises(MalformedTokenError, match="version"):
        verify("k1." + base64.urlsafe_b64encode(relabelled + tag).rstrip(b"=").decode(), RING)


def test_version_1_links_still_verify_for_any_template() -> None:
    token = plain_token(tokens.encode_payload(SAMPLE))
    assert len(token) == 3 + tokens.PLAIN_BODY_CHARS == 98
    assert verify(token, RING) == SAMPLE
    assert verify(token, RING, "6f1c1b0e-5d4a-4c47-9a55-2f8e3c7b9d10") == SAMPLE
    assert re.fullmatch(tokens.TOKEN_PATTERN, token)


def open_by_hand(token: str, secret: bytes, template: str = "default") -> bytes:
    """Open a version-5 token from the documented construction (AES-SIV, its 64-byte key
    from HKDF-SHA256, key id, template and version byte authenticated), independently of
    the module."""
    raw = body_bytes(token)
    key = HKDF(algorithm=SHA256(), length=64, salt=b"bodygraph render token",
               info=b"v5: aes-siv").derive(secret)
    return AESSIV(key).decrypt(raw[1:], [f"k1.{template}".encode(), raw[:1]])


def open_version_2_by_hand(token: str, secret: bytes) -> bytes:
    """Decrypt a version-2 token from its documented construction (HKDF-SHA256, then
    AES-256-CTR with the 16-byte IV), independently of the module."""
    raw = body_bytes(token)
    okm = HKDF(algorithm=SHA256(), length=96, salt=b"bodygraph render token",
               info=b"v2: iv, enc, mac").derive(secret)
    iv, ciphertext = raw[1:17], raw[17:-32]
    decryptor = Cipher(algorithms.AES(okm[32:64]), modes.CTR(iv)).decryptor()
    return decryptor.update(ciphertext) + decryptor.finalize()


#: Tokens issued by the hand-made composition (versions 2, 3, 4) before AES-SIV, with K1,
#: for the charts of 1987-06-05 04:32 UTC (natal) and 1990-01-02 03:04 UTC (other) and the
#: transit of 2024-03-20 03:06 UTC over the natal chart.
OLD_CHART = ("k1.Aq2FRbdNXOeJ9eQ9WCnpaVWpfLcy4XAS32JMpaiDNJRFYxCHQKw-2ANSvAe5C8zvnZDniI_zEFIgSU"
             "os20t-br5wIQ2v_KFV_zZM0RrG5xA3Tm04gV6t")
OLD_TEMPLATE = "6f1c1b0e-5d4a-4c47-9a55-2f8e3c7b9d10"
OLD_CHART_TEMPLATED = ("k1.Ai6E33XmPTSlyiUXo8ozAlVs67L46B6RInUEiAJLp4FqJWS8ewRLA_fzuo_ZSozqCE8bgOt"
                       "A2zICb9z6b0qxnWwqU1XHeoHCNMa6fQKs80VCMVcS1nXZ")
OLD_TRANSIT = ("k1.A7UMKY3sk2Q3SyrrXEz_eIJG8k7u_H2Kkn9R3-SCyzXpGxW168r7CqcVoMhrFqIGamuY0fxc7UkGI"
               "hHKA0bIVKFpcJ52ei0G-481N2WHDacxcnJQupLsRQbjfA2XrVplNMReYBqcSjM46iGNbrBa9idZE"
               "RA")
OLD_CONNECTION = ("k1.BLjhVlSVO7ag3grBkGlGSgaBQNE_K9bfk8mbbSHxBS6wxS1D7JYo3gqjAo_ZztFMzAegBti4LY6"
                  "TdynaFXyXYXURAADvECY4nTdPyS2WztnXssmtmyVrL0LJ7XrRHsTvgQ1ONQxgqvMk9Fo1N7NDKYYa"
                  "UBZWhCV_tPi7rt0")


def test_tokens_issued_before_aes_siv_still_verify() -> None:
    from bodygraph.render.from_relations import connection_input, transit_input
    from bodygraph_server.images.overlay_tokens import verify_picture

    natal = bodygraph.calculate(datetime(1987, 6, 5, 4, 32, tzinfo=UTC))
    other = bodygraph.calculate(datetime(1990, 1, 2, 3, 4, tzinfo=UTC))
    moment = bodygraph.transit(datetime(2024, 3, 20, 3, 6, tzinfo=UTC), natal=natal)
    # Tokens made before the arrows draw none.
    chart = dataclasses.replace(RenderInput.from_chart(natal), variables=None)
    assert [body_bytes(t)[0] for t in (OLD_CHART, OLD_TRANSIT, OLD_CONNECTION)] == [2, 3, 4]
    assert verify(OLD_CHART, RING) == chart
    assert verify(OLD_CHART_TEMPLATED, RING, OLD_TEMPLATE) == chart
    assert open_version_2_by_hand(OLD_CHART, K1.secret) == tokens.encode_payload(chart)
    old_transit = transit_input(natal, moment)
    old_transit = dataclasses.replace(
        old_transit, natal=dataclasses.replace(old_transit.natal, variables=None))
    assert verify_picture(OLD_TRANSIT, RING) == old_transit
    pair = connection_input(natal, other)
    assert verify_picture(OLD_CONNECTION, RING) == dataclasses.replace(
        pair, first=dataclasses.replace(pair.first, variables=None),
        second=dataclasses.replace(pair.second, variables=None))
    for old in (OLD_CHART, OLD_TRANSIT, OLD_CONNECTION):
        assert re.fullmatch(tokens.TOKEN_PATTERN, old)
    # Still bound to their template and key, and refused when changed in any bit.
    with pytest.raises(InvalidSignatureError):
        verify(OLD_CHART_TEMPLATED, RING)
    with pytest.raises(InvalidSignatureError):
        verify(OLD_CHART, KeyRing([SigningKey("k1", K2.secret)]))
    raw = body_bytes(OLD_CHART)
    for i in range(len(raw) * 8):
        flipped = bytearray(raw)
        flipped[i // 8] ^= 1 << (i % 8)
        with pytest.raises(TokenError):
            verify("k1." + base64.urlsafe_b64encode(bytes(flipped)).rstrip(b"=").decode(), RING)
    # The same chart issued now: AES-SIV, version 5, 32 bytes shorter.
    new = issue(chart, RING)
    assert body_bytes(new)[0] == 5 and len(body_bytes(new)) == len(raw) - 32


def test_token_holds_only_activations_and_centers() -> None:
    chart = bodygraph.calculate(datetime(1987, 6, 5, 4, 32, tzinfo=UTC))
    data = RenderInput.from_chart(chart)
    token = issue(data, RING)
    raw = body_bytes(token)
    assert len(raw) == BODY_BYTES == 1 + 16 + 38
    assert raw[0] == tokens.FORMAT_VERSION == 5
    assert re.fullmatch(tokens.TOKEN_PATTERN, token)
    payload = open_by_hand(token, K1.secret)
    # Decode the payload by hand, from the documented layout, and compare it with the
    # contract's activations: 26 gates, 26 lines, 9 center bits, and nothing left over.
    v2 = chart.to_v2()
    acts = [v2["activations"][side][key] for side in ("design", "personality")
            for key in ("sun", "earth", "northNode", "southNode", "moon", "mercury", "venus",
                        "mars", "jupiter", "saturn", "uranus", "neptune", "pluto")]
    bits = int.from_bytes(payload[26:36], "big")
    lines = [(bits >> (2 + 3 * (25 - i)) & 7) + 1 for i in range(26)]
    assert [f"{g}.{ln}" for g, ln in zip(payload[:26], lines, strict=True)] == acts
    assert bits & 3 == 0
    mask = int.from_bytes(payload[36:38], "big")
    assert [n for i, n in enumerate(CENTER_NAMES) if mask >> i & 1] == [
        n for n in CENTER_NAMES if n in v2["centers"]]
    # bit 9: the arrows follow; bits 10-13: P sun, P node, D sun, D node (1 for R)
    arrows = "".join("R" if mask >> (10 + k) & 1 else "L" for k in range(4))
    assert mask >> 9 & 1 and f"P{arrows[:2]} D{arrows[2:]}" == v2["variables"]
    assert mask < 1 << 14
    # The same activations under another birth instant give the very same token.
    other = dataclasses.replace(chart, birth_utc=chart.birth_utc + timedelta(days=3650),
                                design_utc=chart.design_utc - timedelta(days=1))
    assert issue(RenderInput.from_chart(other), RING) == token


def test_a_token_reveals_nothing_of_the_chart() -> None:
    base = [(1, 1)] * 13
    charts = [RenderInput.from_gate_lines(base, [*base[:12], (g, 1)]) for g in range(1, 65)]
    tokens_of = [issue(chart, RING) for chart in charts]
    bodies = [body_bytes(t)[1:] for t in tokens_of]  # after the version byte
    assert len(set(tokens_of)) == 64
    for chart, body in zip(charts, bodies, strict=True):
        plain = tokens.encode_payload(chart)
        assert plain[:26] not in body and plain[:8] not in body  # no gate numbers in clear
    # Charts that differ in one activation: unrelated bodies, byte for byte about as
    # equal as random strings (1/256 of the positions).
    for a, b in itertools.combinations(bodies[:16], 2):
        same = sum(x == y for x, y in zip(a, b, strict=True))
        assert same <= 8
    # Across all tokens every body byte position takes many values, as random bytes do
    # (a plaintext byte would stay constant where the charts agree).
    for position in range(len(bodies[0])):
        assert len({body[position] for body in bodies}) >= 30
    # Another key gives unrelated tokens for the same chart.
    other = issue(SAMPLE, KeyRing([K2])).split(".", 1)[1]
    mine = issue(SAMPLE, RING).split(".", 1)[1]
    assert sum(x == y for x, y in zip(body_bytes("k." + other)[1:],
                                       body_bytes("k." + mine)[1:], strict=True)) <= 8


def test_a_token_is_bound_to_its_template() -> None:
    template = "6f1c1b0e-5d4a-4c47-9a55-2f8e3c7b9d10"
    token = issue(SAMPLE, RING, template)
    assert verify(token, RING, template) == SAMPLE
    for other in ("default", "00000000-0000-4000-8000-000000000000", template.upper()):
        with pytest.raises(InvalidSignatureError):
            verify(token, RING, other)
    assert issue(SAMPLE, RING) != token


def test_old_tags_are_compared_with_compare_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """Versions 1-4 carry an HMAC tag, compared in constant time (version 5 is checked by
    AES-SIV itself)."""
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(sealing.hmac, "compare_digest", spy)
    token = OLD_CHART
    assert verify(token, RING) == dataclasses.replace(RenderInput.from_chart(
        bodygraph.calculate(datetime(1987, 6, 5, 4, 32, tzinfo=UTC))), variables=None)
    assert len(calls) == 1 and len(calls[0][0]) == len(calls[0][1]) == 32
    body = token.split(".", 1)[1]
    tampered = "k1." + body[:5] + ("B" if body[5] == "A" else "A") + body[6:]
    with pytest.raises(InvalidSignatureError):
        verify(tampered, RING)
    assert len(calls) == 2


def test_signature_is_checked_before_the_payload_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fail(_: bytes) -> RenderInput:
        raise AssertionError("payload read before the signature was checked")

    monkeypatch.setattr(tokens, "decode_payload", fail)
    body = issue(SAMPLE, RING).split(".", 1)[1]
    with pytest.raises(InvalidSignatureError):
        verify("k1." + body[:-2] + ("AA" if body[-2:] != "AA" else "BA"), RING)


def test_key_ring_configuration() -> None:
    spec = ",".join([new_key_spec("2026a"), new_key_spec("2026b")])
    ring = KeyRing.from_spec(spec)
    assert ring.kids == ("2026a", "2026b") and ring.current.kid == "2026b"
    assert KeyRing.from_env({"BODYGRAPH_RENDER_KEYS": spec}).kids == ring.kids
    secret = ring.current.secret
    assert base64.urlsafe_b64encode(secret).decode()[:10] not in repr(ring) + repr(ring.current)
    for bad in ("", "k1", "k1:" + "A" * 20, "bad id!:" + "A" * 43, "k1:!!!!"):
        with pytest.raises(KeyConfigError):
            KeyRing.from_spec(bad)
    with pytest.raises(KeyConfigError):
        KeyRing.from_spec(f"{new_key_spec('k1')},{new_key_spec('k1')}")
    with pytest.raises(KeyConfigError, match="BODYGRAPH_RENDER_KEYS"):
        KeyRing.from_env({})
    with pytest.raises(KeyConfigError):
        KeyRing([])
