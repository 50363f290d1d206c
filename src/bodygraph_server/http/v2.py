"""The v2 chart endpoints: parse -> chart -> envelope (contract section 4)."""

from __future__ import annotations

from operator import methodcaller

from bodygraph_server.http.endpoint import Endpoint, InputKind
from bodygraph_server.http.envelope import v2_success

CHART_RESULT = "ChartResult"
CHART_SIMPLE_RESULT = "ChartSimpleResult"
GENERATED = "Chart generated"
GENERATED_FROM_COORDINATES = "Chart generated from coordinates"


def _enveloped(
    path: str, kind: InputKind, method: str, summary: str, success_type: str, message: str,
    description: str,
) -> Endpoint:
    """A v2 endpoint answering with ``chart.<method>()`` in the success envelope."""
    result = methodcaller(method)
    return Endpoint(
        path=path, kind=kind, summary=summary, blocking_format=False,
        format=lambda call, chart: v2_success(result(chart), type_name=success_type,
                                              message=message),
        success_type=success_type, success_message=message, description=description,
    )


ENDPOINTS: tuple[Endpoint, ...] = (
    _enveloped("/v2/charts", "location", "to_v2", "Full chart", CHART_RESULT, GENERATED,
               "Geocodes the location with the caller's HD-Geocode-Key, resolves the time "
               "zone of the place and returns the full chart. Advanced tier. 1 credit."),
    _enveloped("/v2/charts/simple", "location", "to_v2_simple", "Simple chart",
               CHART_SIMPLE_RESULT, GENERATED,
               "Type, profile, gates, channelsShort and centers of the chart. Basic and "
               "Advanced tiers. 1 credit."),
    _enveloped("/v2/charts/coordinates", "coordinates", "to_v2", "Full chart from coordinates",
               CHART_RESULT, GENERATED_FROM_COORDINATES,
               "Resolves the time zone from lat and lng (no geocoding) and returns the full "
               "chart. Advanced tier. 1 credit."),
)
"""The v2 chart endpoints; the visual-chart endpoints are in :mod:`bodygraph_server.http.visual`."""
