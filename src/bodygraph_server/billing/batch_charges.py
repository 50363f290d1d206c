"""Charging a request that costs more than one credit (the batch endpoint): take all its
reservations before any work (:func:`reserve_many`), then commit those of the results it
returns and release the rest (:func:`settle_batch`; the release alone:
:func:`release_many`). With an ``Idempotency-Key`` the batch claims the key once
(:func:`reserve_many` with a claim, or :func:`claim_unpaid` for a batch without a valid
birth) and :func:`settle_batch` records how many charts it charged.

The SQL stores do it in one transaction each way
(:class:`~bodygraph_server.store.batch_charges.BatchChargeRepository`); any other
:class:`~bodygraph_server.store.Store` gets the same outcome from single reservations
(:meth:`Bookkeeper.reserve`, :meth:`Bookkeeper.release`), taken back if one is refused;
there the key is linked to the first reservation only (a batch that charged nothing
leaves it free).
Blocking, like every bookkeeping call: run them in a bookkeeping thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bodygraph_server.billing.accounts import Bookkeeper, Denied, Principal, Reservation
from bodygraph_server.store import (
    ChargeRefusal,
    IdempotencyClaim,
    Replay,
    ReservationNotFoundError,
)
from bodygraph_server.store.batch_charges import BatchChargeRepository


def reserve_many(
    book: Bookkeeper, principal: Principal, endpoint: str, count: int,
    claim: IdempotencyClaim | None = None, *, now: datetime | None = None,
) -> list[Reservation] | ChargeRefusal | Replay:
    """``count`` (>= 1) reservations for calls to ``endpoint``, or the refusal of them all
    (nothing taken); with an idempotency ``claim``, a :class:`Replay` (nothing taken) when
    its key was used before. ``now``: the clock's time unless given."""
    store = book.store
    at = book.clock.now() if now is None else now
    if isinstance(store, BatchChargeRepository):
        return store.reserve_many(principal.account_id, endpoint, count, at, claim)
    taken: list[Reservation] = []
    for _ in range(count):
        outcome = (book.reserve(principal, endpoint, now=at) if taken or claim is None
                   else book.reserve(principal, endpoint, claim, now=at))
        if isinstance(outcome, Replay):
            return outcome
        if isinstance(outcome, Denied):
            release_many(book, principal, taken)
            return ChargeRefusal(outcome.reason.value)
        taken.append(outcome)
    return taken


def release_claim(book: Bookkeeper, principal: Principal, claim: IdempotencyClaim,
                  made: datetime, count: int = 1) -> int:
    """Release what a reservation of ``count`` calls with ``claim``, made at ``made``,
    stored and is still pending (its acknowledgement was lost, its request failed): the
    key is free again; how many were released. The SQL stores can tell; with any other
    store the sweep does it."""
    store = book.store
    if isinstance(store, BatchChargeRepository):
        return store.release_claim(principal.account_id, claim, made, book.clock.now(),
                                   count)
    return 0


def claim_unpaid(book: Bookkeeper, principal: Principal,
                 claim: IdempotencyClaim) -> Replay | None:
    """Claim the key of a batch that reserves nothing (no valid birth): None for a first
    use, else the :class:`Replay` (the same batch answered before, or another body)."""
    store = book.store
    if isinstance(store, BatchChargeRepository):
        return store.claim_unpaid(principal.account_id, claim, book.clock.now())
    return None


def settle_batch(
    book: Bookkeeper, principal: Principal, reservations: Sequence[Reservation], used: int,
    claim: IdempotencyClaim | None = None,
) -> None:
    """The batch was answered: commit the first ``used`` reservations (the credited ones
    come first), release the rest and record the charged count under ``claim``'s key.
    Raises :class:`~bodygraph_server.store.CommitUncertainError` when the commit's
    acknowledgement is lost (:mod:`bodygraph_server.billing.outcomes` resolves it)."""
    store = book.store
    if isinstance(store, BatchChargeRepository):
        store.settle_batch(principal.account_id, [r.id for r in reservations[:used]],
                           [r.id for r in reservations[used:]], book.clock.now(),
                           None if claim is None else claim.key_hash)
        return
    if used:
        book.commit_many(reservations[:used])
    release_many(book, principal, reservations[used:])


def release_many(
    book: Bookkeeper, principal: Principal, reservations: Sequence[Reservation]
) -> None:
    """Give back the reservations still pending (the calls they paid for failed)."""
    store = book.store
    if isinstance(store, BatchChargeRepository):
        store.release_many(principal.account_id, [r.id for r in reservations],
                           book.clock.now())
        return
    for reservation in reservations:
        try:
            book.release(reservation)
        except ReservationNotFoundError:
            continue
