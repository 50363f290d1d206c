"""The account methods of both clients against the real service (uvicorn on 127.0.0.1):
each result validates against the service's own ``/openapi.json`` and equals the
bookkeeping; a rotated key is refused and the client goes on with the new one; the typed
dictionaries match the schemas."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from bodygraph_client import (
    AccountResult,
    AccountUsageResult,
    ApiKeyResult,
    AsyncClient,
    AuthError,
    Client,
    InvalidInput,
    WebhookSecretResult,
)

from .conftest import Service, async_loopback, loopback
from .schema_check import conforms

pytestmark = pytest.mark.timeout(300)

COORDS = (52.52, 13.405, "1990-07-15", "14:30")


def _valid(openapi: dict[str, Any], name: str, value: Any) -> None:
    import jsonschema

    jsonschema.Draft202012Validator({**openapi, "$ref": f"#/components/schemas/{name}"}
                                    ).validate(value)


def test_sync_account_methods(service: Service, openapi: dict[str, Any]) -> None:
    issued = service.account("developer")
    with Client(issued.api_key, base_url=service.base_url, transport=loopback()) as client:
        client.chart_at(*COORDS)
        seen = client.account()
        _valid(openapi, "AccountResult", seen)
        overview = service.book.overview(issued.account.id)
        assert seen["credits"]["remaining"] == overview.account.balance
        assert seen["credits"]["used"] == overview.figures.used == 1
        assert seen["rateLimit"]["remaining"] == client.rate_limit.remaining == 98
        usage = client.usage(3)
        _valid(openapi, "AccountUsageResult", usage)
        assert len(usage["days"]) == 3 and usage["days"][-1]["endpoints"] == [
            {"endpoint": "/v2/charts/coordinates", "calls": 1, "credits": 1}]
        assert len(client.usage()["days"]) == 30

        secret = client.webhook_secret()
        _valid(openapi, "WebhookSecretResult", secret)
        assert secret["secret"] == service.book.webhook_secret(issued.account.id)
        rotated_secret = client.rotate_webhook_secret()
        assert rotated_secret["secret"] != secret["secret"]

        old = issued.api_key
        rotated = client.rotate_key()
        _valid(openapi, "ApiKeyResult", rotated)
        assert rotated["apiKey"] != old
        assert client.account()["plan"] == "Developer"  # the client took the new key
        with Client(old, base_url=service.base_url, transport=loopback()) as stale, \
                pytest.raises(AuthError) as refused:
            stale.account()
        assert refused.value.error_code == "API_KEY_INVALID"
        for days in (0, 91):
            with pytest.raises(InvalidInput) as bad:
                client.usage(days)
            assert (bad.value.status, bad.value.error_code) == (422, "INVALID_REQUEST_BODY")


@pytest.mark.anyio
async def test_async_account_methods(service: Service, openapi: dict[str, Any]) -> None:
    issued = service.account("hobbyist")
    async with AsyncClient(issued.api_key, base_url=service.base_url,
                           transport=async_loopback()) as client:
        seen = await client.account()
        _valid(openapi, "AccountResult", seen)
        assert (seen["tier"], seen["credits"]["used"]) == ("Basic", 0)
        usage = await client.usage(1)
        assert (usage["calls"], usage["from"], usage["to"]) == (
            0, usage["days"][0]["date"], usage["days"][0]["date"])
        secret = await client.webhook_secret()
        assert (await client.rotate_webhook_secret())["secret"] != secret["secret"]
        assert service.book.webhook_secret(issued.account.id) != secret["secret"]
        rotated = await client.rotate_key()
        assert (await client.account())["tier"] == "Basic"
        async with AsyncClient(issued.api_key, base_url=service.base_url,
                               transport=async_loopback()) as stale:
            with pytest.raises(AuthError):
                await stale.webhook_secret()
        assert rotated["keyPrefix"] == rotated["apiKey"][:10]
    assert service.book.audit(issued.account.id).charged == 0


TYPES = [(AccountResult, "AccountResult"), (AccountUsageResult, "AccountUsageResult"),
         (ApiKeyResult, "ApiKeyResult"), (WebhookSecretResult, "WebhookSecretResult")]


@pytest.mark.parametrize(("kind", "name"), TYPES, ids=[t[1] for t in TYPES])
def test_typed_dict_matches_openapi(openapi: dict[str, Any], kind: Any, name: str) -> None:
    conforms(kind, {"$ref": f"#/components/schemas/{name}"}, name, openapi)


class LosesFirstRotationAnswer(httpx.BaseTransport):
    """Sends every request to the service, but the answer of the first key rotation is
    read and then lost on its way back (the connection breaks): the service rotated."""

    def __init__(self) -> None:
        self.inner = loopback()
        self.rotations: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if request.url.path == "/v2/account/keys/rotate":
            self.rotations.append(request)
            if len(self.rotations) == 1:
                response.read()
                response.close()
                raise httpx.ReadError("connection reset by peer")
        return response

    def close(self) -> None:
        self.inner.close()


def _rotate(service: Service, key: str, idempotency_key: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": idempotency_key}
    with httpx.Client(base_url=service.base_url, transport=loopback()) as raw:
        return raw.post("/v2/account/keys/rotate", headers=headers)


def test_a_rotation_whose_answer_is_lost_is_asked_again_and_gets_the_same_key(
    service: Service,
) -> None:
    issued = service.account("developer")
    old = issued.api_key
    lossy = LosesFirstRotationAnswer()
    with Client(old, base_url=service.base_url, transport=lossy,
                sleep=lambda _: None) as client:
        rotated = client.rotate_key()
        assert client.account()["plan"] == "Developer"  # the client holds the new key
    first, again = lossy.rotations
    assert first.headers["Authorization"] == again.headers["Authorization"] == f"Bearer {old}"
    asked = first.headers["Idempotency-Key"]
    assert again.headers["Idempotency-Key"] == asked
    with Client(old, base_url=service.base_url, transport=loopback()) as stale, \
            pytest.raises(AuthError) as refused:
        stale.account()  # the old key does nothing else
    assert refused.value.error_code == "API_KEY_INVALID"
    # Only the replay of that rotation: another Idempotency-Key with the old key is refused.
    other = _rotate(service, old, "another-rotation-0123456789")
    assert other.status_code == 401 and other.json()["errorCode"] == "API_KEY_INVALID"
    replay = _rotate(service, old, asked)
    assert replay.status_code == 200 and replay.json()["data"]["apiKey"] == rotated["apiKey"]
    # Once the new key is itself rotated away, the old one replays nothing.
    with Client(rotated["apiKey"], base_url=service.base_url, transport=loopback()) as moved:
        moved.rotate_key()
    assert _rotate(service, old, asked).status_code == 401


@pytest.mark.anyio
async def test_the_async_client_asks_a_lost_rotation_again(service: Service) -> None:
    issued = service.account("hobbyist")

    class Lossy(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = async_loopback()
            self.rotations = 0

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            response = await self.inner.handle_async_request(request)
            if request.url.path == "/v2/account/keys/rotate":
                self.rotations += 1
                if self.rotations == 1:
                    await response.aread()
                    await response.aclose()
                    raise httpx.ReadError("connection reset by peer")
            return response

        async def aclose(self) -> None:
            await self.inner.aclose()

    async def no_wait(_: float) -> None:
        return None

    lossy = Lossy()
    async with AsyncClient(issued.api_key, base_url=service.base_url, transport=lossy,
                           sleep=no_wait) as client:
        rotated = await client.rotate_key()
        assert (await client.account())["tier"] == "Basic"
    assert lossy.rotations == 2 and rotated["apiKey"] != issued.api_key
    assert _rotate(service, issued.api_key, "another-rotation-0123456789").status_code == 401


def test_a_short_idempotency_key_rotates_but_cannot_be_replayed(service: Service) -> None:
    """The new key is as hard to guess as the Idempotency-Key for whoever holds the old
    key: one of fewer than 32 characters gets a random key, and no replay."""
    old = service.account("developer").api_key
    first = _rotate(service, old, "short-1")
    assert first.status_code == 200 and first.json()["data"]["apiKey"] != old
    assert _rotate(service, old, "short-1").status_code == 401
