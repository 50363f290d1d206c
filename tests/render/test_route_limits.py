"""The image route's guards: the per-client throttle, and the ``t`` pattern the OpenAPI
document states and :func:`verify` enforces."""

from __future__ import annotations

import base64
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.routing import Route

from bodygraph_server.images.route import IMAGE_ROUTE, RenderContext, cached, image_endpoint
from bodygraph_server.images.throttle import Throttle
from bodygraph_server.images.tokens import (
    TOKEN_PATTERN,
    InvalidSignatureError,
    MalformedTokenError,
    verify,
)

from .test_route import KNOWN_TOKEN, RING, TOKEN, Clock


def test_one_client_cannot_take_the_worker() -> None:
    from starlette.testclient import TestClient

    clock = Clock()
    throttle = Throttle(rate=2, burst=3, clock=clock)
    context = RenderContext(RING, cached(None))
    app = Starlette(routes=[Route(IMAGE_ROUTE, image_endpoint(lambda r: context, throttle))])
    with TestClient(app) as c:
        for _ in range(3):
            assert c.get(f"/default.svg?t={TOKEN}").status_code == 200
        refused = c.get(f"/default.svg?t={TOKEN}")
        assert refused.status_code == 429
        assert refused.json()["errorCode"] == "RATE_LIMIT_EXCEEDED"
        assert refused.headers["retry-after"] == "1"
        assert refused.headers["cache-control"] == "no-store"
        assert c.get("/default.svg?t=junk").status_code == 429  # refusals count too
        clock.now += 0.5  # one image back at 2 per second
        assert c.get(f"/default.svg?t={TOKEN}").status_code == 200
        assert c.get(f"/default.svg?t={TOKEN}").status_code == 429


def test_throttle_buckets_are_per_client_and_bounded() -> None:
    clock = Clock()
    throttle = Throttle(rate=1, burst=1, max_clients=3, clock=clock)
    assert throttle.take("a") == 0 and throttle.take("a") == 1
    assert throttle.take("b") == 0  # another client is not affected
    for name in "cdef":
        throttle.take(name)
    assert len(throttle) == 3
    assert throttle.take("a") == 0  # "a" was dropped (least recently seen): a full bucket
    slow = Throttle(rate=0.25, burst=1, clock=clock)
    slow.take("x")
    assert slow.take("x") == 4
    with pytest.raises(ValueError):
        Throttle(rate=0)


B64_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
near_tokens = st.builds(
    "{}.{}".format,
    st.text(st.sampled_from(B64_CHARS + "!"), min_size=0, max_size=17),
    st.sampled_from([73, 74, 75, 94, 95, 96, 111, 112, 115, 116, 117, 124, 167]).flatmap(
        lambda n: st.text(st.sampled_from(B64_CHARS + "="), min_size=n, max_size=n)),
)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(near_tokens, st.text(st.sampled_from("AZaz09_-.k1!%"), max_size=130)))
def test_the_t_pattern_is_what_verify_enforces(text: str) -> None:
    shaped = re.fullmatch(TOKEN_PATTERN, text) is not None
    try:
        verify(text, RING)
    except MalformedTokenError:
        # a well-shaped text is refused as malformed only for non-canonical base64url
        if shaped:
            body = text.split(".", 1)[1]
            assert base64.urlsafe_b64encode(base64.urlsafe_b64decode(
                body + "=" * (-len(body) % 4))).rstrip(b"=").decode() != body
    except InvalidSignatureError:
        assert shaped
    for token in (TOKEN, KNOWN_TOKEN):
        assert re.fullmatch(TOKEN_PATTERN, token)


def test_the_documented_t_parameter() -> None:
    from bodygraph_server.resources import service_document

    operation = service_document()["paths"]["/render/{template}.svg"]["get"]
    [t] = [p for p in operation["parameters"] if p["name"] == "t"]
    assert t["schema"]["pattern"] == TOKEN_PATTERN
    assert "429" in operation["responses"]
