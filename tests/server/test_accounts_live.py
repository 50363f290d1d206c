"""End to end: the self-service account API under a real uvicorn with two workers, on
SQLite and on PostgreSQL: a key rotated on one worker is refused at once by the other; the
figures equal the ledger after a mixed run; usage by day across a period boundary; bad
input answered with the contract's shapes, never a 500."""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import time
from collections.abc import Iterator
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.http.envelope import timestamp
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.policy.credits import add_months
from bodygraph_server.store import open_store

from .support import LiveServer, google_stand_in
from .test_live import NO_WARM_UP, PG_ADMIN_URL, Deployment, _deploy

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

COORDS = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}


@pytest.fixture(scope="module")
def google_url() -> Iterator[str]:
    with google_stand_in() as (url, _seen):
        yield url


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres",
                                                               marks=pytest.mark.postgres)])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
         google_url: str) -> Iterator[Deployment]:
    """The service with two workers on a new SQLite file or PostgreSQL schema."""
    tmp = tmp_path_factory.mktemp("accounts")
    schema = ""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp / 'accounts.sqlite3'}"
    else:
        import psycopg

        schema = "bgacct_" + secrets.token_hex(5)
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        url = f"{PG_ADMIN_URL}?options={quote(f'-csearch_path={schema}')}"
    try:
        with _deploy(url, tmp, google_url, workers=2,
                     extra_env={"BODYGRAPH_ACCESS_LOG": "0", **NO_WARM_UP}) as deployment:
            yield deployment
            assert "Traceback" not in deployment.server.log_text()
    finally:
        if schema:
            import psycopg

            with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


# -- which worker holds a connection (Linux /proc) ---------------------------------------


def _children(root: int) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        with suppress(OSError):
            parent = re.search(r"\nPPid:\s*(\d+)", status.read_text())
            if parent and int(parent[1]) == root:
                found.append(int(status.parent.name))
    return found


def _worker_of(server: LiveServer, conn: http.client.HTTPConnection) -> int:
    """The worker process holding the server's end of ``conn`` (open, kept alive)."""
    assert conn.sock is not None
    mine = conn.sock.getsockname()[1]
    inode = next(row.split()[9] for row in Path("/proc/net/tcp").read_text().splitlines()[1:]
                 if int(row.split()[1].split(":")[1], 16) == server.port
                 and int(row.split()[2].split(":")[1], 16) == mine
                 and row.split()[3] == "01")  # ESTABLISHED, not an old TIME_WAIT
    target = f"socket:[{inode}]"
    holders = []
    for pid in _children(server.pid):
        with suppress(OSError):
            if any(os.readlink(fd) == target for fd in Path(f"/proc/{pid}/fd").iterdir()):
                holders.append(pid)
    assert len(holders) == 1, holders
    return holders[0]


def _call(conn: http.client.HTTPConnection, method: str, path: str, key: str,
          body: Any = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {key}"}
    payload = None if body is None else json.dumps(body)
    if payload is not None:
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=payload, headers=headers)
    response = conn.getresponse()
    return response.status, json.loads(response.read())


def _two_workers(server: LiveServer) -> tuple[http.client.HTTPConnection,
                                              http.client.HTTPConnection]:
    """Two kept-alive connections, each held by another worker. Which worker accepts a
    connection is not random (a worker still starting, or starved of CPU, takes none for
    a while), so new connections are tried for up to 60 s, a pause after each miss."""
    held: dict[int, http.client.HTTPConnection] = {}
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            conn.request("GET", "/health/live")
            conn.getresponse().read()
            worker = _worker_of(server, conn)
            if worker in held:
                conn.close()
                time.sleep(0.05)
                continue
            held[worker] = conn
            if len(held) == 2:
                first, second = held.values()
                return first, second
    except BaseException:
        for conn in held.values():
            conn.close()
        raise
    for conn in held.values():
        conn.close()
    raise AssertionError("one worker took every connection for 60 s")


def test_a_rotation_is_seen_at_once_by_the_other_worker(site: Deployment) -> None:
    issued = site.book.create_account("hobbyist")
    old = issued.api_key
    one, other = _two_workers(site.server)
    try:
        assert _call(other, "GET", "/v2/account", old)[0] == 200  # the old key, before
        status, body = _call(one, "POST", "/v2/account/keys/rotate", old)
        assert status == 200, body
        new = body["data"]["apiKey"]
        status, body = _call(other, "GET", "/v2/account", old)
        assert (status, body["errorCode"]) == (401, "API_KEY_INVALID")
        status, body = _call(other, "POST", "/v2/charts/simple",
                             old, {**COORDS, "location": "Berlin, Germany"})
        assert (status, body["errorCode"]) == (401, "API_KEY_INVALID")
        status, body = _call(other, "GET", "/v2/account", new)
        assert (status, body["data"]["tier"]) == (200, "Basic")
        # and the other way round
        status, body = _call(other, "POST", "/v2/account/keys/rotate", new)
        assert status == 200, body
        assert _call(one, "GET", "/v2/account/usage?days=1", new)[0] == 401
        assert _call(one, "GET", "/v2/account/usage?days=1", body["data"]["apiKey"])[0] == 200
    finally:
        one.close()
        other.close()


