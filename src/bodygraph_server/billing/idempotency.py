"""The ``Idempotency-Key`` request header on the charged endpoints: a retry is answered
again without a second charge; only hashes are kept (docs/api.md, "Idempotent retries")."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TypeVar

import anyio

from bodygraph_server.billing.accounts import Bookkeeper, Denied, Principal, Reservation
from bodygraph_server.billing.outcomes import free_claim
from bodygraph_server.billing.request_path import BookRunner
from bodygraph_server.store import CommitUncertainError, IdempotencyClaim, Replay

__all__ = ["KEY_LIFETIME", "Replay", "claim_for", "reserve_keyed_charge", "reserve_with_claim",
           "until_settled"]

T = TypeVar("T")

#: How long a key is remembered.
KEY_LIFETIME = timedelta(hours=24)

#: Longest pause between two looks at a duplicate's first request.
_MAX_POLL = 0.1


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()


def claim_for(
    book: Bookkeeper, principal: Principal, key: str, endpoint: str, body: bytes
) -> IdempotencyClaim:
    """The claim of ``key`` for a request of ``principal`` (hashes only)."""
    return IdempotencyClaim(
        key_hash=_digest(str(principal.account_id).encode(), key.encode("ascii")),
        request_hash=_digest(endpoint.encode(), body),
        since=book.clock.now() - KEY_LIFETIME,
    )


async def reserve_keyed_charge(
    book: Bookkeeper,
    run: BookRunner,
    principal: Principal,
    endpoint: str,
    claim: IdempotencyClaim,
    *,
    wait: float,
    before: Callable[[datetime], None] | None = None,
) -> Reservation | Denied | Replay:
    """Reserve as :meth:`Bookkeeper.reserve` does with ``claim``, as
    :func:`reserve_with_claim` does; ``before(made)`` is called before each attempt, with
    its instant (the claim's, if it makes one)."""

    def reserve(now: datetime) -> Reservation | Denied | Replay:
        if before is not None:
            before(now)
        return book.reserve(principal, endpoint, claim, now=now)

    return await reserve_with_claim(book, run, principal=principal, claim=claim,
                                    reserve=reserve, wait=wait)


async def reserve_with_claim(
    book: Bookkeeper,
    run: BookRunner,
    principal: Principal,
    claim: IdempotencyClaim,
    reserve: Callable[[datetime], T],
    *,
    wait: float,
    count: int = 1,
) -> T:
    """``reserve(now)``, a blocking reservation of ``count`` calls with ``claim`` run by
    ``run``, waiting for a first request in flight as :func:`until_settled` does. When its
    acknowledgement is lost (:class:`~bodygraph_server.store.CommitUncertainError`: the
    request fails as an outage), what it stored is released before that is raised
    (:func:`~bodygraph_server.billing.outcomes.free_claim`): a retry is a first use."""
    made = book.clock.now()  # the time of the last attempt

    def attempt() -> T:
        nonlocal made
        made = book.clock.now()
        return reserve(made)

    try:
        return await until_settled(run, attempt, wait=wait)
    except CommitUncertainError:
        await free_claim(book, run, principal=principal, claim=claim, made=made, count=count)
        raise


async def until_settled(run: BookRunner, attempt: Callable[[], T], *, wait: float) -> T:
    """``attempt()`` (a blocking bookkeeping call with a claim, run by ``run``); while it
    answers :attr:`Replay.IN_FLIGHT` (the key's first request is still being served), try
    again (every 5 to 100 ms) for up to ``wait`` seconds, and return
    :attr:`Replay.IN_FLIGHT` only if it still is."""
    deadline = time.monotonic() + wait
    pause = 0.005
    while True:
        outcome = await run(attempt)
        if outcome is not Replay.IN_FLIGHT or time.monotonic() + pause > deadline:
            return outcome
        await anyio.sleep(pause)
        pause = min(pause * 2, _MAX_POLL)
