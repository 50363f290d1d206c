"""The visual-chart endpoints: the full chart plus a signed link to its rendered image.

``POST /v2/visual-charts`` (location, HD-Geocode-Key required; a missing key is
GEOCODE_KEY_MISSING with status 400 here) and ``POST /v2/visual-charts/coordinates``
return the same envelope as the full-chart endpoints (``type`` ChartResult) plus a
top-level ``svgRenderUrl``: ``{render_url}/<active template id | default>.svg?t=<token>``.
They are Advanced-tier (below Advanced: 403 ACCESS_DENIED) and cost 1 credit per
success, like every chart endpoint (:mod:`bodygraph_server.endpoint` does the checks).

Join them to the app with ``create_app(extra_endpoints=visual_endpoints(keys, hub))``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bodygraph.render import RenderInput
from bodygraph_server.endpoint import Call, Endpoint, Formatter
from bodygraph_server.envelope import v2_success
from bodygraph_server.render import render_link
from bodygraph_server.templates import TemplateHub
from bodygraph_server.tokens import KeyRing, issue
from bodygraph_server.v2 import CHART_RESULT, GENERATED, GENERATED_FROM_COORDINATES

if TYPE_CHECKING:
    from bodygraph.chart import Chart

VISUAL_PATH = "/v2/visual-charts"
VISUAL_COORDINATES_PATH = "/v2/visual-charts/coordinates"
RENDER_URL_FIELD = "svgRenderUrl"


def svg_render_url(chart: Chart, call: Call, keys: KeyRing, hub: TemplateHub) -> str:
    """The image link of ``chart`` for the caller: their active template, newest key."""
    template_id = hub.active_id(call.principal.account_id)
    token = issue(RenderInput.from_chart(chart), keys)
    return render_link(call.services.settings.render_url, template_id, token)


def _formatter(message: str, keys: KeyRing, hub: TemplateHub) -> Formatter:
    def format_visual(call: Call, chart: Chart) -> dict[str, Any]:
        url = svg_render_url(chart, call, keys, hub)
        return v2_success(chart.to_v2(), type_name=CHART_RESULT, message=message,
                          extra={RENDER_URL_FIELD: url})

    return format_visual


def visual_endpoints(keys: KeyRing, hub: TemplateHub) -> tuple[Endpoint, Endpoint]:
    """The two visual-chart endpoints, signing with ``keys`` and styling through ``hub``."""
    note = ("Public beta. The full chart plus svgRenderUrl, a non-expiring bearer link to "
            "the rendered SVG (styled by the caller's active template). Advanced tier. "
            "1 credit.")
    return (
        Endpoint(
            path=VISUAL_PATH,
            kind="location",
            format=_formatter(GENERATED, keys, hub),
            summary="Chart with rendered image",
            success_type=CHART_RESULT,
            success_message=GENERATED,
            geocode_key_missing_status=400,
            description="Geocodes the location with the caller's HD-Geocode-Key. " + note,
        ),
        Endpoint(
            path=VISUAL_COORDINATES_PATH,
            kind="coordinates",
            format=_formatter(GENERATED_FROM_COORDINATES, keys, hub),
            summary="Chart with rendered image from coordinates",
            success_type=CHART_RESULT,
            success_message=GENERATED_FROM_COORDINATES,
            description="Resolves the time zone from lat and lng (no geocoding). " + note,
        ),
    )