def test_figures_equal_the_ledger_after_a_mixed_run(site: Deployment) -> None:
    issued = site.book.create_account("scale")
    account_id = issued.account.id
    site.book.adjust_credits(account_id, 4, "the end of the month, nearly")
    headers = {"Authorization": f"Bearer {issued.api_key}"}
    http = site.http
    assert http.post("/v2/charts/coordinates", json=COORDS, headers=headers).status_code == 200
    batch = {"births": [COORDS, {**COORDS, "lng": 200}, {**COORDS, "birthtime": "03:15"}]}
    assert http.post("/v2/charts/batch", json=batch, headers=headers).status_code == 200
    assert http.post("/v2/charts/coordinates", json=COORDS, headers=headers).status_code == 200
    refused = http.post("/v2/charts/coordinates", json=COORDS, headers=headers)
    assert refused.json()["errorCode"] == "CREDITS_EXHAUSTED"
    site.book.set_overage(account_id, True)
    for _ in range(3):
        assert http.post("/v2/charts/coordinates", json=COORDS,
                         headers=headers).status_code == 200

    seen = http.get("/v2/account", headers=headers).json()["data"]
    audit = site.book.audit(account_id)
    period = site.book.usage(account_id)[-1]
    assert audit.balanced
    assert seen["credits"]["remaining"] == audit.balance == 0
    assert seen["credits"]["used"] == audit.charged == period.credits == 4
    assert seen["credits"]["allocated"] == 4 and seen["credits"]["rolledOver"] == 0
    assert seen["overage"] == {"enabled": True, "used": 3, "ratePer1000": "1.00"}
    assert period.overage_calls == 3
    usage = http.get("/v2/account/usage", params={"days": 1}, headers=headers).json()["data"]
    by_endpoint = {e["endpoint"]: (e["calls"], e["credits"]) for e in usage["days"][0]["endpoints"]}
    assert by_endpoint == {"/v2/charts/coordinates": (5, 2), "/v2/charts/batch": (2, 2)}
    assert (usage["calls"], usage["credits"]) == (period.calls, audit.charged)


def test_usage_by_day_across_a_period_boundary(site: Deployment) -> None:
    now = datetime.now(UTC)
    past = ManualClock(now - timedelta(days=40))
    # an account made 40 days ago: its period 1 began 9 to 12 days ago
    with Bookkeeper(open_store(site.book.store.url), clock=past) as then:
        issued = then.create_account("developer")
        principal = then.authenticate(issued.api_key)
        assert isinstance(principal, Principal)
        past.advance(days=1)
        for _ in range(3):
            reservation = then.reserve(principal, "/v2/charts/coordinates")
            assert isinstance(reservation, Reservation)
            then.commit(reservation)
    headers = {"Authorization": f"Bearer {issued.api_key}"}
    for _ in range(2):
        assert site.http.post("/v2/charts/coordinates", json=COORDS,
                              headers=headers).status_code == 200

    seen = site.http.get("/v2/account", headers=headers).json()["data"]["credits"]
    boundary = add_months(issued.account.created_at, 1)
    assert seen == {"remaining": 9997 + 10_000 - 2, "allocated": 10_000, "rolledOver": 9997,
                    "used": 2, "periodStart": timestamp(boundary),
                    "periodEnd": timestamp(add_months(issued.account.created_at, 2))}
    usage = site.http.get("/v2/account/usage?days=45", headers=headers).json()["data"]
    busy = {d["date"]: (d["calls"], d["credits"]) for d in usage["days"] if d["calls"]}
    today = datetime.now(UTC).date()
    assert busy == {(now - timedelta(days=39)).date().isoformat(): (3, 3),
                    today.isoformat(): (2, 2)}
    assert usage["to"] == today.isoformat() and len(usage["days"]) == 45
    assert sum(p.calls for p in site.book.usage(issued.account.id)) == usage["calls"] == 5


BAD = [
    ("GET", "/v2/account/usage?days=0", {}, None, 422),
    ("GET", "/v2/account/usage?days=91", {}, None, 422),
    ("GET", "/v2/account", {"Content-Type": "application/json"}, b'{"x": 1}', 422),
    ("GET", "/v2/account/usage?days=3", {}, b"days=3", 422),
    ("POST", "/v2/account/keys/rotate", {}, b'"please"', 422),
    ("GET", "/v2/account", {"Accept": "text/calendar"}, None, 406),
    ("POST", "/v2/account/webhook-secret/rotate", {"Accept": "application/xml"}, None, 406),
    ("POST", "/v2/calendar", {"Accept": "application/xml"},
     b'{"from": "2024-03-01", "to": "2024-03-02"}', 406),
]


def test_bad_input_gets_the_contract_shapes(site: Deployment) -> None:
    key = site.key("developer")
    for method, path, extra, body, status in BAD:
        answer = site.http.request(method, path, content=body,
                                   headers={"Authorization": f"Bearer {key}", **extra})
        assert answer.status_code == status, (path, answer.text)
        shape = answer.json()
        assert (shape["success"], shape["errorCode"], shape["data"]) == (
            False, "INVALID_REQUEST_BODY", None), shape
    assert site.http.get("/v2/account", headers={"Authorization": f"Bearer {key}"}).json()[
        "data"]["credits"]["used"] == 0
    ics = site.http.post("/v2/calendar", json={"from": "2024-03-01", "to": "2024-03-02"},
                         headers={"Authorization": f"Bearer {key}", "Accept": "text/calendar"})
    assert ics.status_code == 200 and ics.content.startswith(b"BEGIN:VCALENDAR\r\n")
