"""An outage of the Redis rate-limit store is an outage like the database's: chart
requests are answered 503 SERVICE_UNAVAILABLE with Retry-After and ``/health`` says so."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from bodygraph_server.app import create_app
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.settings import Settings

CLOSED_PORT_URL = "redis://127.0.0.1:1/0"
COORDS = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}


def test_rate_limit_store_down_is_503_and_health_says_so(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'outage.sqlite3'}"
    with Bookkeeper.open(url) as book:
        key = book.create_account("developer").api_key
    settings = Settings(database_url=url, rate_limit_url=CLOSED_PORT_URL, warm_up=False,
                        allowed_hosts="testserver")
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        answer = client.post("/v2/charts/coordinates", json=COORDS,
                             headers={"Authorization": f"Bearer {key}"})
        assert answer.status_code == 503, answer.text
        assert answer.json()["errorCode"] == "SERVICE_UNAVAILABLE"
        assert int(answer.headers["retry-after"]) > 0
        health = client.get("/health")
        assert health.status_code == 503
        assert health.json() == {"status": "unavailable", "database": "up", "rateLimit": "down"}
        assert int(health.headers["retry-after"]) > 0
        assert client.get("/health/live").status_code == 200


def test_rate_limit_store_up_is_reported_by_health(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'up.sqlite3'}",
                        rate_limit_url="redis://127.0.0.1:6379/0", warm_up=False,
                        allowed_hosts="testserver")
    with TestClient(create_app(settings)) as client:
        health = client.get("/health")
        assert health.status_code == 200
        assert health.json() == {"status": "ok", "database": "up", "rateLimit": "up"}
