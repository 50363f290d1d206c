"""The charging flow of a charged operation: reserve the credit, do the work under the
request time-out, release the reservation on any failure, commit it on success; the
charge stands once the answer was written (:mod:`bodygraph_server.http.delivery`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio
from starlette.responses import Response

from bodygraph_server.billing.accounts import Principal, Reservation
from bodygraph_server.http.delivery import charged as charged_response
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.idempotency import reserve_charge
from bodygraph_server.services import Services

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ChargedRequest:
    """Who asks what: the caller, the operation's path, its ``Idempotency-Key`` (None
    without one) and the body's bytes (a replay must repeat them)."""

    principal: Principal
    path: str
    idempotency_key: str | None
    body: bytes


async def charge_and_answer(services: Services, charged: ChargedRequest, *, request_id: str,
                            work: Callable[[], Awaitable[T]],
                            respond: Callable[[T], Response]) -> Response:
    """Reserve a credit, do ``work`` under the service's request time-out, commit; release
    on any failure (a time-out is :func:`timed_out` of ``request_id``). The answer is
    ``respond(result)``, whose charge is withdrawn if it is not written. A replay of an
    answered request (same Idempotency-Key and body) is answered again without a charge."""
    try:
        answer, reservation = await charge(services, charged,
                                           services.settings.request_timeout, work)
    except TimeoutError:
        raise timed_out(request_id) from None
    return charged_response(respond(answer), reservation, services)


async def charge(services: Services, charged: ChargedRequest, timeout: float,
                 work: Callable[[], Awaitable[T]]) -> tuple[T, Reservation | None]:
    """The flow of :func:`charge_and_answer` up to the commit: ``work``'s result and the
    committed reservation (None: a replay, nothing charged), for a caller that writes
    the answer itself (the MCP family)."""
    book = services.book
    reservation = await reserve_charge(services, charged.principal, endpoint=charged.path,
                                       key=charged.idempotency_key, body=charged.body)
    try:
        with anyio.fail_after(timeout):
            answer = await work()
    except BaseException:
        if reservation is not None:
            with anyio.CancelScope(shield=True):
                await services.run_bookkeeping(book.release, reservation)
        raise
    if reservation is not None:
        await services.commits.commit(reservation)
    return answer, reservation


def timed_out(request_id: str) -> ApiError:
    """INTERNAL_ERROR of the request ``request_id`` that ran past the time-out."""
    return ApiError(ErrorCode.INTERNAL_ERROR, f"Request timed out (request id {request_id})")
