"""``/v2/jobs`` end to end under a real uvicorn (subprocess, SQLite, small chunks): an
upload (NDJSON gzip, CSV) is accepted with 202 and Location, computed by the service's job
processes, its rows downloaded in input order as NDJSON, CSV and Parquet, equal to
``bodygraph batch`` on the same births (bad rows with its error codes; with ``?lang=``
their messages as ``batch --lang`` writes them); one charge per
successful row; another account sees nothing; credits all or nothing; the
Idempotency-Key; cancel; the refusals of bad uploads."""

from __future__ import annotations

import csv
import gzip
import io
import json
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.store import open_store
from bodygraph_server.store.jobs import SqlJobs

from .support import LiveServer, batch_rows

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

CHUNK_ROWS = 40
BIRTHS = [{"birthdate": f"19{50 + i % 50:02d}-{1 + i % 12:02d}-{1 + i % 28:02d}",
           "birthtime": f"{i % 24:02d}:{(7 * i) % 60:02d}",
           "lat": round(-50 + (i * 7.3) % 100, 3), "lng": round(-170 + (i * 13.7) % 340, 3)}
          for i in range(100)]
BIRTHS[17] = {"birthdate": "2001-02-29", "birthtime": "10:00", "lat": 0, "lng": 0}
BIRTHS[63] = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 95.0, "lng": 0}


class Service:
    """The module's server, its bookkeeping and an HTTP client."""

    def __init__(self, server: LiveServer, book: Bookkeeper) -> None:
        self.server = server
        self.book = book
        self.http = httpx.Client(base_url=server.base_url, timeout=60)

    def key(self) -> tuple[str, int]:
        issued = self.book.create_account("developer")
        return issued.api_key, issued.account.id


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    folder = tmp_path_factory.mktemp("jobs")
    db_url = f"sqlite:///{folder / 'jobs.sqlite3'}"
    book = Bookkeeper(open_store(db_url))
    env = {"BODYGRAPH_DATABASE_URL": db_url, "BODYGRAPH_GEOCODER": "offline",
           "BODYGRAPH_WARM_UP": "0", "BODYGRAPH_JOB_CHUNK_ROWS": str(CHUNK_ROWS),
           "BODYGRAPH_MAX_JOB_BYTES": "200000", "BODYGRAPH_RENDER_KEYS": ""}
    server = LiveServer(env, log=folder / "server.log")
    running = Service(server, book)
    try:
        server.wait_ready()
        yield running
    finally:
        running.http.close()
        server.stop()
        book.close()


