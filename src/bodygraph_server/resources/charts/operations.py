"""The v2 chart operations: parse -> chart -> envelope (contract section 4)."""

from __future__ import annotations

from operator import methodcaller
from typing import TYPE_CHECKING, Any

from bodygraph.catalog.translations import pgettext
from bodygraph_server.http.envelope import Envelope, v2_success
from bodygraph_server.http.operation import Operation
from bodygraph_server.resources.charts.flow import (
    ChartEndpoint,
    ChartRequest,
    InputKind,
    chart_labels,
    chart_operation,
)

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart

CHART_RESULT = "ChartResult"
CHART_SIMPLE_RESULT = "ChartSimpleResult"
GENERATED = "Chart generated"
GENERATED_FROM_COORDINATES = "Chart generated from coordinates"


def _enveloped(
    path: str, kind: InputKind, *, method: str, summary: str, success_type: str,
    message: str, description: str,
) -> ChartEndpoint:
    """A v2 endpoint answering with ``chart.<method>()`` in the success envelope."""
    result = methodcaller(method)

    def format_chart(request: ChartRequest, chart: Chart) -> dict[str, Any]:
        data = result(chart)
        return v2_success(data, type_name=success_type, message=message,
                          extra=chart_labels(request, chart, data))

    return ChartEndpoint(
        path=path, kind=kind, summary=summary, blocking_format=False, format=format_chart,
        success_type=success_type, success_message=message, description=description,
    )


ENDPOINTS: tuple[ChartEndpoint, ...] = (
    _enveloped("/v2/charts", "location", method="to_v2",
               summary=pgettext("openapi", "Full chart"),
               success_type=CHART_RESULT, message=GENERATED,
               description=pgettext(
                   "openapi", "Geocodes the location with the caller's HD-Geocode-Key, resolves "
                   "the time zone of the place and returns the full chart. Advanced tier. 1 "
                   "credit.")),
    _enveloped("/v2/charts/simple", "location", method="to_v2_simple",
               summary=pgettext("openapi", "Simple chart"),
               success_type=CHART_SIMPLE_RESULT, message=GENERATED,
               description=pgettext(
                   "openapi", "Type, profile, gates, channelsShort and centers of the chart. "
                   "Basic and Advanced tiers. 1 credit.")),
    _enveloped("/v2/charts/coordinates", "coordinates", method="to_v2",
               summary=pgettext("openapi", "Full chart from coordinates"),
               success_type=CHART_RESULT,
               message=GENERATED_FROM_COORDINATES,
               description=pgettext(
                   "openapi", "Resolves the time zone from lat and lng (no geocoding) and "
                   "returns the full chart. Advanced tier. 1 credit.")),
)
"""The v2 chart endpoints."""
OPERATIONS: tuple[Operation, ...] = tuple(chart_operation(e) for e in ENDPOINTS)

ENVELOPES = (Envelope(CHART_RESULT, place=True), Envelope(CHART_SIMPLE_RESULT, place=True))


def schemas() -> dict[str, Any]:
    """The result schemas (the library's own, ``bodygraph.model.contract.json_schema``)
    and their envelopes."""
    from bodygraph_server.resources.chart_values import embedded

    return {CHART_RESULT: embedded("chart-result"),
            CHART_SIMPLE_RESULT: embedded("chart-simple-result"),
            **{e.name: e.schema() for e in ENVELOPES}}
