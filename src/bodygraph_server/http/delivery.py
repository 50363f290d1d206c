"""A charged answer's charge stands only if the answer was written: :class:`ChargedResponse`
records it in the delivery journal as it writes the body, then withdraws the charge if the
response did not reach the socket (docs/accounts.md, "Delivery")."""

from __future__ import annotations

import anyio
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from bodygraph_server.billing.accounts import Reservation
from bodygraph_server.http.limits import WRITE_CHECK, WriteCheck
from bodygraph_server.services import Services


def charged(response: Response, reservation: Reservation | None,
            services: Services) -> Response:
    """``response``, answering a request charged by ``reservation`` (None: nothing
    charged, a replay), as a :class:`ChargedResponse` when the worker keeps a journal."""
    if reservation is None or services.deliveries is None:
        return response
    return ChargedResponse(response, reservation, services)


class ChargedResponse(Response):
    """``inner`` sent as it is, then its charge settled by whether it was written."""

    def __init__(self, inner: Response, reservation: Reservation, services: Services) -> None:
        # Not Response.__init__: the body and headers are the inner response's, made once.
        self.status_code = inner.status_code
        self.body = inner.body
        self.raw_headers = inner.raw_headers
        self.background = inner.background
        self.reservation = reservation
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        journal = self.services.deliveries
        assert journal is not None
        reservation = self.reservation.id
        sent = False
        try:
            await send({"type": "http.response.start", "status": self.status_code,
                        "headers": self.raw_headers})
            # Recorded just before the body is written, with nothing in between that waits
            # or wakes another process: a worker killed after the write (its client
            # already woken by the answer) has its charge recorded as answered.
            journal.delivered(reservation)
            await send({"type": "http.response.body", "body": self.body})
            check = scope.get("extensions", {}).get(WRITE_CHECK)
            sent = (not isinstance(check, WriteCheck)  # no word from the server: sent
                    or await check.written(self.services.settings.request_timeout))
        finally:
            if not sent:
                with anyio.CancelScope(shield=True):
                    await self._withdraw()
        if self.background is not None:
            await self.background()

    async def _withdraw(self) -> None:
        """The answer was not written: the charge is withdrawn (now, or from the
        journal)."""
        await withdraw(self.services, self.reservation)


async def withdraw(services: Services, reservation: Reservation) -> None:
    """The answer of ``reservation``'s call was not written: its charge is withdrawn
    (now, or from the journal)."""
    journal = services.deliveries
    assert journal is not None
    journal.undelivered(reservation.id)
    if await services.run_bookkeeping(journal.withdraw, reservation.id):
        journal.settled(reservation.id)


class SettlingSend:
    """An ASGI ``send`` for an application that writes its answer itself (the MCP
    transport): the charges it made while answering (:attr:`charges`) are settled as
    :class:`ChargedResponse` settles one, by whether the response's last part was
    written."""

    def __init__(self, send: Send, scope: Scope, services: Services) -> None:
        self.send = send
        self.scope = scope
        self.services = services
        self.charges: list[Reservation] = []

    async def __call__(self, message: Message) -> None:
        journal = self.services.deliveries
        last = message["type"] == "http.response.body" and not message.get("more_body")
        if not last or not self.charges or journal is None:
            await self.send(message)
            return
        charges, self.charges = self.charges, []
        sent = False
        try:
            for reservation in charges:
                journal.delivered(reservation.id)
            await self.send(message)
            check = self.scope.get("extensions", {}).get(WRITE_CHECK)
            sent = (not isinstance(check, WriteCheck)
                    or await check.written(self.services.settings.request_timeout))
        finally:
            if not sent:
                with anyio.CancelScope(shield=True):
                    for reservation in charges:
                        await withdraw(self.services, reservation)