def _auth(key: str, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", **extra}


def _ndjson(births: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(birth) + "\n" for birth in births).encode()


def _submit(service: Service, key: str, body: bytes, content_type: str,
            params: str = "", **headers: str) -> httpx.Response:
    return service.http.post(f"/v2/jobs{params}", content=body,
                             headers=_auth(key, **{"Content-Type": content_type}, **headers))


def _wait(service: Service, key: str, job_id: str, timeout: float = 120) -> dict[str, Any]:
    """The job as ``GET /v2/jobs/{id}`` says once it ended (watched in the database until
    then: polls over HTTP count toward the rate limit, so they could not be frequent)."""
    jobs = SqlJobs(service.book.store, retention=timedelta(days=1), lease=timedelta(minutes=1))
    deadline = time.monotonic() + timeout
    while not (job := jobs.get(job_id)) or not job.status.final:
        assert time.monotonic() < deadline, f"job {job_id} did not end in {timeout} s"
        time.sleep(0.05)
    response = service.http.get(f"/v2/jobs/{job_id}", headers=_auth(key))
    while response.status_code == 429:  # the test's own calls met the limit: a slow machine
        time.sleep(float(response.headers["Retry-After"]))
        response = service.http.get(f"/v2/jobs/{job_id}", headers=_auth(key))
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    assert data["status"] not in ("queued", "running"), data
    return data


def test_a_job_is_computed_and_downloaded_in_every_format(service: Service,
                                                          tmp_path: Path) -> None:
    key, account_id = service.key()
    before = service.book.account(account_id).balance
    response = _submit(service, key, gzip.compress(_ndjson(BIRTHS)), "application/x-ndjson",
                       **{"Content-Encoding": "gzip"})
    assert response.status_code == 202, response.text
    data = response.json()["data"]
    assert data["status"] == "queued" and data["total"] == len(BIRTHS)
    assert response.headers["location"] == f"/v2/jobs/{data['jobId']}"
    assert service.book.account(account_id).balance == before - len(BIRTHS)
    ended = _wait(service, key, data["jobId"])
    assert ended["status"] == "succeeded"
    assert (ended["done"], ended["failed"]) == (len(BIRTHS), 2)
    assert ended["finishedAt"] and ended["expiresAt"]
    assert service.book.account(account_id).balance == before - (len(BIRTHS) - 2)
    usage = service.book.usage(account_id)[-1]
    assert (usage.calls, usage.credits, usage.pending) == (len(BIRTHS) - 2, len(BIRTHS) - 2, 0)
    assert service.book.audit(account_id).balanced

    expected = batch_rows(BIRTHS, tmp_path)
    url = f"/v2/jobs/{data['jobId']}/result"
    lines = service.http.get(url, headers=_auth(key)).text.splitlines()
    rows = [json.loads(line) for line in lines]
    assert [row["row"] for row in rows] == list(range(1, len(BIRTHS) + 1))
    for row, want in zip(rows, expected, strict=True):
        assert {k: "" if v is None else str(v) for k, v in row.items()} == want
    assert rows[17]["error_code"] == "INVALID_DATE" and rows[17]["type"] is None
    assert rows[63]["error_code"] == expected[63]["error_code"] != ""

    answer = service.http.get(url, headers=_auth(key, Accept="text/csv"))
    assert answer.headers["content-type"].startswith("text/csv")
    assert list(csv.DictReader(io.StringIO(answer.text))) == expected
    german = service.http.get(url + "?lang=de", headers=_auth(key, Accept="text/csv"))
    said = list(csv.DictReader(io.StringIO(german.text)))
    assert said == batch_rows(BIRTHS, tmp_path, "de")  # as bodygraph batch --lang de
    assert said[17]["error"] != expected[17]["error"]
    assert said[17]["error_code"] == expected[17]["error_code"]

    answer = service.http.get(url, headers=_auth(key, Accept="application/vnd.apache.parquet"))
    import pyarrow.parquet as pq

    table = pq.read_table(io.BytesIO(answer.content))
    assert table.num_rows == len(BIRTHS)
    assert table.column("type").to_pylist() == [row["type"] or None for row in expected]


def test_csv_upload_simple_kind_and_another_account(service: Service) -> None:
    key, _ = service.key()
    text = "date,time,tz,extra\n1990-07-15,14:30,Europe/Berlin,x\n2000-01-01,12:00,UTC,y\n"
    response = _submit(service, key, text.encode(), "text/csv", "?kind=simple")
    assert response.status_code == 202, response.text
    job_id = response.json()["data"]["jobId"]
    assert _wait(service, key, job_id)["status"] == "succeeded"
    rows = [json.loads(line) for line in service.http.get(
        f"/v2/jobs/{job_id}/result", headers=_auth(key)).text.splitlines()]
    assert [row["zone"] for row in rows] == ["Europe/Berlin", "UTC"]
    assert "personality_sun" not in rows[0] and rows[0]["type"]
    other, _ = service.key()
    for method, path in (("GET", f"/v2/jobs/{job_id}"), ("GET", f"/v2/jobs/{job_id}/result"),
                         ("DELETE", f"/v2/jobs/{job_id}")):
        answer = service.http.request(method, path, headers=_auth(other))
        assert answer.status_code == 404, (method, path)
        assert answer.json()["errorCode"] == "NOT_FOUND"


def test_credits_all_or_nothing_and_the_idempotency_key(service: Service) -> None:
    key, account_id = service.key()
    service.book.adjust_credits(account_id, 5)
    response = _submit(service, key, _ndjson(BIRTHS[:6]), "application/x-ndjson")
    assert response.status_code == 402 and response.json()["errorCode"] == "CREDITS_EXHAUSTED"
    assert service.book.account(account_id).balance == 5
    body = _ndjson(BIRTHS[:3])
    first = _submit(service, key, body, "application/x-ndjson", **{"Idempotency-Key": "j-1"})
    again = _submit(service, key, body, "application/x-ndjson", **{"Idempotency-Key": "j-1"})
    assert first.status_code == again.status_code == 202
    assert first.json()["data"]["jobId"] == again.json()["data"]["jobId"]
    assert service.book.account(account_id).balance == 2
    other = _submit(service, key, _ndjson(BIRTHS[:2]), "application/x-ndjson",
                    **{"Idempotency-Key": "j-1"})
    assert other.status_code == 422 and other.json()["errorCode"] == "IDEMPOTENCY_KEY_REUSED"


def test_cancel_releases_the_rows_not_done(service: Service) -> None:
    key, account_id = service.key()
    before = service.book.account(account_id).balance
    births = BIRTHS * 20  # 50 chunks
    response = _submit(service, key, _ndjson(births), "application/x-ndjson")
    assert response.status_code == 202, response.text
    job_id = response.json()["data"]["jobId"]
    cancelled = service.http.delete(f"/v2/jobs/{job_id}", headers=_auth(key))
    assert cancelled.status_code == 200, cancelled.text
    data = cancelled.json()["data"]
    assert data["status"] == "cancelled" and data["done"] < len(births)
    time.sleep(1.0)  # a chunk in flight at the cancel changes nothing
    final = _wait(service, key, job_id)
    assert final["status"] == "cancelled" and final["done"] == data["done"]
    charged = final["done"] - final["failed"]
    assert service.book.account(account_id).balance == before - charged
    assert service.book.usage(account_id)[-1].calls == charged
    result = service.http.get(f"/v2/jobs/{job_id}/result", headers=_auth(key))
    assert result.status_code == 200 and len(result.text.splitlines()) == final["done"]


def test_a_basic_key_is_denied(service: Service) -> None:
    key = service.book.create_account("hobbyist").api_key
    response = _submit(service, key, _ndjson(BIRTHS[:1]), "application/x-ndjson")
    assert response.status_code == 403 and response.json()["errorCode"] == "ACCESS_DENIED"


@pytest.mark.parametrize(("body", "content_type", "params", "status", "words"), [
    (b"", "application/x-ndjson", "", 422, "empty"),
    (b"\n\n", "text/csv", "", 422, "empty"),
    (b"<births/>", "application/xml", "", 422, "NDJSON"),
    (b"not json\n", "application/x-ndjson", "", 422, "line 1"),
    (b"[1, 2]\n", "application/x-ndjson", "", 422, "JSON object"),
    (b"name,place\nx,y\n", "text/csv", "", 422, "needs one of"),
    (b'{"birthdate": "1990-07-15"}\n', "application/x-ndjson", "?callbackUrl=nowhere", 400,
     "callbackUrl"),
    (b'{"birthdate": "1990-07-15"}\n', "application/x-ndjson",
     "?callbackUrl=http://hooks.example.com/x", 400, "callbackUrl must use https"),
    (b'{"birthdate": "1990-07-15"}\n', "application/x-ndjson",
     "?callbackUrl=https://127.0.0.1/hook", 400, "loopback address"),
    (b'{"birthdate": "1990-07-15"}\n', "application/x-ndjson",
     "?callbackUrl=https://10.1.2.3/hook", 400, "private address"),
    (b'{"birthdate": "1990-07-15"}\n', "application/x-ndjson", "?kind=full", 400, "kind"),
    (b"x" * 200_001, "text/csv", "", 413, "exceeds"),
])
def test_bad_uploads_are_refused_clearly(service: Service, body: bytes, content_type: str,
                                         params: str, status: int, words: str) -> None:
    key, account_id = service.key()
    before = service.book.account(account_id).balance
    response = _submit(service, key, body, content_type, params)
    assert response.status_code == status, response.text
    answer = response.json()
    assert answer["success"] is False and words in answer["message"]
    assert answer["errorCode"] == "INVALID_REQUEST_BODY"
    assert service.book.account(account_id).balance == before


@pytest.mark.parametrize(("body", "content_type", "params", "status", "words"), [
    (b"", "application/x-ndjson", "", 422, "Der Anfragetext ist leer"),
    (b"<births/>", "application/xml", "", 422, "muss NDJSON"),
    (b"not json\n", "application/x-ndjson", "", 422, "Zeile 1 ist kein gültiges JSON"),
    (b'{"birthdate": "1990-07-15"}\n', "application/x-ndjson",
     "?callbackUrl=http://hooks.example.com/x", 400, "callbackUrl muss https verwenden"),
    (b'{"birthdate": "1990-07-15"}\n', "application/x-ndjson",
     "?callbackUrl=https://127.0.0.1/hook", 400, "vom Typ loopback auf (127.0.0.1)"),
])
def test_a_job_refusal_speaks_the_asked_language(service: Service, body: bytes,
                                                 content_type: str, params: str, status: int,
                                                 words: str) -> None:
    key, _ = service.key()
    english = _submit(service, key, body, content_type, params)
    lang = ("&" if params else "?") + "lang=de"
    german = _submit(service, key, body, content_type, params + lang)
    assert german.status_code == english.status_code == status, german.text
    assert german.json()["errorCode"] == english.json()["errorCode"] == "INVALID_REQUEST_BODY"
    assert words in german.json()["message"] and words not in english.json()["message"]


def test_an_unknown_job_is_refused_in_the_asked_language(service: Service) -> None:
    key, _ = service.key()
    english = service.http.get("/v2/jobs/nosuchjob", headers=_auth(key))
    german = service.http.get("/v2/jobs/nosuchjob?lang=de", headers=_auth(key))
    assert german.status_code == english.status_code == 404, german.text
    assert german.json()["errorCode"] == english.json()["errorCode"] == "NOT_FOUND"
    assert german.json()["message"] == ("Kein Auftrag nosuchjob unter den Aufträgen "
                                        "dieses Kontos"), german.text
