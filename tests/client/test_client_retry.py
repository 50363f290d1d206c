"""The contract's retry rules, against a scripted HTTP server on 127.0.0.1: 500 and 503
are retried after 1, 2 and 4 s, 429 after its Retry-After, at most three retries; 400,
401, 402, 403, 404 and 422 never. Every attempt of one call carries the same
Idempotency-Key; two calls carry two keys."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from bodygraph_client import (
    AccessDenied,
    AsyncClient,
    AuthError,
    Birth,
    BodygraphApiError,
    Client,
    CreditsExhausted,
    EndpointNotFound,
    InvalidInput,
    RateLimited,
    ServerError,
)

from .conftest import async_loopback, loopback

COORDS = (52.52, 13.405, "1990-07-15", "14:30")
DATA = {"type": "Projector"}
Answer = tuple[int, dict[str, str], dict[str, Any]]


def ok() -> Answer:
    return 200, {"ratelimit": '"100-in-1min"; r=41; t=17'}, {
        "success": True, "errorCode": "", "message": "ok", "type": "ChartResult",
        "data": DATA}


def refusal(status: int, code: str, headers: dict[str, str] | None = None) -> Answer:
    return status, headers or {}, {"success": False, "errorCode": code, "message": code.lower(),
                                   "type": "", "data": None}


class Script:
    """Answers in order; records every request's headers."""

    def __init__(self) -> None:
        self.answers: list[Answer] = []
        self.seen: list[dict[str, str]] = []

    def play(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.seen = []


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        script: Script = self.server.script  # type: ignore[attr-defined]
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        script.seen.append({k.lower(): v for k, v in self.headers.items()})
        status, headers, body = script.answers.pop(0)
        payload = json.dumps(body).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture(scope="module")
def scripted() -> Iterator[tuple[str, Script]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.script = Script()  # type: ignore[attr-defined]
    # shutdown() waits for serve_forever to look at its flag: every 10 ms, not 0.5 s.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.script  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def keys(script: Script) -> list[str]:
    return [headers["idempotency-key"] for headers in script.seen]


def same_key(script: Script, attempts: int) -> None:
    found = keys(script)
    assert len(found) == attempts
    assert len(set(found)) == 1
    assert uuid.UUID(found[0]).version == 4


def test_500_twice_then_200(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.play(refusal(500, "INTERNAL_ERROR"), refusal(500, "EPHEMERIS_ERROR"), ok())
    slept: list[float] = []
    with Client("key", base_url=url, transport=loopback(), sleep=slept.append) as client:
        assert client.chart_at(*COORDS) == DATA
        assert (client.rate_limit.remaining, client.rate_limit.reset) == (41, 17)
    assert slept == [1.0, 2.0]
    same_key(script, 3)
    assert script.seen[0]["authorization"] == "Bearer key"


def test_503_gives_up_after_three_retries(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.play(*[refusal(503, "INTERNAL_ERROR")] * 4)
    slept: list[float] = []
    with Client("key", base_url=url, transport=loopback(), sleep=slept.append) as client, \
            pytest.raises(ServerError) as caught:
        client.chart_at(*COORDS)
    assert slept == [1.0, 2.0, 4.0]
    assert caught.value.status == 503
    same_key(script, 4)


def test_429_waits_retry_after(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.play(refusal(429, "RATE_LIMIT_EXCEEDED", {"Retry-After": "7"}), ok())
    slept: list[float] = []
    with Client("key", base_url=url, transport=loopback(), sleep=slept.append) as client:
        assert client.chart_at(*COORDS) == DATA
    assert slept == [7.0]
    same_key(script, 2)


def test_429_longer_than_max_wait_is_raised(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.play(refusal(429, "RATE_LIMIT_EXCEEDED", {"Retry-After": "3600"}))
    slept: list[float] = []
    with Client("key", base_url=url, transport=loopback(), sleep=slept.append) as client, \
            pytest.raises(RateLimited) as caught:
        client.chart_at(*COORDS)
    assert slept == [] and caught.value.retry_after == 3600.0


NEVER = [
    (400, "INVALID_BIRTHDATE", InvalidInput),
    (401, "API_KEY_INVALID", AuthError),
    (402, "CREDITS_EXHAUSTED", CreditsExhausted),
    (403, "ACCESS_DENIED", AccessDenied),
    (404, "NOT_FOUND", EndpointNotFound),
    (422, "INVALID_REQUEST_BODY", InvalidInput),
]


@pytest.mark.parametrize(("status", "code", "error"), NEVER, ids=[str(n[0]) for n in NEVER])
def test_never_retried(scripted: tuple[str, Script], status: int, code: str,
                       error: type[BodygraphApiError]) -> None:
    url, script = scripted
    script.play(refusal(status, code), ok())
    slept: list[float] = []
    with Client("key", base_url=url, transport=loopback(), sleep=slept.append) as client, \
            pytest.raises(error) as caught:
        client.chart_at(*COORDS)
    assert (caught.value.status, caught.value.error_code) == (status, code)
    assert slept == [] and len(script.seen) == 1


def test_each_call_has_its_own_key(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.play(ok(), ok())
    with Client("key", base_url=url, transport=loopback(), geocode_key="geo") as client:
        client.chart("1990-07-15", "14:30", "Berlin, Germany")
        client.chart("1990-07-15", "14:30", "Berlin, Germany")
    assert len(set(keys(script))) == 2
    assert all(h["hd-geocode-key"] == "geo" for h in script.seen)


def test_extension_retried_with_one_key(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.play(refusal(503, "INTERNAL_ERROR"), ok())
    slept: list[float] = []
    with Client("key", base_url=url, transport=loopback(), geocode_key="geo",
                sleep=slept.append) as client:
        people = (Birth.at(*COORDS), Birth.place("1990-07-15", "14:30", "Berlin"))
        assert client.connection(*people) == DATA
    assert slept == [1.0]
    same_key(script, 2)
    assert all(h["hd-geocode-key"] == "geo" for h in script.seen)


def test_batch_retried_with_one_key(scripted: tuple[str, Script]) -> None:
    """The batch is charged (1 credit per chart): its retries carry one key too, which the
    service honours (docs/api.md, Idempotent retries)."""
    url, script = scripted
    answer = ok()
    batch = (200, answer[1], {**answer[2], "type": "ChartBatchResult",
                              "data": {"results": [DATA]}})
    script.play(refusal(503, "SERVICE_UNAVAILABLE"), refusal(500, "INTERNAL_ERROR"), batch)
    slept: list[float] = []
    with Client("key", base_url=url, transport=loopback(), sleep=slept.append) as client:
        assert client.charts_batch([Birth.at(*COORDS)]) == {"results": [DATA]}
    assert slept == [1.0, 2.0]
    same_key(script, 3)


def test_v1_uses_the_api_key_header(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.play((200, {}, {"type": "Projector"}))
    with Client("key", base_url=url, transport=loopback(), geocode_key="geo") as client:
        assert client.v1_simple_bodygraph("15-Jul-90", "14:30", "Berlin") == {"type": "Projector"}
    headers = script.seen[0]
    assert headers["hd-api-key"] == "key" and "authorization" not in headers
    assert headers["content-type"] == "application/json"


def test_unreadable_error_body(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.play((502, {}, {}), (502, {}, {}), (502, {}, {}), (502, {}, {}))
    with Client("key", base_url=url, transport=loopback()) as client, \
            pytest.raises(ServerError) as caught:
        client.chart_at(*COORDS)
    assert caught.value.error_code == "" and caught.value.status == 502
    assert len(script.seen) == 1  # 502 is not in the contract's retry list


def test_malformed_success_answer(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.play((200, {}, {"success": True}))  # no data
    with Client("key", base_url=url, transport=loopback()) as client, \
            pytest.raises(ServerError) as caught:
        client.chart_at(*COORDS)
    assert "not the JSON the contract describes" in caught.value.message


@pytest.mark.anyio
async def test_async_500_twice_then_200(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.play(refusal(500, "INTERNAL_ERROR"), refusal(503, "INTERNAL_ERROR"), ok())
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async with AsyncClient("key", base_url=url, transport=async_loopback(), sleep=sleep) as client:
        assert await client.chart_at(*COORDS) == DATA
    assert slept == [1.0, 2.0]
    same_key(script, 3)


@pytest.mark.anyio
async def test_async_429_then_400_is_not_retried(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.play(refusal(429, "RATE_LIMIT_EXCEEDED", {"Retry-After": "2"}),
                refusal(400, "INVALID_LATITUDE"), ok())
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async with AsyncClient("key", base_url=url, transport=async_loopback(), sleep=sleep) as client:
        with pytest.raises(InvalidInput):
            await client.chart_at(*COORDS)
    assert slept == [2.0]
    same_key(script, 2)
