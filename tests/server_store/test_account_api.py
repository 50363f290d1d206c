"""The self-service account API in process, on SQLite and PostgreSQL with an injected
clock: the figures equal the ledger after a mixed run, usage by day across a period
boundary, key rotation, the webhook secret, every tier, a deactivated account, the rate
limit, and bad input answered with the contract's shapes."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bodygraph.catalog.translations import term
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.store import AccountNotFoundError

pytestmark = pytest.mark.anyio

COORDS = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}
ACCOUNT_OPERATIONS = [("GET", "/v2/account"), ("GET", "/v2/account/usage"),
                      ("POST", "/v2/account/keys/rotate"), ("GET", "/v2/account/webhook-secret"),
                      ("POST", "/v2/account/webhook-secret/rotate")]


def _bearer(key: str, **more: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", **more}


def _data(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["success"] is True and body["errorCode"] == ""
    return body["data"]


def _refused(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert (body["success"], body["errorCode"], body["type"], body["data"]) == (
        False, code, "", None)
    assert body["message"]


async def test_figures_equal_the_ledger_after_a_mixed_run(
        client: httpx.AsyncClient, book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    account_id, key = issued.account.id, issued.api_key
    book.adjust_credits(account_id, 5, "a small balance, to reach the overage")
    headers = _bearer(key)
    for _ in range(2):
        _data(await client.post("/v2/charts/coordinates", json=COORDS, headers=headers))
    batch = {"births": [COORDS, {**COORDS, "lat": 95}, {**COORDS, "birthtime": "06:00"}]}
    charted = _data(await client.post("/v2/charts/batch", json=batch, headers=headers))
    assert len(charted["results"]) == 3
    _data(await client.post("/v2/charts/coordinates", json=COORDS, headers=headers))
    _refused(await client.post("/v2/charts/coordinates", json=COORDS, headers=headers),
             402, "CREDITS_EXHAUSTED")
    _refused(await client.post("/v2/charts/coordinates", json={**COORDS, "lat": 91},
                               headers=headers), 400, "INVALID_LATITUDE")
    book.set_overage(account_id, True)
    for _ in range(2):
        _data(await client.post("/v2/charts/coordinates", json=COORDS, headers=headers))

    seen = _data(await client.get("/v2/account", headers=headers))
    audit = book.audit(account_id)
    period = book.usage(account_id)[-1]
    account = book.account(account_id)
    assert audit.balanced
    credits = seen["credits"]
    assert credits["remaining"] == account.balance == audit.balance == 0
    assert credits["used"] == period.credits == audit.charged == 5
    assert credits["rolledOver"] == 0
    assert credits["allocated"] == sum(e.delta for e in book.ledger(account_id)) == 5
    assert credits["remaining"] == credits["rolledOver"] + credits["allocated"] - credits["used"]
    assert seen["overage"] == {"enabled": True, "used": period.overage_calls,
                               "ratePer1000": "2.00"}
    assert period.overage_calls == 2
    assert (seen["plan"], seen["tier"], seen["status"]) == ("Developer", "Advanced", "active")
    assert credits["periodStart"] == "2026-01-31T09:30:00.000Z"
    assert credits["periodEnd"] == "2026-02-28T09:30:00.000Z"

    german = (await client.get("/v2/account?lang=de", headers=headers)).json()
    assert german["data"]["tier"] == seen["tier"]
    assert german["labels"] == {"tier": term("account", seen["tier"], "de"),
                                "status": term("account", seen["status"], "de")}
    assert german["labels"]["status"] != seen["status"]
    usage = _data(await client.get("/v2/account/usage?days=1", headers=headers))
    (today,) = usage["days"]
    assert today["date"] == "2026-01-31" == usage["from"] == usage["to"]
    by_endpoint = {e["endpoint"]: (e["calls"], e["credits"]) for e in today["endpoints"]}
    assert by_endpoint == {"/v2/charts/coordinates": (5, 3), "/v2/charts/batch": (2, 2)}
    assert (usage["calls"], usage["credits"]) == (period.calls, audit.charged) == (7, 5)
    # the account calls charged nothing
    assert book.audit(account_id).charged == 5


async def test_usage_by_day_across_a_period_boundary(
        client: httpx.AsyncClient, book: Bookkeeper, clock: ManualClock) -> None:
    issued = book.create_account("developer")  # 2026-01-31 09:30: the anchor
    headers = _bearer(issued.api_key)
    for _ in range(2):
        _data(await client.post("/v2/charts/coordinates", json=COORDS, headers=headers))
    other = _bearer(book.create_account("scale").api_key)  # another account's calls
    _data(await client.post("/v2/charts/coordinates", json=COORDS, headers=other))
    clock.advance(days=28, hours=1)  # 2026-02-28 10:30: period 1 began at 09:30 (clamped)
    _data(await client.post("/v2/charts/simple", json={**COORDS, "location": "Berlin, Germany"},
                            headers={**headers, "HD-Geocode-Key": "g"}))
    _data(await client.post("/v2/charts/coordinates", json=COORDS, headers=headers))

    seen = _data(await client.get("/v2/account", headers=headers))["credits"]
    assert seen == {"remaining": 9998 + 10_000 - 2, "allocated": 10_000, "rolledOver": 9998,
                    "used": 2, "periodStart": "2026-02-28T09:30:00.000Z",
                    "periodEnd": "2026-03-31T09:30:00.000Z"}
    usage = _data(await client.get("/v2/account/usage?days=30", headers=headers))
    assert (usage["from"], usage["to"], len(usage["days"])) == ("2026-01-30", "2026-02-28", 30)
    busy = {d["date"]: d for d in usage["days"] if d["calls"]}
    assert set(busy) == {"2026-01-31", "2026-02-28"}
    assert busy["2026-01-31"]["endpoints"] == [
        {"endpoint": "/v2/charts/coordinates", "calls": 2, "credits": 2}]
    assert sorted((e["endpoint"], e["calls"]) for e in busy["2026-02-28"]["endpoints"]) == [
        ("/v2/charts/coordinates", 1), ("/v2/charts/simple", 1)]
    assert all(d == {**d, "calls": 0, "credits": 0, "endpoints": []}
               for d in usage["days"] if d["date"] not in busy)
    assert usage["calls"] == usage["credits"] == sum(p.calls for p in book.usage(
        issued.account.id)) == 4
    shorter = _data(await client.get("/v2/account/usage?days=2", headers=headers))
    assert (shorter["from"], shorter["calls"]) == ("2026-02-27", 2)


async def test_rotation_refuses_the_old_key_at_once(
        client: httpx.AsyncClient, book: Bookkeeper) -> None:
    issued = book.create_account("hobbyist")
    old = issued.api_key
    balance = book.account(issued.account.id).balance
    answer = await client.post("/v2/account/keys/rotate", headers=_bearer(old))
    new = _data(answer)
    assert answer.headers["cache-control"] == "no-store"
    assert new["apiKey"].startswith("bg_") and new["apiKey"] != old
    assert new["keyPrefix"] == new["apiKey"][:10] == book.account(issued.account.id).key_prefix
    _refused(await client.get("/v2/account", headers=_bearer(old)), 401, "API_KEY_INVALID")
    _refused(await client.post("/v2/charts/simple", json={**COORDS, "location": "Berlin"},
                               headers=_bearer(old)), 401, "API_KEY_INVALID")
    _refused(await client.post("/v2/account/keys/rotate", headers=_bearer(old)),
             401, "API_KEY_INVALID")
    assert _data(await client.get("/v2/account", headers=_bearer(new["apiKey"])))["tier"] == (
        "Basic")
    assert book.account(issued.account.id).balance == balance  # free


async def test_the_new_key_goes_on_with_the_old_window(
        client: httpx.AsyncClient, book: Bookkeeper) -> None:
    old = book.create_account("developer").api_key
    for _ in range(10):
        _data(await client.get("/v2/account/webhook-secret", headers=_bearer(old)))
    rotated = await client.post("/v2/account/keys/rotate", headers=_bearer(old))
    new = _data(rotated)["apiKey"]
    assert _data(await client.get("/v2/account", headers=_bearer(new)))["rateLimit"][
        "remaining"] == 100 - 12


async def test_concurrent_rotations_with_one_key_give_one_new_key(
        client: httpx.AsyncClient, book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    answers: list[httpx.Response] = []

    async def rotate() -> None:
        answers.append(await client.post("/v2/account/keys/rotate",
                                         headers=_bearer(issued.api_key)))

    async with anyio.create_task_group() as tasks:
        for _ in range(5):
            tasks.start_soon(rotate)
    won = [a for a in answers if a.status_code == 200]
    assert len(won) == 1, [a.text for a in answers]
    for lost in answers:
        if lost.status_code != 200:
            _refused(lost, 401, "API_KEY_INVALID")
    key = won[0].json()["data"]["apiKey"]
    _data(await client.get("/v2/account", headers=_bearer(key)))


async def test_concurrent_rotations_with_one_idempotency_key_all_get_the_key(
        client: httpx.AsyncClient, book: Bookkeeper, clock: ManualClock) -> None:
    """The same rotation sent 5 times at once (one Idempotency-Key): one rotates, the
    others are its replays; within 24 hours only, and only with that Idempotency-Key."""
    issued = book.create_account("developer")
    asked = "rotation-" + "7" * 32
    answers: list[httpx.Response] = []

    async def rotate() -> None:
        answers.append(await client.post("/v2/account/keys/rotate", headers=_bearer(
            issued.api_key, **{"Idempotency-Key": asked})))

    async with anyio.create_task_group() as tasks:
        for _ in range(5):
            tasks.start_soon(rotate)
    keys = {_data(answer)["apiKey"] for answer in answers}
    assert len(keys) == 1 and issued.api_key not in keys
    _refused(await client.post("/v2/account/keys/rotate", headers=_bearer(
        issued.api_key, **{"Idempotency-Key": asked + "x"})), 401, "API_KEY_INVALID")
    _refused(await client.get("/v2/account", headers=_bearer(
        issued.api_key, **{"Idempotency-Key": asked})), 401, "API_KEY_INVALID")
    clock.advance(hours=24, seconds=1)
    _refused(await client.post("/v2/account/keys/rotate", headers=_bearer(
        issued.api_key, **{"Idempotency-Key": asked})), 401, "API_KEY_INVALID")
    _data(await client.get("/v2/account", headers=_bearer(keys.pop())))


@pytest.mark.parametrize("plan", ["hobbyist", "developer", "scale", "lifetime"])
async def test_every_tier_may_call_and_nothing_is_charged(
        client: httpx.AsyncClient, book: Bookkeeper, plan: str) -> None:
    issued = book.create_account(plan)
    key = issued.api_key
    for method, path in ACCOUNT_OPERATIONS:
        answer = await client.request(method, path, headers=_bearer(key))
        data = _data(answer)
        if path.endswith("/keys/rotate"):
            key = data["apiKey"]
    assert book.audit(issued.account.id).charged == 0
    assert book.account(issued.account.id).balance == issued.account.balance


async def test_a_deactivated_account_is_refused(
        client: httpx.AsyncClient, book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    book.deactivate(issued.account.id)
    for method, path in ACCOUNT_OPERATIONS:
        _refused(await client.request(method, path, headers=_bearer(issued.api_key)),
                 403, "ACCOUNT_INACTIVE")
    book.activate(issued.account.id)
    _data(await client.get("/v2/account", headers=_bearer(issued.api_key)))


async def test_a_cancelled_account_sees_its_state(
        client: httpx.AsyncClient, book: Bookkeeper, clock: ManualClock) -> None:
    issued = book.create_account("developer")
    book.cancel(issued.account.id)
    seen = _data(await client.get("/v2/account", headers=_bearer(issued.api_key)))
    assert seen["status"] == "cancelling"
    clock.advance(days=40)
    seen = _data(await client.get("/v2/account", headers=_bearer(issued.api_key)))
    assert seen["status"] == "cancelled"
    assert {k: seen["credits"][k] for k in ("remaining", "allocated", "rolledOver", "used")} == {
        "remaining": 0, "allocated": 0, "rolledOver": 0, "used": 0}


async def test_the_account_calls_count_toward_the_rate_limit(
        client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = book.create_account("developer").api_key
    first = _data(await client.get("/v2/account", headers=_bearer(key)))
    assert first["rateLimit"] == {"limit": 100, "windowSeconds": 60, "remaining": 99}
    for index in range(98):
        path = "/v2/account/usage" if index % 2 else "/v2/account/webhook-secret"
        answer = await client.get(path, headers=_bearer(key))
        assert answer.status_code == 200
    last = await client.get("/v2/account", headers=_bearer(key))
    assert _data(last)["rateLimit"]["remaining"] == 0
    over = await client.get("/v2/account", headers=_bearer(key))
    _refused(over, 429, "RATE_LIMIT_EXCEEDED")
    assert int(over.headers["retry-after"]) >= 1


BAD_INPUT = [
    ("GET", "/v2/account/usage?days=0", {}, b"", 422),
    ("GET", "/v2/account/usage?days=91", {}, b"", 422),
    ("GET", "/v2/account/usage?days=-1", {}, b"", 422),
    ("GET", "/v2/account/usage?days=1.5", {}, b"", 422),
    ("GET", "/v2/account/usage?days=seven", {}, b"", 422),
    ("GET", "/v2/account/usage?days=", {}, b"", 422),
    ("GET", "/v2/account/usage?days=99999999999999999999", {}, b"", 422),
    ("GET", "/v2/account/usage?days=%D9%A3", {}, b"", 422),  # an Arabic-Indic 3
    ("GET", "/v2/account/usage?days=3&days=4", {}, b"", 422),
    ("GET", "/v2/account/usage?day=3", {}, b"", 422),
    ("GET", "/v2/account?days=3", {}, b"", 422),
    ("GET", "/v2/account", {"Content-Type": "application/json"}, b'{"plan": "scale"}', 422),
    ("GET", "/v2/account/usage", {}, b"{}", 422),
    ("GET", "/v2/account/webhook-secret", {}, b"x", 422),
    ("POST", "/v2/account/keys/rotate", {}, b'{"apiKey": "mine"}', 422),
    ("POST", "/v2/account/keys/rotate", {}, b"{not json", 422),
    ("POST", "/v2/account/webhook-secret/rotate", {}, b"[]", 422),
    ("POST", "/v2/account/keys/rotate", {}, b'{"pad": "' + b"x" * 20_000 + b'"}', 413),
    ("GET", "/v2/account", {"Accept": "text/calendar"}, b"", 406),
    ("GET", "/v2/account/usage", {"Accept": "image/png, text/html;q=0.9"}, b"", 406),
    ("POST", "/v2/account/keys/rotate", {"Accept": "application/json;q=0"}, b"", 406),
    ("GET", "/v2/account", {"Accept": "nonsense"}, b"", 406),
]


@pytest.mark.parametrize(("method", "path", "headers", "body", "status"), BAD_INPUT)
async def test_bad_input_gets_the_contract_shapes(
        client: httpx.AsyncClient, book: Bookkeeper, method: str, path: str,
        headers: dict[str, str], body: bytes, status: int) -> None:
    issued = book.create_account("developer")
    answer = await client.request(method, path, headers=_bearer(issued.api_key, **headers),
                                  content=body)
    _refused(answer, status, "INVALID_REQUEST_BODY")
    # nothing happened: the key still works, nothing charged
    _data(await client.get("/v2/account", headers=_bearer(issued.api_key)))
    assert book.audit(issued.account.id).charged == 0


@pytest.mark.parametrize("accept", ["application/json", "*/*", "application/*",
                                    "text/html,application/xhtml+xml,*/*;q=0.8",
                                    "text/calendar;q=0.5, application/json"])
async def test_accept_headers_that_take_json(
        client: httpx.AsyncClient, book: Bookkeeper, accept: str) -> None:
    key = book.create_account("developer").api_key
    answer = await client.get("/v2/account", headers=_bearer(key, Accept=accept))
    assert answer.headers["content-type"] == "application/json"
    _data(answer)
    assert _data(await client.post("/v2/account/keys/rotate", headers=_bearer(key),
                                   content=b"{}"))["apiKey"]


async def test_the_webhook_secret(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    from standardwebhooks.webhooks import Webhook

    issued = book.create_account("developer")
    headers = _bearer(issued.api_key)
    first = _data(await client.get("/v2/account/webhook-secret", headers=headers))["secret"]
    assert first.startswith("whsec_")
    assert len(base64.b64decode(first.removeprefix("whsec_"), validate=True)) == 32
    assert _data(await client.get("/v2/account/webhook-secret", headers=headers))["secret"] == (
        first)
    assert book.store.webhook_secret(issued.account.id) == first  # what the job runner signs with
    other = book.create_account("developer")
    assert book.webhook_secret(other.account.id) != first

    rotated = _data(await client.post("/v2/account/webhook-secret/rotate",
                                      headers=headers))["secret"]
    assert rotated != first and rotated.startswith("whsec_")
    assert book.store.webhook_secret(issued.account.id) == rotated
    payload = json.dumps({"type": "job.succeeded"})
    signed = Webhook(rotated)
    now = datetime.now(UTC)
    signature = signed.sign("msg_1", now, payload)
    assert signature.startswith("v1,")
    assert signed.verify(payload, {"webhook-id": "msg_1",
                                   "webhook-timestamp": str(int(now.timestamp())),
                                   "webhook-signature": signature}) == {"type": "job.succeeded"}
    with pytest.raises(AccountNotFoundError):
        book.store.webhook_secret(999_999)
    with pytest.raises(AccountNotFoundError):
        book.rotate_webhook_secret(999_999)


def test_the_webhook_secret_is_made_once_under_concurrency(book: Bookkeeper) -> None:
    import concurrent.futures

    account_id = book.create_account("developer").account.id
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        secrets = set(pool.map(lambda _: book.store.webhook_secret(account_id), range(8)))
    assert len(secrets) == 1


def test_usage_by_day_is_empty_for_a_new_account(book: Bookkeeper,
                                                 clock: ManualClock) -> None:
    account_id = book.create_account("developer").account.id
    first, found = book.usage_by_day(account_id, 90)
    assert first == (clock.now() - timedelta(days=89)).date() and found == []
    with pytest.raises(AccountNotFoundError):
        book.usage_by_day(999_999, 3)


_QUERY_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]),
                      max_size=12)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(method_path=st.sampled_from([op for op in ACCOUNT_OPERATIONS
                                    if op[1] != "/v2/account/keys/rotate"]),
       query=st.lists(st.tuples(st.sampled_from(["days", "day", "lang", "x"]), _QUERY_TEXT),
                      max_size=3),
       accept=st.one_of(st.none(), st.sampled_from(["*/*", "text/calendar", "application/*",
                                                    "application/json;q=0", ";;,", "a/b"]),
                        st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126),
                                max_size=20)),
       body=st.one_of(st.just(b""), st.binary(max_size=40),
                      st.sampled_from([b"{}", b"[]", b'{"days": 3}', b"null"])))
async def test_no_input_gives_a_5xx(client: httpx.AsyncClient, book: Bookkeeper,
                                    clock: ManualClock, method_path: tuple[str, str],
                                    query: list[tuple[str, str]], accept: str | None,
                                    body: bytes) -> None:
    clock.advance(61)  # a fresh rate-limit window for each example
    key = book.create_account("hobbyist").api_key
    headers = _bearer(key) if accept is None else _bearer(key, Accept=accept)
    method, path = method_path
    answer = await client.request(method, path, params=query, headers=headers, content=body)
    assert answer.status_code in (200, 400, 406, 422), answer.text  # 400: an unknown lang
    shape = answer.json()
    assert shape["success"] is (answer.status_code == 200)
    assert shape["errorCode"] in ("", "INVALID_REQUEST_BODY", "INVALID_LANGUAGE")
