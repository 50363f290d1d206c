"""Both clients ask for a language (``Call.in_language``) against the real service
(uvicorn on 127.0.0.1): the usual result unchanged, the service's ``labels`` beside it
(the library's words), an unknown language refused as InvalidInput."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

import bodygraph
from bodygraph_client import AsyncClient, Client, InvalidInput, Labelled, calls
from bodygraph_client.extension_calls import calendar, transit

from .conftest import Service, async_loopback, loopback
from .samples import AT, BERLIN

pytestmark = pytest.mark.timeout(300)


def berlin() -> bodygraph.Chart:
    return bodygraph.calculate(datetime(1990, 7, 15, 14, 30, tzinfo=ZoneInfo("Europe/Berlin")))


@pytest.mark.parametrize("lang", ["de", "zh-Hans"])
def test_sync_client_in_a_language(service: Service, lang: str) -> None:
    with Client(service.key(), base_url=service.base_url, transport=loopback()) as client:
        plain = client.chart_at(52.52, 13.405, "1990-07-15", "14:30")
        asked = client.send(calls.chart_at(52.52, 13.405, "1990-07-15", "14:30")
                            .in_language(lang))
        assert isinstance(asked, Labelled) and asked.lang == lang
        assert asked.value == plain
        assert asked.labels == berlin().labels(lang)
        visual = client.send(calls.visual_chart_at(52.52, 13.405, "1990-07-15", "14:30")
                             .in_language(lang))
        assert visual.value.svg_render_url.endswith(f"&lang={lang}")
        assert visual.labels == asked.labels
        over = client.send(transit(AT, BERLIN).in_language(lang))
        assert over.labels["natal"]["overlay"]["type"] == bodygraph.catalog.translations.term(
            "type", over.value["natal"]["overlay"]["type"], lang)


@pytest.mark.anyio
async def test_async_client_in_a_language(service: Service) -> None:
    async with AsyncClient(service.key(), base_url=service.base_url,
                           transport=async_loopback()) as client:
        asked = await client.send(calendar("2024-01-01", "2024-01-01", ["sun", "moon"])
                                  .in_language("ja"))
        assert len(asked.labels) == len(asked.value) > 0
        assert all(set(label) == {"body"} for label in asked.labels)
        with pytest.raises(InvalidInput) as refused:
            await client.send(calls.chart_at(52.52, 13.405, "1990-07-15", "14:30")
                              .in_language("xx"))
        assert refused.value.error_code == "INVALID_LANGUAGE"


def test_v1_has_no_languages() -> None:
    with pytest.raises(ValueError, match="v1"):
        calls.v1_bodygraph("15-Jul-90", "14:30", "Berlin").in_language("de")
