"""The v2 chart endpoints: parse -> chart -> envelope (contract section 4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bodygraph_server.http.endpoint import Call, Endpoint
from bodygraph_server.http.envelope import v2_success

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart

CHART_RESULT = "ChartResult"
CHART_SIMPLE_RESULT = "ChartSimpleResult"
GENERATED = "Chart generated"
GENERATED_FROM_COORDINATES = "Chart generated from coordinates"


def full_chart(call: Call, chart: Chart) -> dict[str, Any]:
    """Envelope with the full ChartResult."""
    return v2_success(chart.to_v2(), type_name=CHART_RESULT, message=GENERATED)


def simple_chart(call: Call, chart: Chart) -> dict[str, Any]:
    """Envelope with the simplified chart."""
    return v2_success(chart.to_v2_simple(), type_name=CHART_SIMPLE_RESULT, message=GENERATED)


def coordinates_chart(call: Call, chart: Chart) -> dict[str, Any]:
    """Envelope with the full ChartResult, coordinates wording."""
    return v2_success(chart.to_v2(), type_name=CHART_RESULT, message=GENERATED_FROM_COORDINATES)


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint(
        path="/v2/charts",
        kind="location",
        format=full_chart,
        summary="Full chart",
        blocking_format=False,
        success_type=CHART_RESULT,
        success_message=GENERATED,
        description="Geocodes the location with the caller's HD-Geocode-Key, resolves the "
        "time zone of the place and returns the full chart. Advanced tier. 1 credit.",
    ),
    Endpoint(
        path="/v2/charts/simple",
        kind="location",
        format=simple_chart,
        summary="Simple chart",
        blocking_format=False,
        success_type=CHART_SIMPLE_RESULT,
        success_message=GENERATED,
        description="Type, profile, gates, channelsShort and centers of the chart. Basic and "
        "Advanced tiers. 1 credit.",
    ),
    Endpoint(
        path="/v2/charts/coordinates",
        kind="coordinates",
        format=coordinates_chart,
        summary="Full chart from coordinates",
        blocking_format=False,
        success_type=CHART_RESULT,
        success_message=GENERATED_FROM_COORDINATES,
        description="Resolves the time zone from lat and lng (no geocoding) and returns the "
        "full chart. Advanced tier. 1 credit.",
    ),
)
"""The v2 chart endpoints; the visual-chart endpoints are in :mod:`bodygraph_server.http.visual`."""
