"""The MCP endpoint's charges stand only if the answer was written
(``http/delivery.py`` ``SettlingSend``): on the real bookkeeping and delivery journal, an
answer the server reports written keeps its charge, one it reports unwritten (the
client gone) has it withdrawn."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.billing.deliveries import DeliveryJournal
from bodygraph_server.http.delivery import SettlingSend
from bodygraph_server.http.limits import WRITE_CHECK, WriteCheck
from bodygraph_server.store import UsageStatus

from .conftest import new_key

pytestmark = pytest.mark.anyio


class Reported(WriteCheck):
    """What the server would say about the write."""

    def __init__(self, written: bool) -> None:  # no transport: nothing is written here
        self.result = written

    async def written(self, patience: float) -> bool:
        return self.result


@pytest.mark.parametrize(("written", "status"), [(True, UsageStatus.COMMITTED),
                                                  (False, UsageStatus.RELEASED)])
async def test_a_charge_stands_only_if_its_answer_was_written(
        book: Bookkeeper, tmp_path: Path, written: bool, status: UsageStatus) -> None:
    journal = DeliveryJournal(book, tmp_path, 60.0)
    journal.open()
    principal = book.authenticate(new_key(book))
    assert isinstance(principal, Principal)
    reservation = book.reserve(principal, "/mcp/chart")
    assert isinstance(reservation, Reservation)
    journal.reserved(reservation.id)
    book.commit(reservation)

    async def run_bookkeeping(call: Any, *args: Any) -> Any:
        return call(*args)

    services = SimpleNamespace(deliveries=journal, run_bookkeeping=run_bookkeeping,
                               settings=SimpleNamespace(request_timeout=5.0))
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"extensions": {WRITE_CHECK: Reported(written)}}
    settling = SettlingSend(send, scope, services)  # type: ignore[arg-type]
    settling.charges.append(reservation)
    await settling({"type": "http.response.start", "status": 200, "headers": []})
    await settling({"type": "http.response.body", "body": b"{}"})
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert book.store.usage_statuses([reservation.id]) == [status]
    assert settling.charges == []
    journal.close()
