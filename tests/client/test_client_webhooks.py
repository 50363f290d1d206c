"""``bodygraph_client.verify_webhook`` accepts what the service's webhook signing
(``bodygraph_server.webhooks.signing``) makes, and nothing else."""

from __future__ import annotations

import base64
import json
import secrets
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from bodygraph_client import BodygraphClientError, WebhookVerificationError, verify_webhook
from bodygraph_server.webhooks import JobEvent, new_message_id, signed_headers


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


SECRET = new_secret()
EVENT = JobEvent(job_id="job_9", status="succeeded", total=3, done=3, failed=0,
                 finished_at=datetime(2026, 11, 29, 5, 0, tzinfo=UTC),
                 result_url="https://api.example.com/v2/jobs/job_9/result")


def signed(at: datetime | None = None, secret: str = SECRET) -> tuple[bytes, dict[str, str]]:
    body = EVENT.body()
    headers = signed_headers(secret, new_message_id(), body, at or datetime.now(UTC))
    return body.encode(), headers


def test_a_signed_event_is_verified_and_parsed() -> None:
    body, headers = signed()
    assert verify_webhook(body, headers, SECRET) == EVENT.payload()
    assert verify_webhook(body.decode(), headers, SECRET) == EVENT.payload()
    upper = {name.upper(): value for name, value in headers.items()}
    assert verify_webhook(body, httpx.Headers(upper), SECRET)["data"]["jobId"] == "job_9"


def test_during_a_rotation_either_secret_verifies() -> None:
    body, headers = signed()
    assert verify_webhook(body, headers, [new_secret(), SECRET]) == EVENT.payload()
    with pytest.raises(ValueError, match="at least one"):
        verify_webhook(body, headers, [])


def tampered_cases() -> list[tuple[str, bytes, dict[str, str], str]]:
    body, headers = signed()
    other = json.dumps({**json.loads(body), "type": "job.failed"}).encode()
    old_body, old = signed(datetime.now(UTC) - timedelta(minutes=6))
    return [
        ("another body", other, headers, "No matching signature"),
        ("another secret", body, signed(secret=new_secret())[1], "No matching signature"),
        ("another id", body, {**headers, "webhook-id": "msg_x"}, "No matching signature"),
        ("a moved timestamp", body,
         {**headers, "webhook-timestamp": str(int(headers["webhook-timestamp"]) - 1)},
         "No matching signature"),
        ("too old", old_body, old, "too old"),
        ("no signature", body, {k: v for k, v in headers.items() if k != "webhook-signature"},
         "Missing required headers"),
        ("a malformed signature", body, {**headers, "webhook-signature": "v1"}, "malformed"),
        ("a bad timestamp", body, {**headers, "webhook-timestamp": "soon"}, "Invalid"),
    ]


# The cases are signed when the test runs, not when it is collected: a whole suite's
# test may run more than the 5 minutes of tolerance after its collection.
@pytest.mark.parametrize("name", [case[0] for case in tampered_cases()])
def test_anything_else_is_refused(name: str) -> None:
    body, headers, words = {case[0]: case[1:] for case in tampered_cases()}[name]
    with pytest.raises(WebhookVerificationError, match=words) as caught:
        verify_webhook(body, headers, SECRET)
    assert isinstance(caught.value, BodygraphClientError)
    assert str(caught.value).startswith("webhook not verified: ")


@pytest.mark.parametrize("secret", ["whsec_", "", "whsec_not*base64!"])
def test_an_unusable_secret_is_a_value_error(secret: str) -> None:
    body, headers = signed()
    with pytest.raises(ValueError, match="whsec_ followed by base64"):
        verify_webhook(body, headers, secret)
