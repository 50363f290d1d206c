"""Every method of both clients against the real service (uvicorn on 127.0.0.1): the
results equal the library's chart and validate against the service's JSON Schemas, the
rate-limit headers are read, one credit is charged per call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from contract_schemas import validate_contract
from server.support import tls_context

import bodygraph
from bodygraph.render import svg
from bodygraph_client import AsyncClient, Client, RateLimit, VisualChart

from .conftest import Service, async_loopback, loopback

pytestmark = pytest.mark.timeout(300)

PLACE = ("1990-07-15", "14:30", "Berlin, Germany")
COORDS = (52.52, 13.405, "1990-07-15", "14:30")


def expected() -> bodygraph.Chart:
    return bodygraph.calculate(datetime(1990, 7, 15, 14, 30, tzinfo=ZoneInfo("Europe/Berlin")))


@dataclass(frozen=True)
class Case:
    method: str
    args: tuple[Any, ...]
    schema: str
    data: Callable[[bodygraph.Chart], dict[str, Any]]
    visual: bool = False


CASES = [
    Case("chart", PLACE, "chart-result", bodygraph.Chart.to_v2),
    Case("chart_at", COORDS, "chart-result", bodygraph.Chart.to_v2),
    Case("chart_at", (52.52, 13.405, date(1990, 7, 15), time(14, 30)), "chart-result",
         bodygraph.Chart.to_v2),
    Case("simple_chart", PLACE, "chart-simple-result", bodygraph.Chart.to_v2_simple),
    Case("visual_chart", PLACE, "chart-result", bodygraph.Chart.to_v2, visual=True),
    Case("visual_chart_at", COORDS, "chart-result", bodygraph.Chart.to_v2, visual=True),
    Case("v1_bodygraph", ("15-Jul-90", "14:30", "Berlin, Germany"), "v1-bodygraph",
         bodygraph.Chart.to_v1),
    Case("v1_bodygraph", (date(1990, 7, 15), time(14, 30), "Berlin, Germany"), "v1-bodygraph",
         bodygraph.Chart.to_v1),
    Case("v1_simple_bodygraph", ("15-Jul-90", "14:30", "Berlin, Germany"),
         "v1-bodygraph-simple", bodygraph.Chart.to_v1_simple),
]
IDS = [f"{c.method}-{i}" for i, c in enumerate(CASES)]


def check(case: Case, result: Any, rate: RateLimit) -> None:

    chart = expected()
    if case.visual:
        assert isinstance(result, VisualChart)
        # a bearer link: no headers
        image = httpx.get(result.svg_render_url, timeout=30, verify=tls_context())
        assert image.status_code == 200
        assert image.headers["content-type"].startswith("image/svg+xml")
        assert image.text == svg(chart)
        result = result.chart
    validate_contract(result, case.schema)
    assert result == case.data(chart)
    assert rate.limit == 100 and rate.window == 60 and rate.policy == "100-in-1min"
    assert rate.remaining is not None and 0 <= rate.remaining < 100
    assert rate.reset is not None and 0 < rate.reset <= 60


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sync_method(service: Service, case: Case) -> None:
    issued = service.account()
    with Client(issued.api_key, base_url=service.base_url, geocode_key="geo-key",
                transport=loopback()) as client:
        assert client.rate_limit == RateLimit()
        result = getattr(client, case.method)(*case.args)
        check(case, result, client.rate_limit)
    account = service.book.account(issued.account.id)
    assert account.balance == account.plan.credits_per_month(account.billing) - 1


@pytest.mark.anyio
@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_async_method(service: Service, case: Case) -> None:
    issued = service.account()
    async with AsyncClient(issued.api_key, base_url=service.base_url,
                           geocode_key="geo-key", transport=async_loopback()) as client:
        result = await getattr(client, case.method)(*case.args)
        check(case, result, client.rate_limit)
    account = service.book.account(issued.account.id)
    assert account.balance == account.plan.credits_per_month(account.billing) - 1


def test_one_pool_many_calls_and_remaining_counts_down(service: Service) -> None:
    with Client(service.key(), base_url=service.base_url, transport=loopback()) as client:
        seen = []
        for _ in range(3):
            client.chart_at(*COORDS)
            seen.append(client.rate_limit.remaining)
    assert seen == [99, 98, 97]


def test_typed_access(service: Service) -> None:
    with Client(service.key(), base_url=service.base_url, geocode_key="geo-key",
                transport=loopback()) as client:
        result = client.chart(*PLACE)
    design = result["activations"]["design"]
    assert design["northNode"] == expected().to_v2()["activations"]["design"]["northNode"]
    assert result["birthDateUtc"] == "1990-07-15T12:30:00.000Z"
