"""The astrology methods of both clients against the real service (uvicorn on 127.0.0.1):
each result validates against the service's own ``/openapi.json`` and equals what the
library computes in this process for the same birth; the wheel's link serves its SVG and
PNG; the typed dictionaries match the published schemas; bad input raises
:class:`InvalidInput`, a Basic key :class:`AccessDenied`, and costs nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import httpx
import pytest
from server.support import tls_context

import bodygraph
from bodygraph.relations.astro import astro
from bodygraph.rules.hologenetic import hologenetic_profile
from bodygraph_client import (
    AccessDenied,
    AstroResult,
    AsyncClient,
    Client,
    HologeneticProfileResult,
    InvalidInput,
    WheelChart,
    WheelChartResult,
)

from .conftest import Service, async_loopback, loopback
from .schema_check import conforms

pytestmark = pytest.mark.timeout(300)

UTC_BIRTH = datetime(1990, 7, 15, 14, 30, tzinfo=ZoneInfo("Europe/Berlin"))
AT = (52.52, 13.405, "1990-07-15", "14:30")
SKY = datetime(2027, 1, 1, tzinfo=UTC)
BODIES = [b.value for b in bodygraph.model.chart.BODIES]


def _wheel_data(transit: bool) -> dict[str, Any]:
    chart = bodygraph.calculate(UTC_BIRTH)
    sky = bodygraph.calculate(SKY) if transit else None

    def ring(side: Any) -> dict[str, float]:
        return {body: a.longitude for body, a in zip(BODIES, side, strict=True)}

    return {"personality": ring(chart.personality), "design": ring(chart.design),
            "transit": None if sky is None else ring(sky.personality)}


@dataclass(frozen=True)
class Case:
    method: str
    args: tuple[Any, ...]
    schema: str
    expected: Callable[[], Any]


CASES = [
    Case("hologenetic_profile_at", AT, "HologeneticProfileResult",
         lambda: hologenetic_profile(bodygraph.calculate(UTC_BIRTH)).to_dict()),
    Case("hologenetic_profile", ("1990-07-15", "14:30", "Berlin, Germany"),
         "HologeneticProfileResult",
         lambda: hologenetic_profile(bodygraph.calculate(UTC_BIRTH)).to_dict()),
    Case("astro_at", AT, "AstroResult", lambda: astro(UTC_BIRTH, 52.52, 13.405).to_dict()),
    Case("astro_at", (*AT, "whole-sign"), "AstroResult",
         lambda: astro(UTC_BIRTH, 52.52, 13.405, houses="whole-sign").to_dict()),
    Case("wheel_chart_at", AT, "WheelChartResult", lambda: _wheel_data(False)),
    Case("wheel_chart_at", (*AT, SKY, "dark"), "WheelChartResult", lambda: _wheel_data(True)),
]
IDS = [f"{c.method}-{i}" for i, c in enumerate(CASES)]


def check(service: Service, case: Case, result: Any, openapi: dict[str, Any]) -> None:
    import jsonschema

    if isinstance(result, WheelChart):
        link = urlsplit(result.svg_render_url)
        theme = "dark" if "dark" in case.args else "default"
        assert link.path == f"/render/{theme}.svg"
        with httpx.Client(base_url=service.base_url, verify=tls_context()) as http:
            svg = http.get(f"{link.path}?{link.query}")
            assert svg.status_code == 200 and 'class="wheel"' in svg.text
            png = http.get(f"/render/{theme}.png?{link.query}")
            assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
        result = result.longitudes
    schema = {**openapi, "$ref": f"#/components/schemas/{case.schema}"}
    jsonschema.Draft202012Validator(schema).validate(result)
    assert result == case.expected()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sync_method(service: Service, openapi: dict[str, Any], case: Case) -> None:
    issued = service.account()
    with Client(issued.api_key, base_url=service.base_url, geocode_key="geo-key",
                transport=loopback()) as client:
        result = getattr(client, case.method)(*case.args)
    check(service, case, result, openapi)
    service.assert_charged(issued.account.id, 1)


@pytest.mark.anyio
@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_async_method(service: Service, openapi: dict[str, Any], case: Case) -> None:
    issued = service.account()
    async with AsyncClient(issued.api_key, base_url=service.base_url,
                           geocode_key="geo-key", transport=async_loopback()) as client:
        result = await getattr(client, case.method)(*case.args)
    check(service, case, result, openapi)
    service.assert_charged(issued.account.id, 1)


@pytest.mark.parametrize(("kind", "name"), [
    (HologeneticProfileResult, "HologeneticProfileResult"), (AstroResult, "AstroResult"),
    (WheelChartResult, "WheelChartResult")])
def test_typed_dict_matches_openapi(openapi: dict[str, Any], kind: Any, name: str) -> None:
    conforms(kind, {"$ref": f"#/components/schemas/{name}"}, name, openapi)


def test_refusals(service: Service) -> None:
    issued = service.account()
    with Client(issued.api_key, base_url=service.base_url, transport=loopback()) as client:
        with pytest.raises(InvalidInput) as unknown:
            client.astro_at(*AT, houses="koch")  # type: ignore[arg-type]
        assert unknown.value.error_code == "INVALID_OPTION" and unknown.value.status == 400
        assert "placidus, whole-sign" in str(unknown.value)
        with pytest.raises(InvalidInput) as pole:
            client.astro_at(90.0, 0.0, "1990-07-15", "14:30")
        assert pole.value.error_code == "INVALID_LATITUDE"
        with pytest.raises(InvalidInput) as theme:
            client.wheel_chart_at(*AT, theme="neon")  # type: ignore[arg-type]
        assert theme.value.error_code == "INVALID_OPTION"
    service.assert_charged(issued.account.id, 0)
    basic = service.key("hobbyist")
    with (Client(basic, base_url=service.base_url, transport=loopback()) as client,
          pytest.raises(AccessDenied)):
        client.hologenetic_profile_at(*AT)
