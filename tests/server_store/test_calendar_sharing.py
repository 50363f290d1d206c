"""/v2/calendar shares its months between callers, on SQLite and PostgreSQL: two accounts
asking for the same range compute each month once, so do two app instances on one
database (the second reads the table ``calendar_blocks``), and concurrent requests in one
app; every answer is the direct library calendar."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import anyio
import httpx
import pytest
from server.support import app_client, json_headers

import bodygraph.relations.calendar_blocks as calendar_blocks
from bodygraph.relations.calendar import calendar
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.store.calendar_blocks import SqlCalendarBlocks
from bodygraph_server.store.sql import SqlStore

pytestmark = pytest.mark.anyio

QUERY = {"from": "2024-01-20", "to": "2024-03-05", "bodies": ["moon", "sun", "earth"],
         "level": "line"}
#: The months of QUERY: January, February and March 2024.
MONTHS = 3
#: Seconds a request may take (a cold start included: no test here races the clock).
PATIENT = 60.0


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The months the library computes, in order of computation."""
    months: list[int] = []
    compute = calendar_blocks.compute_blocks

    def counted(wanted: Sequence[int], *args: Any,
                **kwargs: Any) -> list[calendar_blocks.IngressColumns]:
        months.extend(wanted)
        return compute(wanted, *args, **kwargs)

    monkeypatch.setattr(calendar_blocks, "compute_blocks", counted)
    yield months


def _direct() -> list[dict[str, str]]:
    found = calendar(datetime(2024, 1, 20, tzinfo=UTC), datetime(2024, 3, 6, tzinfo=UTC),
                     QUERY["bodies"], "line")
    return [i.to_dict() for i in found]


def _stored(book: Bookkeeper) -> int:
    assert isinstance(book.store, SqlStore)
    return SqlCalendarBlocks(book.store).count()


async def _ask(client: httpx.AsyncClient, key: str, query: dict[str, Any] = QUERY) -> Any:
    response = await client.post("/v2/calendar", json=query, headers=json_headers(key))
    assert response.status_code == 200, response.text
    return response.json()["data"]


async def test_two_accounts_compute_each_month_once(
    db_url: str, book: Bookkeeper, computed: list[int]
) -> None:
    first, second = (book.create_account("developer").api_key for _ in range(2))
    async with app_client(db_url, book, PATIENT) as client:
        one = await _ask(client, first)
        assert len(computed) == MONTHS and _stored(book) == MONTHS
        two = await _ask(client, second)
    assert len(computed) == MONTHS and _stored(book) == MONTHS
    assert one == two == _direct()


async def test_a_second_instance_reads_the_months_from_the_database(
    db_url: str, book: Bookkeeper, computed: list[int]
) -> None:
    first, second = (book.create_account("developer").api_key for _ in range(2))
    async with app_client(db_url, book, PATIENT) as client:
        one = await _ask(client, first)
    with Bookkeeper.open(db_url) as elsewhere:  # another instance: its own connections
        async with app_client(db_url, elsewhere, PATIENT) as other:
            two = await _ask(other, second)
            wider = await _ask(other, second, {**QUERY, "to": "2024-04-02"})
    assert len(computed) == MONTHS + 1  # April only
    assert one == two == _direct()
    assert wider[:len(one)] == one and len(wider) > len(one)


async def test_concurrent_requests_in_one_app_compute_once(
    db_url: str, book: Bookkeeper, computed: list[int]
) -> None:
    keys = [book.create_account("developer").api_key for _ in range(4)]
    answers: list[Any] = []
    async with app_client(db_url, book, PATIENT) as client:
        async def ask(key: str) -> None:
            answers.append(await _ask(client, key))

        async with anyio.create_task_group() as group:
            for key in keys:
                group.start_soon(ask, key)
    assert sorted(computed) == sorted(set(computed)) and len(computed) == MONTHS
    assert all(answer == answers[0] for answer in answers) and len(answers) == 4


async def test_gate_and_line_months_are_kept_apart(
    db_url: str, book: Bookkeeper, computed: list[int]
) -> None:
    key = book.create_account("developer").api_key
    async with app_client(db_url, book, PATIENT) as client:
        lines = await _ask(client, key)
        gates = await _ask(client, key, {**QUERY, "level": "gate"})
    assert len(computed) == 2 * MONTHS and _stored(book) == 2 * MONTHS
    assert len(gates) < len(lines)
    assert gates == [i.to_dict() for i in calendar(
        datetime(2024, 1, 20, tzinfo=UTC), datetime(2024, 3, 6, tzinfo=UTC),
        QUERY["bodies"], "gate")]
