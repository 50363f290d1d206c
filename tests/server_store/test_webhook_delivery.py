"""The jobs' webhooks delivered to a real HTTP receiver on 127.0.0.1, on SQLite and
PostgreSQL: the receiver verifies every signature with the standardwebhooks package;
failed attempts are retried on the schedule and each is logged; a delivery pending
when the service stops is sent by the next one."""

from __future__ import annotations

import base64
import json
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.store.webhook_deliveries import SqlWebhookOutbox
from bodygraph_server.webhooks import RETRY_DELAYS, JobEvent, WebhookSender

pytestmark = pytest.mark.anyio

SECRET = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


@dataclass
class Received:
    """A request the receiver got: its headers, body and whether the signature held."""

    headers: dict[str, str]
    body: bytes
    verified: bool


@dataclass
class Receiver:
    """A real HTTP server on 127.0.0.1 answering ``answers`` in turn (then 200)."""

    answers: list[int] = field(default_factory=list)
    seen: list[Received] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks/bodygraph?x=1"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            headers = {k.lower(): v for k, v in self.headers.items()}
            try:
                Webhook(SECRET).verify(body, headers)
                verified = True
            except WebhookVerificationError:
                verified = False
            state.seen.append(Received(headers, body, verified))
            status = state.answers.pop(0) if state.answers else 200
            self.send_response(status)
            if status in (301, 302, 307):
                self.send_header("location", "http://127.0.0.1:9/elsewhere")
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.server = server
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def closed_port_url() -> str:
    """An http URL on 127.0.0.1 where nothing listens (connection refused)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/hook"


def event(job_id: str, status: str = "succeeded") -> JobEvent:
    return JobEvent(job_id=job_id, status=status, total=1000, done=997, failed=3,  # type: ignore[arg-type]
                    finished_at=datetime(2026, 11, 29, 4, 30, 5, 123456, tzinfo=UTC),
                    result_url=f"https://api.example.com/v2/jobs/{job_id}/result")


def sender(book: Bookkeeper, clock: ManualClock, *,
           delays: tuple[float, ...] = RETRY_DELAYS, timeout: float = 10.0,
           allow_private: bool = True) -> WebhookSender:
    return WebhookSender(SqlWebhookOutbox(book.store), lambda account_id: SECRET,
                         clock=clock, allow_private=allow_private, delays=delays,
                         timeout=timeout)


@pytest.fixture
def now() -> ManualClock:
    """A clock at the real time (the receiver refuses signatures 5 minutes off)."""
    return ManualClock(datetime.now(UTC))


async def test_a_signed_event_reaches_the_receiver(
        book: Bookkeeper, receiver: Receiver, now: ManualClock) -> None:
    account = book.create_account("developer").account.id
    webhooks = sender(book, now)
    try:
        assert await webhooks.enqueue(account_id=account, job_id="job_1", url=receiver.url,
                                      event=event("job_1"))
        assert await webhooks.deliver_due() == 1
        assert await webhooks.deliver_due() == 0
    finally:
        await webhooks.aclose()
    [got] = receiver.seen
    assert got.verified
    assert json.loads(got.body) == {
        "type": "job.succeeded", "timestamp": "2026-11-29T04:30:05.123Z",
        "data": {"jobId": "job_1", "status": "succeeded", "total": 1000, "done": 997,
                 "failed": 3, "finishedAt": "2026-11-29T04:30:05.123Z",
                 "resultUrl": "https://api.example.com/v2/jobs/job_1/result"}}
    assert got.headers["content-type"] == "application/json"
    assert got.headers["webhook-id"].startswith("msg_")
    assert got.headers["webhook-timestamp"] == str(int(now.now().timestamp()))
    assert got.headers["webhook-signature"].startswith("v1,")
    with pytest.raises(WebhookVerificationError):  # another account's secret does not fit
        other = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
        Webhook(other).verify(got.body, got.headers)
    outbox = webhooks.outbox
    delivery = outbox.find("job_1")
    assert delivery is not None and delivery.state == "delivered" and delivery.attempts == 1
    [attempt] = outbox.attempts(delivery.id)
    assert (attempt.attempt, attempt.status_code, attempt.error) == (1, 200, "")
    assert attempt.started == now.now() and attempt.duration > timedelta(0)


async def test_a_receiver_failing_twice_gets_it_the_third_time(
        book: Bookkeeper, receiver: Receiver, now: ManualClock) -> None:
    now.advance(-200)  # the three attempts, 305 s apart, all within the receiver's 5 minutes
    account = book.create_account("developer").account.id
    receiver.answers = [500, 503]
    webhooks = sender(book, now)
    try:
        await webhooks.enqueue(account_id=account, job_id="job_2", url=receiver.url,
                               event=event("job_2", "failed"))
        start = now.now()
        assert await webhooks.deliver_due() == 1
        now.advance(4.9)
        assert await webhooks.deliver_due() == 0  # the first retry comes 5 s later
        now.advance(0.1)
        assert await webhooks.deliver_due() == 1
        now.advance(299)
        assert await webhooks.deliver_due() == 0  # the second 300 s after the first retry
        now.advance(1)
        assert await webhooks.deliver_due() == 1
        now.advance(10**6)
        assert await webhooks.deliver_due() == 0
    finally:
        await webhooks.aclose()
    assert [r.verified for r in receiver.seen] == [True, True, True]
    assert len({r.headers["webhook-id"] for r in receiver.seen}) == 1  # one event
    assert len({r.headers["webhook-timestamp"] for r in receiver.seen}) == 3  # re-signed
    assert {r.body for r in receiver.seen} == {receiver.seen[0].body}
    delivery = webhooks.outbox.find("job_2")
    assert delivery is not None and (delivery.state, delivery.attempts) == ("delivered", 3)
    attempts = webhooks.outbox.attempts(delivery.id)
    assert [(a.attempt, a.status_code, a.error) for a in attempts] == [
        (1, 500, "answered HTTP 500"), (2, 503, "answered HTTP 503"), (3, 200, "")]
    assert [a.started - start for a in attempts] == [
        timedelta(0), timedelta(seconds=5), timedelta(seconds=305)]


async def test_the_schedule_is_bounded(book: Bookkeeper, clock: ManualClock) -> None:
    account = book.create_account("developer").account.id
    webhooks = sender(book, clock)
    url = closed_port_url()
    try:
        await webhooks.enqueue(account_id=account, job_id="job_3", url=url,
                               event=event("job_3", "cancelled"))
        start = clock.now()
        for delay in (0, *RETRY_DELAYS):
            clock.advance(delay)
            assert await webhooks.deliver_due() == 1
        clock.advance(days=30)
        assert await webhooks.deliver_due() == 0
    finally:
        await webhooks.aclose()
    delivery = webhooks.outbox.find("job_3")
    assert delivery is not None and (delivery.state, delivery.attempts) == ("failed", 8)
    attempts = webhooks.outbox.attempts(delivery.id)
    assert [a.status_code for a in attempts] == [None] * 8
    assert all(a.error.startswith("ConnectError") for a in attempts), attempts[0].error
    offsets = [(a.started - start).total_seconds() for a in attempts]
    assert offsets == [0, 5, 305, 2105, 9305, 27305, 63305, 99305]
    assert delivery.finished is not None and delivery.finished >= attempts[-1].started
    assert webhooks.outbox.next_due() is None


async def test_redirects_are_not_followed(
        book: Bookkeeper, receiver: Receiver, now: ManualClock) -> None:
    account = book.create_account("developer").account.id
    receiver.answers = [302]
    webhooks = sender(book, now, delays=(0,))
    try:
        await webhooks.enqueue(account_id=account, job_id="job_4", url=receiver.url,
                               event=event("job_4"))
        assert await webhooks.deliver_due() == 1
        assert await webhooks.deliver_due() == 1
    finally:
        await webhooks.aclose()
    assert len(receiver.seen) == 2
    delivery = webhooks.outbox.find("job_4")
    assert delivery is not None
    assert [(a.status_code, a.error) for a in webhooks.outbox.attempts(delivery.id)] == [
        (302, "answered HTTP 302"), (200, "")]


async def test_without_the_allow_setting_a_loopback_url_is_not_called(
        book: Bookkeeper, receiver: Receiver, now: ManualClock) -> None:
    account = book.create_account("developer").account.id
    webhooks = sender(book, now, delays=(), allow_private=False)
    https = receiver.url.replace("http:", "https:")
    try:
        await webhooks.enqueue(account_id=account, job_id="job_5", url=https,
                               event=event("job_5"))
        assert await webhooks.deliver_due() == 1
    finally:
        await webhooks.aclose()
    assert receiver.seen == []
    delivery = webhooks.outbox.find("job_5")
    assert delivery is not None and delivery.state == "failed"
    [attempt] = webhooks.outbox.attempts(delivery.id)
    assert attempt.error == ("refused: callbackUrl host '127.0.0.1' resolves to a loopback "
                             "address (127.0.0.1); callbacks go to public addresses only")


async def test_a_silent_receiver_is_an_attempt_that_timed_out(
        book: Bookkeeper, now: ManualClock) -> None:
    import socket

    account = book.create_account("developer").account.id
    with socket.socket() as listening:  # accepts connections, never answers
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        url = f"http://127.0.0.1:{listening.getsockname()[1]}/hook"
        webhooks = sender(book, now, delays=(), timeout=0.3)
        try:
            await webhooks.enqueue(account_id=account, job_id="job_6", url=url,
                                   event=event("job_6"))
            assert await webhooks.deliver_due() == 1
        finally:
            await webhooks.aclose()
    delivery = webhooks.outbox.find("job_6")
    assert delivery is not None and delivery.state == "failed"
    [attempt] = webhooks.outbox.attempts(delivery.id)
    assert attempt.status_code is None
    assert attempt.error in ("no answer within 0.3 s", "ReadTimeout")


async def test_a_pending_delivery_survives_a_restart(
        db_url: str, book: Bookkeeper, receiver: Receiver, now: ManualClock) -> None:
    account = book.create_account("developer").account.id
    down = closed_port_url()
    first = sender(book, now)
    try:
        await first.enqueue(account_id=account, job_id="job_7", url=down, event=event("job_7"))
        assert await first.deliver_due() == 1  # refused: the receiver is not up yet
    finally:
        await first.aclose()
    book.close()  # the service stops
    # Point the stored delivery at the receiver now listening (the same port cannot be
    # reused reliably): what matters is that the new process finds the pending row.
    with Bookkeeper.open(db_url) as again:
        with again.store.write_transaction() as tx:
            tx.execute("UPDATE webhook_deliveries SET url = ? WHERE job_id = ?",
                       (receiver.url, "job_7"))
        now.advance(5)
        second = sender(again, now)
        try:
            assert await second.deliver_due() == 1
        finally:
            await second.aclose()
        delivery = second.outbox.find("job_7")
        assert delivery is not None and (delivery.state, delivery.attempts) == ("delivered", 2)
        assert [a.status_code for a in second.outbox.attempts(delivery.id)] == [None, 200]
    [got] = receiver.seen
    assert got.verified and json.loads(got.body)["data"]["jobId"] == "job_7"


async def test_one_event_per_job_and_one_sender_per_attempt(
        book: Bookkeeper, clock: ManualClock) -> None:
    account = book.create_account("developer").account.id
    outbox = SqlWebhookOutbox(book.store)
    made = {"message_id": "msg_a", "account_id": account, "job_id": "job_8",
            "url": "https://hooks.example.com/x", "body": "{}", "now": clock.now()}
    assert outbox.enqueue(**made) is True
    assert outbox.enqueue(**{**made, "message_id": "msg_b"}) is False
    lease = timedelta(seconds=60)
    [claimed] = outbox.claim_due(clock.now(), lease, 10)
    assert (claimed.message_id, claimed.attempts) == ("msg_a", 1)
    assert outbox.claim_due(clock.now(), lease, 10) == []  # hidden while claimed
    clock.advance(61)  # the first sender died mid-attempt: another claims it
    [again] = outbox.claim_due(clock.now(), lease, 10)
    assert again.attempts == 2
    assert outbox.record(again, started=clock.now(), duration=timedelta(seconds=1),
                         status_code=204, error="", retry_at=None)
    # The first sender's late result is logged, and changes nothing else.
    assert not outbox.record(claimed, started=clock.now(), duration=timedelta(seconds=1),
                             status_code=500, error="answered HTTP 500",
                             retry_at=clock.now())
    found = outbox.find("job_8")
    assert found is not None and found.state == "delivered"
    assert [(a.attempt, a.status_code) for a in outbox.attempts(found.id)] == [
        (1, 500), (2, 204)]
    clock.advance(days=1)
    assert outbox.prune(clock.now()) == 1
    assert outbox.find("job_8") is None and outbox.attempts(found.id) == []


async def test_the_running_sender_delivers_when_woken_and_retries_when_due(
        book: Bookkeeper, receiver: Receiver) -> None:
    import anyio

    from bodygraph_server.policy.clock import SystemClock

    account = book.create_account("developer").account.id
    receiver.answers = [500]
    webhooks = WebhookSender(SqlWebhookOutbox(book.store), lambda account_id: SECRET,
                             clock=SystemClock(), allow_private=True, delays=(0.2,))
    try:
        async with anyio.create_task_group() as group:
            # A long poll: only the wake-up and the retry's due time make it look.
            group.start_soon(webhooks.run, 600.0)
            await webhooks.enqueue(account_id=account, job_id="job_10", url=receiver.url,
                                   event=event("job_10"))
            with anyio.fail_after(30):
                while len(receiver.seen) < 2:
                    await anyio.sleep(0.02)
                while (found := webhooks.outbox.find("job_10")) and found.state == "pending":
                    await anyio.sleep(0.02)
            group.cancel_scope.cancel()
    finally:
        await webhooks.aclose()
    assert [r.verified for r in receiver.seen] == [True, True]
    assert found is not None and (found.state, found.attempts) == ("delivered", 2)


async def test_a_name_resolving_elsewhere_at_connect_time_is_not_called(
        book: Bookkeeper, now: ManualClock) -> None:
    lookups = iter([["93.184.215.14"], ["127.0.0.1"]])  # checked public, then rebound

    async def rebinding(host: str, port: int) -> list[str]:
        return next(lookups)

    account = book.create_account("developer").account.id
    webhooks = WebhookSender(SqlWebhookOutbox(book.store), lambda account_id: SECRET,
                             clock=now, allow_private=False, delays=(), resolve=rebinding)
    try:
        await webhooks.enqueue(account_id=account, job_id="job_11",
                               url="https://hooks.example.com:8443/x", event=event("job_11"))
        assert await webhooks.deliver_due() == 1
    finally:
        await webhooks.aclose()
    delivery = webhooks.outbox.find("job_11")
    assert delivery is not None
    [attempt] = webhooks.outbox.attempts(delivery.id)
    assert attempt.error == ("refused: callbackUrl host 'hooks.example.com' resolves to a "
                             "loopback address (127.0.0.1); callbacks go to public addresses "
                             "only")


async def test_the_guarded_transport_connects_to_the_address_it_checked(
        receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    from bodygraph_server.webhooks import policy
    from bodygraph_server.webhooks.transport import public_only_transport

    asked: list[tuple[str, int]] = []

    async def to_receiver(host: str, port: int) -> list[str]:
        asked.append((host, port))
        return ["127.0.0.1"]

    # The receiver is on loopback: let the check pass it, as it passes a public address.
    monkeypatch.setattr(policy, "refused_address", lambda address: None)
    port = int(receiver.url.split(":")[2].split("/")[0])
    async with httpx.AsyncClient(transport=public_only_transport(to_receiver)) as client:
        response = await client.post(f"http://hooks.example.com:{port}/x", content=b"{}")
    assert response.status_code == 200
    assert asked == [("hooks.example.com", port)]  # one look-up, and no other
    assert receiver.seen[0].headers["host"] == f"hooks.example.com:{port}"


def test_concurrent_senders_claim_each_delivery_once(
        book: Bookkeeper, clock: ManualClock) -> None:
    from concurrent.futures import ThreadPoolExecutor

    account = book.create_account("developer").account.id
    outbox = SqlWebhookOutbox(book.store)
    for i in range(40):
        outbox.enqueue(message_id=f"msg_{i}", account_id=account, job_id=f"job_c{i}",
                       url="https://hooks.example.com/x", body="{}", now=clock.now())
    start = threading.Barrier(4)

    def claim_all() -> list[str]:
        start.wait()
        mine: list[str] = []
        while claimed := outbox.claim_due(clock.now(), timedelta(seconds=60), 3):
            mine.extend(d.job_id for d in claimed)
        return mine

    with ThreadPoolExecutor(4) as pool:
        shares = list(pool.map(lambda _: claim_all(), range(4)))
    every = [job for share in shares for job in share]
    assert sorted(every) == sorted(f"job_c{i}" for i in range(40))  # each once
