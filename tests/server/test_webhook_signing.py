"""The webhook event and its signature: the Standard Webhooks scheme computed here with
hmac and hashlib agrees with what the service sends."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from bodygraph_server.webhooks import JobEvent, WebhookSecretError, signed_headers

KEY = bytes(range(32))
SECRET = "whsec_" + base64.b64encode(KEY).decode()


def event(status: str = "cancelled") -> JobEvent:
    return JobEvent(job_id="j-1", status=status, total=10, done=4, failed=1,  # type: ignore[arg-type]
                    finished_at=datetime(2026, 11, 29, 6, 1, 2, 999999,
                                         tzinfo=timezone(timedelta(hours=2))),
                    result_url="https://api.example.com/v2/jobs/j-1/result")


def test_the_signature_is_the_specifications_hmac() -> None:
    body = event().body()
    at = datetime(2026, 11, 29, 4, 0, 0, 700000, tzinfo=timezone(timedelta(hours=-5)))
    headers = signed_headers(SECRET, "msg_abc", body, at)
    seconds = int(at.timestamp())
    assert headers["webhook-id"] == "msg_abc"
    assert headers["webhook-timestamp"] == str(seconds) == "1795942800"  # 2026-11-29T09:00:00Z
    mac = hmac.new(KEY, f"msg_abc.{seconds}.{body}".encode(), hashlib.sha256).digest()
    assert headers["webhook-signature"] == "v1," + base64.b64encode(mac).decode()


def test_the_event_body() -> None:
    body = event().body()
    assert " " not in body and body.isascii()
    assert json.loads(body) == {
        "type": "job.cancelled", "timestamp": "2026-11-29T04:01:02.999Z",
        "data": {"jobId": "j-1", "status": "cancelled", "total": 10, "done": 4, "failed": 1,
                 "finishedAt": "2026-11-29T04:01:02.999Z",
                 "resultUrl": "https://api.example.com/v2/jobs/j-1/result"}}
    assert [event(s).type for s in ("succeeded", "failed")] == ["job.succeeded", "job.failed"]
    with pytest.raises(ValueError, match="status is one of"):
        event("running")


@pytest.mark.parametrize(("secret", "words"), [("", "empty"), ("whsec_", "empty"),
                                               ("whsec_a", "base64")])
def test_an_unusable_secret(secret: str, words: str) -> None:
    with pytest.raises(WebhookSecretError, match=words):
        signed_headers(secret, "msg_1", "{}", datetime.now(UTC))
