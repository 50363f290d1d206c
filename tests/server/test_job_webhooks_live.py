"""A job's webhook end to end under a real uvicorn (SQLite, private callbacks allowed): a
job with a loopback ``callbackUrl`` ends, and a real HTTP receiver gets one event whose
Standard Webhooks signature holds with the account's secret from
``GET /v2/account/webhook-secret``; ``lang`` on the jobs' operations."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from bodygraph_client import WebhookVerificationError as ClientVerificationError
from bodygraph_client import verify_webhook
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.store import open_store

from .support import LiveServer

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

BIRTHS = [{"birthdate": f"19{60 + i:02d}-0{1 + i % 9}-1{i % 10}", "birthtime": f"1{i % 10}:30",
           "lat": 10.0 + i, "lng": 20.0 - i} for i in range(6)]
BIRTHS[4] = {"birthdate": "2001-02-29", "birthtime": "10:00", "lat": 0, "lng": 0}  # bad row


@dataclass
class Receiver:
    """A real HTTP server on 127.0.0.1 keeping every POST's headers and raw body."""

    seen: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/bodygraph?source=test"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            state.seen.append(({k.lower(): v for k, v in self.headers.items()}, body))
            state.arrived.set()
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Bookkeeper]]:
    folder = tmp_path_factory.mktemp("job-webhooks")
    db_url = f"sqlite:///{folder / 'jobs.sqlite3'}"
    book = Bookkeeper(open_store(db_url))
    env = {"BODYGRAPH_DATABASE_URL": db_url, "BODYGRAPH_GEOCODER": "offline",
           "BODYGRAPH_WARM_UP": "0", "BODYGRAPH_JOB_CHUNK_ROWS": "4",
           "BODYGRAPH_ALLOW_PRIVATE_CALLBACKS": "1", "BODYGRAPH_RENDER_KEYS": ""}
    server = LiveServer(env, log=folder / "server.log")
    try:
        server.wait_ready()
        yield server, book
    finally:
        server.stop()
        book.close()


def _ndjson(births: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(birth) + "\n" for birth in births).encode()


def test_a_jobs_end_is_posted_signed_with_the_accounts_secret(
        service: tuple[LiveServer, Bookkeeper], receiver: Receiver, tmp_path: Path) -> None:
    server, book = service
    key = book.create_account("developer").api_key
    auth = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.base_url, timeout=60, headers=auth) as http:
        secret = http.get("/v2/account/webhook-secret").json()["data"]["secret"]
        submitted = http.post("/v2/jobs", params={"callbackUrl": receiver.url},
                              content=_ndjson(BIRTHS),
                              headers={"Content-Type": "application/x-ndjson"})
        assert submitted.status_code == 202, submitted.text
        job_id = submitted.json()["data"]["jobId"]
        assert receiver.arrived.wait(120), (tmp_path, "no webhook arrived")
        time.sleep(0.5)  # a second delivery, were there one, would arrive by now
        status = http.get(f"/v2/jobs/{job_id}").json()["data"]
        result_url = f"{server.base_url}/v2/jobs/{job_id}/result"
        downloaded = http.get(result_url)
    assert len(receiver.seen) == 1
    headers, body = receiver.seen[0]
    assert headers["content-type"] == "application/json"
    assert headers["webhook-id"].startswith("msg_")
    event = Webhook(secret).verify(body, headers)  # the reference implementation
    assert verify_webhook(body, headers, secret) == event  # and the client's helper
    other = "whsec_" + "A" * 32
    with pytest.raises(WebhookVerificationError):
        Webhook(other).verify(body, headers)
    with pytest.raises(ClientVerificationError):
        verify_webhook(body, headers, other)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(body.replace(b'"failed":1', b'"failed":0'), headers)
    assert event["type"] == "job.succeeded"
    assert event["data"] == {
        "jobId": job_id, "status": "succeeded", "total": len(BIRTHS), "done": len(BIRTHS),
        "failed": 1, "finishedAt": status["finishedAt"], "resultUrl": result_url}
    assert status["status"] == "succeeded" and status["failed"] == 1
    assert downloaded.status_code == 200
    assert len(downloaded.text.splitlines()) == len(BIRTHS)


def test_the_jobs_take_lang_without_labelling_202_or_rows(
        service: tuple[LiveServer, Bookkeeper]) -> None:
    server, book = service
    key = book.create_account("developer").api_key
    upload = {"Content-Type": "application/x-ndjson", "Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.base_url, timeout=60, headers=upload) as http:
        unknown = http.post("/v2/jobs?lang=xx", content=_ndjson(BIRTHS[:1]))
        assert unknown.status_code == 400
        assert unknown.json()["errorCode"] == "INVALID_LANGUAGE"
        refused = http.post("/v2/jobs?lang=de&kind=full", content=_ndjson(BIRTHS[:1]))
        assert refused.status_code == 400 and "content-language" in refused.headers
        accepted = http.post("/v2/jobs?lang=de", content=_ndjson(BIRTHS[:1]))
        assert accepted.status_code == 202
        assert "labels" not in accepted.json() and "content-language" not in accepted.headers
        job_id = accepted.json()["data"]["jobId"]
        status = http.get(f"/v2/jobs/{job_id}?lang=fr")
        assert status.json()["labels"] == {} and status.headers["content-language"] == "fr"
        deadline = time.monotonic() + 120
        while http.get(f"/v2/jobs/{job_id}").json()["data"]["status"] in ("queued", "running"):
            assert time.monotonic() < deadline, "the job did not end"
            time.sleep(0.3)
        rows = http.get(f"/v2/jobs/{job_id}/result?lang=de")
        plain = http.get(f"/v2/jobs/{job_id}/result")
        assert rows.status_code == 200 and "content-language" not in rows.headers
        assert rows.content == plain.content
