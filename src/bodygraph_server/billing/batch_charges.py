"""Charging a request that costs more than one credit (the batch endpoint): take all its
reservations before any work (:func:`reserve_many`), then commit those of the results it
returns (:func:`commit_all`) and release the rest (:func:`release_many`).

The SQL stores do it in one transaction each way
(:class:`~bodygraph_server.store.batch_charges.BatchChargeRepository`); any other
:class:`~bodygraph_server.store.Store` gets the same outcome from single reservations
(:meth:`Bookkeeper.reserve`, :meth:`Bookkeeper.release`), taken back if one is refused.
Blocking, like every bookkeeping call: run them in a bookkeeping thread.
"""

from __future__ import annotations

from collections.abc import Sequence

from bodygraph_server.billing.accounts import Bookkeeper, Denied, Principal, Reservation
from bodygraph_server.store import ChargeRefusal, ReservationNotFoundError
from bodygraph_server.store.batch_charges import BatchChargeRepository


def reserve_many(
    book: Bookkeeper, principal: Principal, endpoint: str, count: int
) -> list[Reservation] | ChargeRefusal:
    """``count`` (>= 1) reservations for calls to ``endpoint``, or the refusal of them all
    (nothing taken)."""
    store = book.store
    if isinstance(store, BatchChargeRepository):
        return store.reserve_many(principal.account_id, endpoint, count, book.clock.now())
    taken: list[Reservation] = []
    for _ in range(count):
        outcome = book.reserve(principal, endpoint)
        if isinstance(outcome, Denied):
            release_many(book, principal, taken)
            return ChargeRefusal(outcome.reason.value)
        taken.append(outcome)
    return taken


def commit_all(
    book: Bookkeeper, principal: Principal, reservations: Sequence[Reservation]
) -> None:
    """Commit the reservations still pending (the calls they paid for succeeded)."""
    store = book.store
    if isinstance(store, BatchChargeRepository):
        store.commit_all(principal.account_id, [r.id for r in reservations], book.clock.now())
        return
    book.commit_many(reservations)


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
