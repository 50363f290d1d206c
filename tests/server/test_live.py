"""End to end: the service under a real uvicorn on 127.0.0.1 (subprocess), with accounts
made through the bookkeeping API on the same database, the Google geocoder pointed at the
local stand-in, and real HTTP from httpx."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

import httpx
import pytest

import bodygraph
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.http.errors import ErrorCode
from bodygraph_server.store import open_store

from .support import POLICY_RE, STATE_RE, LiveServer, google_stand_in, tls_context
from .test_error_codes import CASES, Case, check_error

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

PLACE = {"birthdate": "1990-07-15", "birthtime": "14:30", "location": "Berlin, Germany"}
COORDS = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}
V1 = {"birthdate": "15-Jul-90", "birthtime": "14:30", "location": "Berlin, Germany"}
SECRETS = ("1990-07-15", "15-Jul-90", "14:30", "52.52", "13.405", "Berlin", "Nowhere")


#: For the servers of one test: a few charts need not load the compiled engine (about a
#: second of CPU per worker). The module's shared server warms up as deployed ones do.
NO_WARM_UP = {"BODYGRAPH_WARM_UP": "0"}


def expected() -> bodygraph.Chart:
    return bodygraph.calculate(datetime(1990, 7, 15, 14, 30, tzinfo=ZoneInfo("Europe/Berlin")))


class Deployment:
    """A running server, its database and the geocoding stand-in."""

    def __init__(self, server: LiveServer, book: Bookkeeper) -> None:
        self.server = server
        self.book = book
        self.http = httpx.Client(base_url=server.base_url, timeout=30, verify=tls_context())

    def key(self, plan: str = "developer") -> str:
        return self.book.create_account(plan).api_key


@contextmanager
def _deploy(db_url: str, tmp: Path, google_url: str, workers: int = 1,
            extra_env: dict[str, str] | None = None) -> Iterator[Deployment]:
    book = Bookkeeper(open_store(db_url))  # migrates before the server starts
    env = {
        "BODYGRAPH_DATABASE_URL": db_url,
        "BODYGRAPH_GEOCODER": "google",
        "BODYGRAPH_GEOCODER_URL": google_url,
        "BODYGRAPH_WARM_UP": "1",
        **(extra_env or {}),
    }
    server = LiveServer(env, workers=workers, log=tmp / f"server-{secrets.token_hex(3)}.log")
    deployment = Deployment(server, book)
    try:
        server.wait_ready()
        yield deployment
    finally:
        deployment.http.close()
        server.stop()
        book.close()


@pytest.fixture(scope="module")
def google_url() -> Iterator[str]:
    with google_stand_in() as (url, _seen):
        yield url


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, google_url: str) -> Iterator[Deployment]:
    tmp = tmp_path_factory.mktemp("live")
    with _deploy(f"sqlite:///{tmp / 'live.sqlite3'}", tmp, google_url) as deployment:
        yield deployment


def test_every_endpoint_succeeds(live: Deployment) -> None:
    chart = expected()
    issued = live.book.create_account("developer")
    key = issued.api_key
    v2 = {"Authorization": f"Bearer {key}", "HD-Geocode-Key": "geo-key"}
    v1 = {"HD-Api-Key": key, "HD-Geocode-Key": "geo-key"}
    calls: list[tuple[str, dict[str, Any], dict[str, str], Any]] = [
        ("/v2/charts", PLACE, v2, chart.to_v2()),
        ("/v2/charts/simple", PLACE, v2, chart.to_v2_simple()),
        ("/v2/charts/coordinates", COORDS, {"Authorization": f"Bearer {key}"}, chart.to_v2()),
        ("/v1/bodygraphs", V1, v1, chart.to_v1()),
        ("/v1/bodygraphs/simple", V1, v1, chart.to_v1_simple()),
    ]
    for path, body, headers, data in calls:
        response = live.http.post(path, json=body, headers=headers)
        assert response.status_code == 200, (path, response.text)
        payload = response.json()
        assert (payload["data"] if path.startswith("/v2") else payload) == data
        assert POLICY_RE.match(response.headers["ratelimit-policy"])
        assert STATE_RE.match(response.headers["ratelimit"])
        assert "retry-after" not in response.headers
    account = live.book.account(issued.account.id)
    assert account.balance == account.plan.credits_per_month(account.billing) - len(calls)


LIVE_CASES = CASES


@pytest.mark.parametrize("case", LIVE_CASES, ids=lambda c: f"{c.code.value}-{c.path}")
def test_error_codes_over_http(live: Deployment, case: Case) -> None:
    issued = live.book.create_account(case.plan)
    if case.setup is not None:
        case.setup(live.book, issued.account.id)
    kwargs: dict[str, Any] = {"headers": case.request_headers(issued.api_key)}
    if case.raw is not None:
        kwargs["content"] = case.raw
    elif case.body is not None and case.method == "POST":
        kwargs["json"] = case.body
    response = live.http.request(case.method, case.path, **kwargs)
    check_error(response, case.status, case.code, case.legacy)


def test_rate_limit_over_http(live: Deployment) -> None:
    key = live.key()
    headers = {"Authorization": f"Bearer {key}"}
    statuses = [
        live.http.post("/v2/charts/coordinates", json={**COORDS, "lat": 99}, headers=headers)
        .status_code
        for _ in range(100)
    ]
    assert statuses == [400] * 100
    refused = live.http.post("/v2/charts/coordinates", json=COORDS, headers=headers)
    assert refused.status_code == 429
    assert refused.json()["errorCode"] == "RATE_LIMIT_EXCEEDED"
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert refused.headers["ratelimit"].startswith('"100-in-1min"; r=0;')


def test_docs_and_openapi_over_http(live: Deployment) -> None:
    document = live.http.get("/openapi.json")
    assert document.status_code == 200
    assert document.json()["openapi"] == "3.1.0"
    page = live.http.get("/docs")
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    assert "/v2/charts/coordinates" in page.text


def test_nothing_of_the_birth_is_logged(live: Deployment) -> None:
    key = live.key()
    live.http.post("/v2/charts", json={**PLACE, "location": "Nowhere Berlin"},
                   headers={"Authorization": f"Bearer {key}", "HD-Geocode-Key": "g"})
    live.http.post("/v2/charts/coordinates", json=COORDS,
                   headers={"Authorization": f"Bearer {key}"})
    log = live.server.log_text()
    assert "POST /v2/charts/coordinates" in log  # the access log is there...
    for secret in (*SECRETS, key):
        assert secret not in log  # ...without birth data, places, coordinates or keys


def test_ephemeris_error_over_http(tmp_path: Path, google_url: str) -> None:
    broken = tmp_path / "broken.bsp"
    broken.write_bytes(b"not a kernel" * 1000)
    with _deploy(f"sqlite:///{tmp_path / 'eph.sqlite3'}", tmp_path, google_url,
                 extra_env={"BODYGRAPH_EPHEMERIS": str(broken), "BODYGRAPH_ACCESS_LOG": "0",
                            **NO_WARM_UP}) as deployment:
        key = deployment.key()
        response = deployment.http.post("/v2/charts/coordinates", json=COORDS,
                                        headers={"Authorization": f"Bearer {key}"})
        check_error(response, 500, ErrorCode.EPHEMERIS_ERROR, legacy=False)
        log = deployment.server.log_text()
        assert response.headers["x-request-id"] in log  # errors are logged ...
        assert "POST /v2/charts/coordinates" not in log  # ... with the access log off
        for secret in SECRETS:
            assert secret not in log


def test_two_workers_share_the_books(tmp_path: Path, google_url: str) -> None:
    with _deploy(f"sqlite:///{tmp_path / 'two.sqlite3'}", tmp_path, google_url,
                 workers=2, extra_env={"BODYGRAPH_ACCESS_LOG": "0", **NO_WARM_UP}) as deployment:
        issued = deployment.book.create_account("developer")
        headers = {"Authorization": f"Bearer {issued.api_key}"}
        url = deployment.server.base_url
        with httpx.Client(base_url=url, timeout=30, verify=tls_context()) as first, \
                httpx.Client(base_url=url, timeout=30, verify=tls_context()) as second:
            statuses = []
            for index in range(101):
                client = first if index % 2 else second
                statuses.append(
                    client.post("/v2/charts/coordinates", json=COORDS, headers=headers)
                    .status_code
                )
        assert statuses == [200] * 100 + [429]
        assert "POST /v2/charts/coordinates" not in deployment.server.log_text()
        account = deployment.book.account(issued.account.id)
        assert account.balance == account.plan.monthly_credits - 100


PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"


@pytest.mark.postgres
def test_postgres_backend_over_http(tmp_path: Path, google_url: str) -> None:
    import psycopg

    schema = "bgsrv_" + secrets.token_hex(5)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    url = f"{PG_ADMIN_URL}?options={quote(f'-csearch_path={schema}')}"
    try:
        with _deploy(url, tmp_path, google_url, extra_env=NO_WARM_UP) as deployment:
            issued = deployment.book.create_account("hobbyist")
            headers = {"Authorization": f"Bearer {issued.api_key}", "HD-Geocode-Key": "g"}
            ok = deployment.http.post("/v2/charts/simple", json=PLACE, headers=headers)
            assert ok.status_code == 200
            assert ok.json()["data"] == expected().to_v2_simple()
            denied = deployment.http.post("/v2/charts", json=PLACE, headers=headers)
            assert denied.json()["errorCode"] == "ACCESS_DENIED"
            legacy = deployment.http.post(
                "/v1/bodygraphs/simple", json=V1,
                headers={"HD-Api-Key": issued.api_key, "HD-Geocode-Key": "g"},
            )
            assert legacy.json() == expected().to_v1_simple()
            assert STATE_RE.match(legacy.headers["ratelimit"]).group(1) == "97"  # type: ignore[union-attr]
            account = deployment.book.account(issued.account.id)
            assert account.balance == account.plan.monthly_credits - 2
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
