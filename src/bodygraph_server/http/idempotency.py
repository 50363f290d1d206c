"""The ``Idempotency-Key`` request header on the charged endpoints (an extension of the
contract, docs/api.md "Idempotent retries"): how it is read and what its outcomes answer.
The bookkeeping is :mod:`bodygraph_server.billing.idempotency`."""

from __future__ import annotations

import functools

from starlette.datastructures import Headers

from bodygraph_server.billing.accounts import Denied, Principal, Reservation
from bodygraph_server.billing.idempotency import Replay, claim_for, reserve_keyed_charge
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.services import Services

HEADER = "idempotency-key"
MAX_KEY_LENGTH = 255
#: Seconds a client should wait before retrying IDEMPOTENCY_KEY_IN_USE.
RETRY_AFTER_IN_USE = 1


def idempotency_key(headers: Headers) -> str | None:
    """The request's key (None without the header). The draft's form is a quoted string
    (``"abc"``); a bare token is accepted too. IDEMPOTENCY_KEY_INVALID (400) for a header
    sent twice, empty, longer than 255 characters or with other than visible ASCII."""
    values = headers.getlist(HEADER)
    if not values:
        return None
    key = values[0].strip()
    if len(key) >= 2 and key[0] == key[-1] == '"':
        key = key[1:-1]
    valid = (
        len(values) == 1
        and 1 <= len(key) <= MAX_KEY_LENGTH
        and all(33 <= ord(char) <= 126 for char in key)
    )
    if not valid:
        raise ApiError(ErrorCode.IDEMPOTENCY_KEY_INVALID)
    return key


async def reserve_charge(
    services: Services, principal: Principal, endpoint: str, key: str | None, body: bytes
) -> Reservation | None:
    """Reserve the call's credit: the reservation, or None for a replay of an answered
    request (answer it again, charge nothing). Raises the refusals as :class:`ApiError`."""
    book = services.book
    outcome: Reservation | Denied | Replay
    if key is None:
        outcome = await services.requests.reserve(principal, endpoint)
    else:
        claim = claim_for(book, principal, key=key, endpoint=endpoint, body=body)
        journal = services.deliveries
        # Each attempt is recorded: the claim is released if this worker dies.
        before = None if journal is None else functools.partial(journal.claiming,
                                                                claim.key_hash)
        outcome = await reserve_keyed_charge(book, services.run_bookkeeping, principal=principal,
                                             endpoint=endpoint, claim=claim,
                                             wait=services.settings.request_timeout,
                                             before=before)
        if outcome is Replay.ANSWERED and journal is not None:
            # A retry after a cut: the first answer's worker may have died before writing
            # it; its charges are settled first (withdrawn if unwritten), then the key
            # is looked at again.
            await services.run_bookkeeping(journal.recover_dead)
            outcome = await reserve_keyed_charge(
                book, services.run_bookkeeping, principal=principal, endpoint=endpoint,
                claim=claim, wait=services.settings.request_timeout, before=before)
    if isinstance(outcome, Denied):
        raise ApiError(ErrorCode(outcome.reason.value), outcome.message)
    if isinstance(outcome, Replay):
        check_replay(outcome)
        return None
    if services.deliveries is not None:
        services.deliveries.reserved(outcome.id)
    return outcome


def check_replay(replay: Replay) -> None:
    """Return for a replay of an answered request (answer it again, charge nothing);
    raise the refusal of the others (IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE)."""
    if replay is Replay.MISMATCH:
        raise ApiError(ErrorCode.IDEMPOTENCY_KEY_REUSED)
    if replay is Replay.IN_FLIGHT:
        raise ApiError(ErrorCode.IDEMPOTENCY_KEY_IN_USE,
                       headers={"Retry-After": str(RETRY_AFTER_IN_USE)})
