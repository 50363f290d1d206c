"""Sending the jobs' webhooks: every due delivery of the outbox is POSTed, signed, until
answered 2xx, on the bounded backoff schedule :data:`RETRY_DELAYS`; every attempt is
logged in the database, so retries survive a restart (docs/jobs.md, "Webhooks")."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
import httpx

from bodygraph_server.policy.clock import Clock
from bodygraph_server.store.errors import StoreError
from bodygraph_server.store.webhook_deliveries import Delivery, SqlWebhookOutbox
from bodygraph_server.webhooks.events import JobEvent
from bodygraph_server.webhooks.policy import (
    CallbackURLError,
    Resolver,
    check_callback_url,
    system_resolve,
)
from bodygraph_server.webhooks.signing import WebhookSecretError, new_message_id, signed_headers
from bodygraph_server.webhooks.transport import public_only_transport

LOG = logging.getLogger("bodygraph_server.webhooks")

#: Seconds from a failed attempt to the next: attempt n+1 comes RETRY_DELAYS[n-1] after
#: attempt n started (the schedule of the Standard Webhooks reference implementation,
#: Svix: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). Eight attempts over about 28 hours;
#: then the delivery has failed for good.
RETRY_DELAYS: tuple[float, ...] = (5, 300, 1800, 7200, 18000, 36000, 36000)
#: Seconds an attempt may take in all (resolving, connecting, sending, the status line).
ATTEMPT_TIMEOUT = 10.0
#: How long a claimed delivery is hidden from the other senders (a sender that dies
#: mid-attempt leaves it to them after this).
LEASE = timedelta(seconds=60)
#: Most deliveries one sender claims at once.
CLAIM_LIMIT = 20
#: Seconds between two looks at the outbox when nothing wakes the sender.
POLL_INTERVAL = 5.0

#: The ``whsec_`` secret of an account (blocking; called in a worker thread).
SecretSource = Callable[[int], str]


@dataclass(frozen=True, slots=True)
class Outcome:
    """How an attempt went: the answer's status (None: none came) and what went wrong
    ("" when delivered)."""

    status_code: int | None
    error: str


class WebhookSender:
    """Sends the outbox's due webhooks from this process (any number of processes and
    instances may run one on the same database: each delivery is claimed by one)."""

    def __init__(self, outbox: SqlWebhookOutbox, secret_for: SecretSource, *, clock: Clock,
                 allow_private: bool, delays: tuple[float, ...] = RETRY_DELAYS,
                 timeout: float = ATTEMPT_TIMEOUT, resolve: Resolver = system_resolve,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.outbox = outbox
        self.delays = delays
        self.timeout = timeout
        self.allow_private = allow_private
        self._secret_for = secret_for
        self._clock = clock
        self._resolve = resolve
        if transport is None and not allow_private:
            transport = public_only_transport(resolve)
        self._client = httpx.AsyncClient(
            follow_redirects=False, trust_env=False, timeout=timeout, transport=transport,
            headers={"user-agent": "bodygraph-webhooks/1"})
        self._wake = asyncio.Event()

    async def enqueue(self, *, account_id: int, job_id: str, url: str,
                      event: JobEvent) -> bool:
        """Store ``event`` for ``url`` (checked when the job was accepted) and wake the
        sender; False when the job's event is already stored."""
        stored = await anyio.to_thread.run_sync(lambda: self.outbox.enqueue(
            message_id=new_message_id(), account_id=account_id, job_id=job_id, url=url,
            body=event.body(), now=self._clock.now()))
        self.wake()
        return stored

    def wake(self) -> None:
        """Look at the outbox now (an event was stored in another transaction)."""
        self._wake.set()

    async def deliver_due(self, limit: int = CLAIM_LIMIT) -> int:
        """Claim the due deliveries (at most ``limit``) and make one attempt of each,
        side by side; how many were attempted."""
        now = self._clock.now()
        due = await anyio.to_thread.run_sync(self.outbox.claim_due, now, LEASE, limit)
        async with anyio.create_task_group() as group:
            for delivery in due:
                group.start_soon(self._deliver, delivery)
        return len(due)

    async def run(self, poll_interval: float = POLL_INTERVAL) -> None:
        """Deliver until cancelled: at once when woken, when the next retry is due, and
        every ``poll_interval`` seconds (other processes store events too)."""
        while True:
            self._wake.clear()
            try:
                if await self.deliver_due():
                    continue
                due = await anyio.to_thread.run_sync(self.outbox.next_due)
            except StoreError as exc:
                LOG.warning("webhooks: the database is unavailable (%s); trying again", exc)
                due = None
            except Exception:  # never let one bad delivery stop the sender
                LOG.exception("webhooks: delivering failed; trying again")
                due = None
            wait = poll_interval
            if due is not None:
                wait = min(wait, max(0.0, (due - self._clock.now()).total_seconds()))
            with anyio.move_on_after(wait):
                await self._wake.wait()

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.aclose()

    async def _deliver(self, delivery: Delivery) -> None:
        started = self._clock.now()
        began = time.monotonic()
        outcome = await self.attempt(delivery)
        duration = timedelta(seconds=time.monotonic() - began)
        number = delivery.attempts
        retry_at = None
        if outcome.error and number <= len(self.delays):
            retry_at = started + timedelta(seconds=self.delays[number - 1])
        host = urlsplit(delivery.url).hostname
        try:
            recorded = await anyio.to_thread.run_sync(lambda: self.outbox.record(
                delivery, started=started, duration=duration,
                status_code=outcome.status_code, error=outcome.error, retry_at=retry_at))
        except StoreError as exc:  # the claim runs out: the delivery is tried again then
            LOG.warning("webhook of job %s to %s, attempt %d (%s) not recorded: %s",
                        delivery.job_id, host, number, outcome.error or "delivered", exc)
            return
        if not recorded:
            LOG.warning("webhook of job %s: attempt %d outlived its claim (%s)",
                        delivery.job_id, number, outcome.error or "delivered")
        elif not outcome.error:
            LOG.info("webhook of job %s delivered to %s (attempt %d)",
                     delivery.job_id, host, number)
        else:
            then = "next at " + retry_at.isoformat() if retry_at else "given up"
            LOG.warning("webhook of job %s to %s, attempt %d: %s; %s",
                        delivery.job_id, host, number, outcome.error, then)

    async def attempt(self, delivery: Delivery) -> Outcome:
        """One signed POST of ``delivery`` (its URL checked again, and the address
        connected to checked as well: a name may resolve elsewhere now); redirects are not
        followed and the answer's body is not read."""
        try:
            secret = await anyio.to_thread.run_sync(self._secret_for, delivery.account_id)
            headers = signed_headers(secret, delivery.message_id, delivery.body,
                                     self._clock.now())
        except WebhookSecretError as exc:
            return Outcome(None, f"cannot sign: {exc}")
        except Exception as exc:  # a store outage, an account gone: logged, tried again
            return Outcome(None, f"cannot read the account's webhook secret: {exc}")
        try:
            with anyio.fail_after(self.timeout):
                await check_callback_url(delivery.url, allow_private=self.allow_private,
                                         resolve=self._resolve)
                async with self._client.stream("POST", delivery.url, headers=headers,
                                               content=delivery.body.encode()) as response:
                    status = response.status_code
        except CallbackURLError as exc:
            return Outcome(None, f"refused: {exc}")
        except TimeoutError:
            return Outcome(None, f"no answer within {self.timeout:g} s")
        except httpx.HTTPError as exc:
            return Outcome(None, f"{type(exc).__name__}: {exc}".rstrip(": "))
        if 200 <= status < 300:
            return Outcome(status, "")
        return Outcome(status, f"answered HTTP {status}")
