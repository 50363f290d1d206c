"""``POST /v2/charts/batch``: up to 1,000 charts in one request, an extension beyond the
contract.

Body ``{"births": [1 to 1000 coordinate births]}`` (each the contract's coordinates input,
checked by its rules; a ``location`` is not read). Answer: the envelope with ``type``
``ChartBatchResult`` and ``data`` ``{"results": [...]}``, one slot per birth in input
order: the ChartResult of the birth, or ``{"errorCode", "message"}`` with the code a
single chart would have got (INVALID_BIRTHDATE, INVALID_LATITUDE, TIMEZONE_LOOKUP_FAILED,
...).

The body may be up to 256,000 bytes (``BATCH_BYTES_PER_BIRTH`` per birth), or the
settings' ``max_body_bytes`` if more (413 INVALID_REQUEST_BODY past it).

Charging: 1 credit per chart returned. The births that pass the field checks are paid
for together before any work (one reservation each,
:func:`bodygraph_server.billing.batch_charges.reserve_many`): when the account cannot pay
for all of them the answer is 402 CREDITS_EXHAUSTED and nothing is charged. The
reservations of the charts returned are committed, the rest released (a bad item costs
nothing). The request counts once against the rate limit (the gate admits requests, not
charts). The charts come from one ``calculate_many`` call, in a worker thread
(:func:`bodygraph_server.relations_charting.batch_chart_data`).
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from bodygraph_server.billing.accounts import Principal, Reservation
from bodygraph_server.billing.batch_charges import commit_all, release_many, reserve_many
from bodygraph_server.http.births import birth_list, parse_birth_object
from bodygraph_server.http.endpoint import Endpoint
from bodygraph_server.http.envelope import json_response, v2_success
from bodygraph_server.http.errors import ApiError, ErrorCode, from_library_error
from bodygraph_server.http.extension_fields import BATCH_BIRTHS, BATCH_BYTES_PER_BIRTH
from bodygraph_server.http.extensions import BODY_CODES, extension, read_json_object, timed_out
from bodygraph_server.http.validation import CoordinatesInput
from bodygraph_server.relations_charting import LocalBirth, batch_chart_data
from bodygraph_server.services import Services
from bodygraph_server.store import ChargeRefusal

BATCH_PATH = "/v2/charts/batch"
CHART_BATCH_RESULT = "ChartBatchResult"


def parse_batch(body: dict[str, Any]) -> list[CoordinatesInput | ApiError]:
    """Every birth of the body, or the refusal of it (an item's own error; the list's
    shape decides the whole request)."""
    items: list[CoordinatesInput | ApiError] = []
    for i, item in enumerate(birth_list(body, "births", *BATCH_BIRTHS)):
        try:
            birth = parse_birth_object(item, f"births[{i}]", places=False)
        except ApiError as error:
            items.append(error)
            continue
        assert isinstance(birth, CoordinatesInput)
        items.append(birth)
    return items


def slot_error(error: ApiError) -> dict[str, str]:
    """The result slot of a birth that has no chart."""
    return {"errorCode": error.code.value, "message": error.message}


async def _reserve(services: Services, principal: Principal, path: str,
                   count: int) -> list[Reservation]:
    if not count:
        return []
    outcome = await services.booked(reserve_many, services.book, principal, path, count)
    if isinstance(outcome, ChargeRefusal):
        raise ApiError(ErrorCode(outcome.value))
    return outcome


async def _settle(services: Services, principal: Principal, reservations: list[Reservation],
                  used: int) -> None:
    """Commit the first ``used`` reservations (the credited ones come first), release the
    rest."""
    book = services.book
    with anyio.CancelScope(shield=True):
        if used:
            await services.booked(commit_all, book, principal, reservations[:used])
        if used < len(reservations):
            await services.booked(release_many, book, principal, reservations[used:])


async def serve_batch(endpoint: Endpoint, request: Request, services: Services,
                      principal: Principal, announced: ExitStack) -> Response:
    """The body server of the batch endpoint (see the module docstring)."""
    announced.close()
    limit = max(services.settings.max_body_bytes, BATCH_BIRTHS[1] * BATCH_BYTES_PER_BIRTH)
    items = parse_batch(await read_json_object(request, services, limit))
    valid = [(i, birth) for i, birth in enumerate(items) if isinstance(birth, CoordinatesInput)]
    reservations = await _reserve(services, principal, endpoint.path, len(valid))
    births: list[LocalBirth] = [(b.birthdate, b.birthtime, b.lat, b.lng) for _, b in valid]
    try:
        with anyio.fail_after(services.settings.request_timeout):
            computed = await anyio.to_thread.run_sync(batch_chart_data, births,
                                                      abandon_on_cancel=True)
    except BaseException as exc:
        await _settle(services, principal, reservations, 0)
        if isinstance(exc, TimeoutError):
            raise timed_out(request) from None
        raise
    results: list[dict[str, Any]] = [
        slot_error(item) if isinstance(item, ApiError) else {} for item in items]
    used = 0
    for (i, _), outcome in zip(valid, computed, strict=True):
        if isinstance(outcome, dict):
            results[i] = outcome
            used += 1
        else:
            results[i] = slot_error(from_library_error(outcome))
    await _settle(services, principal, reservations, used)
    body = v2_success({"results": results}, type_name=endpoint.success_type,
                      message=endpoint.success_message)
    return await anyio.to_thread.run_sync(json_response, body)


BATCH_ENDPOINT = extension(
    BATCH_PATH, "Batch of charts",
    "The full charts of 1 to 1000 births given by coordinates, in input order; a birth "
    "that has no chart gets its own errorCode and message in its slot. Advanced tier. "
    "1 credit per chart returned, paid for before any work (402 CREDITS_EXHAUSTED and "
    "nothing charged when the account cannot pay for every valid birth). One request "
    "against the rate limit. An extension beyond the contract.",
    CHART_BATCH_RESULT, "Charts generated", serve_batch, "ChartBatchInput", BODY_CODES,
)
