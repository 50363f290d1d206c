"""Charging a batch: all its reservations taken before any work, then those of the charts
it returns committed and the rest released, each way in one transaction
(docs/accounts.md, "Batches")."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.store import ChargeRefusal, IdempotencyClaim, Replay


def reserve_many(
    book: Bookkeeper, principal: Principal, endpoint: str, count: int,
    claim: IdempotencyClaim | None = None, *, now: datetime | None = None,
) -> list[Reservation] | ChargeRefusal | Replay:
    """``count`` (>= 1) reservations for calls to ``endpoint``, or the refusal of them all
    (nothing taken); with an idempotency ``claim``, a :class:`Replay` (nothing taken) when
    its key was used before. ``now``: the clock's time unless given."""
    at = book.clock.now() if now is None else now
    return book.store.reserve_many(principal.account_id, endpoint, count=count, now=at,
                                   claim=claim)


def release_claim(book: Bookkeeper, principal: Principal, claim: IdempotencyClaim,
                  made: datetime, count: int = 1) -> int:
    """Release what a reservation of ``count`` calls with ``claim``, made at ``made``,
    stored and is still pending (its acknowledgement was lost, its request failed): the
    key is free again; how many were released."""
    return book.store.release_claim(principal.account_id, claim, made=made,
                                    now=book.clock.now(), count=count)


def claim_unpaid(book: Bookkeeper, principal: Principal,
                 claim: IdempotencyClaim) -> Replay | None:
    """Claim the key of a batch that reserves nothing (no valid birth): None for a first
    use, else the :class:`Replay` (the same batch answered before, or another body)."""
    return book.store.claim_unpaid(principal.account_id, claim, book.clock.now())


def settle_batch(
    book: Bookkeeper, principal: Principal, reservations: Sequence[Reservation], used: int,
    claim: IdempotencyClaim | None = None,
) -> None:
    """The batch was answered: commit the first ``used`` reservations (the credited ones
    come first), release the rest and record the charged count under ``claim``'s key.
    Raises :class:`~bodygraph_server.store.CommitUncertainError` when the commit's
    acknowledgement is lost (:mod:`bodygraph_server.billing.outcomes` resolves it)."""
    book.store.settle_batch(principal.account_id, used=[r.id for r in reservations[:used]],
                            unused=[r.id for r in reservations[used:]], now=book.clock.now(),
                            key_hash=None if claim is None else claim.key_hash)


def release_many(
    book: Bookkeeper, principal: Principal, reservations: Sequence[Reservation]
) -> None:
    """Give back the reservations still pending (the calls they paid for failed)."""
    book.store.release_many(principal.account_id, [r.id for r in reservations],
                            book.clock.now())
