"""Charges whose commit acknowledgement was lost: found out on a new connection (release
as a fence, then read the status back), so a call is answered if and only if it was
charged (docs/accounts.md, "Charging protocol")."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, TypeVar

import anyio

from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.billing.batch_charges import release_claim, release_many
from bodygraph_server.store import (
    DatabaseUnavailableError,
    IdempotencyClaim,
    ReservationNotFoundError,
    UsageStatus,
)

if TYPE_CHECKING:
    from bodygraph_server.billing.request_path import BookRunner

T = TypeVar("T")

#: Seconds spent finding out how a commit without acknowledgement turned out.
RESOLVE_WINDOW = 3.0

#: Pauses between the attempts while the database cannot be reached.
_PAUSES = (0.05, 0.2, 0.5, 1.0, 1.0, 1.0)


async def _retrying(run: BookRunner, call: Callable[..., T], *args: object) -> T:
    """``call(*args)`` through ``run``, tried again after an outage within the window."""
    deadline = time.monotonic() + RESOLVE_WINDOW
    for pause in _PAUSES:
        try:
            return await run(call, *args)
        except DatabaseUnavailableError:
            if time.monotonic() + pause > deadline:
                raise
            await anyio.sleep(pause)
    return await run(call, *args)


def _fence(book: Bookkeeper, reservations: Sequence[Reservation]) -> list[UsageStatus | None]:
    """Release each reservation still pending, then read every one's status (blocking)."""
    for reservation in reservations:
        try:
            book.release(reservation)
        except ReservationNotFoundError:
            continue  # committed (or released) already
    return book.store.usage_statuses([r.id for r in reservations])


def not_committed(error: BaseException) -> DatabaseUnavailableError:
    """The outage error of a call whose charge turned out not to be stored."""
    return DatabaseUnavailableError(f"{error} (not committed; released)")


async def resolve_commits(
    book: Bookkeeper, run: BookRunner, reservations: Sequence[Reservation],
    error: DatabaseUnavailableError,
) -> list[BaseException | None]:
    """For each reservation of a group commit that raised ``error`` (a lost
    acknowledgement): None if it was committed, else the outage (the reservation
    released; ``error`` itself while the outcome cannot be found out)."""
    try:
        statuses = await _retrying(run, _fence, book, reservations)
    except DatabaseUnavailableError:
        return [error] * len(reservations)
    return [None if status is UsageStatus.COMMITTED else not_committed(error)
            for status in statuses]


def _fence_batch(book: Bookkeeper, principal: Principal,
                 reservations: Sequence[Reservation]) -> UsageStatus | None:
    """Release a batch's reservations still pending; the status of its first one."""
    release_many(book, principal, reservations)
    return book.store.usage_statuses([reservations[0].id])[0]


async def resolve_batch(
    book: Bookkeeper, run: BookRunner, principal: Principal,
    reservations: Sequence[Reservation], used: int, error: DatabaseUnavailableError,
) -> None:
    """After ``error`` (a lost acknowledgement) from
    :func:`~bodygraph_server.billing.batch_charges.settle_batch`: return if the batch's
    charges were committed (its first reservation is; the batch committed in one
    transaction) or if it charged nothing anyway (``used`` 0), else raise the outage
    (everything released)."""
    try:
        first = await _retrying(run, partial(_fence_batch, book, principal, reservations))
    except DatabaseUnavailableError:
        if used:
            raise error from None
        return
    if used and first is not UsageStatus.COMMITTED:
        raise not_committed(error)


async def free_claim(book: Bookkeeper, run: BookRunner, principal: Principal,
                     claim: IdempotencyClaim, made: datetime, count: int = 1) -> None:
    """After a reservation of ``count`` calls with an idempotency ``claim``, made at
    ``made``, lost its acknowledgement (its request fails as an outage): release what it
    stored, so that a retry with the key is served at once, not refused as
    IDEMPOTENCY_KEY_IN_USE until the sweep releases it. While the database cannot be
    reached within the window, that is left to the sweep."""
    with anyio.CancelScope(shield=True), suppress(DatabaseUnavailableError):
        await _retrying(run, partial(release_claim, book, principal, claim=claim, made=made,
                                     count=count))
