"""``POST /v2/charts/batch``: up to 1,000 charts by coordinates in one request, one result
slot per birth, 1 credit per chart returned, paid for before any work (docs/api.md, "The
batch endpoint")."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from bodygraph.catalog.translations import pgettext
from bodygraph_server.billing.accounts import Principal, Reservation
from bodygraph_server.billing.batch_charges import (
    claim_unpaid,
    release_many,
    reserve_many,
    settle_batch,
)
from bodygraph_server.billing.idempotency import claim_for, reserve_with_claim
from bodygraph_server.billing.outcomes import resolve_batch
from bodygraph_server.http.births import located
from bodygraph_server.http.bodies import parse_json_object, read_raw_body
from bodygraph_server.http.charging import timed_out
from bodygraph_server.http.envelope import json_response, v2_success
from bodygraph_server.http.errors import ApiError, ErrorCode, from_library_error
from bodygraph_server.http.gate import admitted, request_id_of
from bodygraph_server.http.idempotency import check_replay, idempotency_key
from bodygraph_server.http.operation import Operation
from bodygraph_server.http.validation import CoordinatesInput
from bodygraph_server.relations_charting import LocalBirth, batch_chart_data
from bodygraph_server.resources.batch.schemas import (
    BATCH_BIRTHS,
    BATCH_BYTES_PER_BIRTH,
    BATCH_INPUT,
    CHART_BATCH_RESULT,
    Slot,
    schemas,
)
from bodygraph_server.resources.computed import body_codes, extension_operation
from bodygraph_server.services import Services, services_of
from bodygraph_server.store import ChargeRefusal, CommitUncertainError, IdempotencyClaim, Replay

BATCH_PATH = "/v2/charts/batch"
BATCHED = "Charts generated"


def parse_batch(body: dict[str, Any]) -> list[Slot]:
    """Every birth of the body, or the refusal of it (:data:`~bodygraph_server.resources.
    batch.schemas.BATCH_INPUT`)."""
    return BATCH_INPUT.parse(body)


def slot_error(error: ApiError) -> dict[str, str]:
    """The result slot of a birth that has no chart."""
    return {"errorCode": error.code.value, "message": error.message}


async def _reserve(services: Services, principal: Principal, path: str, count: int,
                   claim: IdempotencyClaim | None) -> list[Reservation] | None:
    """The reservations of ``count`` charts, or None for a replay of an answered batch
    (same Idempotency-Key and body: answered again, charged nothing). Raises the refusals
    (402, and the key's 409 and 422) as :class:`ApiError`."""
    book = services.book
    if not count:
        replay = None if claim is None else await services.run_bookkeeping(claim_unpaid, book,
                                                                   principal, claim)
        if replay is not None:
            check_replay(replay)
        return []

    def reserve(now: datetime | None = None) -> list[Reservation] | ChargeRefusal | Replay:
        return reserve_many(book, principal, endpoint=path, count=count, claim=claim, now=now)

    outcome = await (services.run_bookkeeping(reserve) if claim is None else
                     reserve_with_claim(book, services.run_bookkeeping, principal=principal,
                                        claim=claim, reserve=reserve,
                                        wait=services.settings.request_timeout, count=count))
    if isinstance(outcome, ChargeRefusal):
        raise ApiError(ErrorCode(outcome.value))
    if isinstance(outcome, Replay):
        check_replay(outcome)
        return None
    return outcome


async def _settle(services: Services, principal: Principal, reservations: list[Reservation],
                  used: int, claim: IdempotencyClaim | None) -> None:
    """Commit the first ``used`` reservations (the credited ones come first), release the
    rest and record the key's charged count, in one transaction; when its acknowledgement
    is lost, find out whether it committed (503 if not, nothing charged)."""
    book = services.book
    with anyio.CancelScope(shield=True):
        try:
            await services.run_bookkeeping(partial(settle_batch, book, principal, reservations,
                                                   used=used, claim=claim))
        except CommitUncertainError as lost:
            await resolve_batch(book, services.run_bookkeeping, principal=principal,
                                reservations=reservations, used=used, error=lost)


async def serve_batch(request: Request) -> Response:
    """The batch operation (see the module docstring)."""
    principal = admitted(request.scope, BATCH_PATH)
    services = services_of(request.scope)
    key = idempotency_key(request.headers)
    limit = max(services.settings.max_body_bytes, BATCH_BIRTHS[1] * BATCH_BYTES_PER_BIRTH)
    raw = await read_raw_body(request, services, limit)
    items = parse_batch(parse_json_object(raw))
    valid = [(i, birth) for i, birth in enumerate(items) if isinstance(birth, CoordinatesInput)]
    claim = None if key is None else claim_for(services.book, principal, key=key,
                                                endpoint=BATCH_PATH, body=raw)
    # None: a replay of an answered batch; its charts are computed again (deterministic).
    reservations = await _reserve(services, principal, path=BATCH_PATH, count=len(valid),
                                  claim=claim)
    births: list[LocalBirth] = [(b.birthdate, b.birthtime, b.lat, b.lng) for _, b in valid]
    try:
        with anyio.fail_after(services.settings.request_timeout):
            computed = await anyio.to_thread.run_sync(batch_chart_data, births,
                                                      abandon_on_cancel=True)
    except BaseException as exc:
        if reservations:
            with anyio.CancelScope(shield=True):
                await services.run_bookkeeping(release_many, services.book, principal, reservations)
        if isinstance(exc, TimeoutError):
            raise timed_out(request_id_of(request.scope)) from None
        raise
    results: list[dict[str, Any]] = [
        slot_error(item) if isinstance(item, ApiError) else {} for item in items]
    used = 0
    for (i, _), outcome in zip(valid, computed, strict=True):
        if isinstance(outcome, dict):
            results[i] = outcome
            used += 1
        else:
            results[i] = slot_error(located(f"births[{i}]", from_library_error(outcome)))
    if reservations:
        await _settle(services, principal, reservations=reservations, used=used, claim=claim)
    body = v2_success({"results": results}, type_name=CHART_BATCH_RESULT, message=BATCHED)
    return await anyio.to_thread.run_sync(json_response, body)


BATCH_OPERATION = extension_operation(
    path=BATCH_PATH, summary=pgettext("openapi", "Batch of charts"),
    description=pgettext(
        "openapi", "The full charts of 1 to 1000 births given by coordinates, in input order; a "
        "birth that has no chart gets its own errorCode and message in its slot. Advanced tier. "
        "1 credit per chart returned, paid for before any work (402 CREDITS_EXHAUSTED and "
        "nothing charged when the account cannot pay for every valid birth). One request against "
        "the rate limit. With an Idempotency-Key, a retry of the same batch is answered again "
        "and charged nothing more. An extension beyond the contract."),
    type_name=CHART_BATCH_RESULT, message=BATCHED, handler=serve_batch,
    request_body=BATCH_INPUT.name, error_codes=body_codes(BATCH_INPUT),
)
OPERATIONS: tuple[Operation, ...] = (BATCH_OPERATION,)
__all__ = ["BATCH_OPERATION", "OPERATIONS", "schemas"]
