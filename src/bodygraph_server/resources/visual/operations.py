"""The visual-chart operations: the full chart plus ``svgRenderUrl``, a signed link to its
rendered image (links based on the address the request came to unless configured)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from bodygraph.catalog.translations import pgettext
from bodygraph.render import RenderInput
from bodygraph_server.http.envelope import RENDER_URL_FIELD, Envelope, v2_success
from bodygraph_server.http.errors import ErrorCode
from bodygraph_server.http.openapi import sentences
from bodygraph_server.http.operation import Handler, Operation
from bodygraph_server.images.route import picture_url
from bodygraph_server.images.templates import TemplateHub
from bodygraph_server.images.tokens import KeyRing
from bodygraph_server.resources.charts.flow import (
    ChartEndpoint,
    ChartRequest,
    Formatter,
    InputKind,
    chart_labels,
    chart_operation,
    serve_chart,
)
from bodygraph_server.resources.charts.operations import (
    CHART_RESULT,
    GENERATED,
    GENERATED_FROM_COORDINATES,
)
from bodygraph_server.services import services_of

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart

VISUAL_PATH = "/v2/visual-charts"
VISUAL_COORDINATES_PATH = "/v2/visual-charts/coordinates"
VISUAL_PATHS = (VISUAL_PATH, VISUAL_COORDINATES_PATH)
VISUAL_ENVELOPE = Envelope(CHART_RESULT, picture=True, picture_required=True, place=True,
                           named="VisualChartEnvelope")


def svg_render_url(chart: Chart, *, account_id: int, keys: KeyRing, hub: TemplateHub,
                   render_base: str) -> str:
    """The image link of ``chart`` for an account: its active template, the newest key."""
    return picture_url(RenderInput.from_chart(chart), account_id=account_id, keys=keys,
                       hub=hub, render_base=render_base)


def visual_format(message: str, request_base_url: str = "") -> Formatter:
    """The formatter of a visual endpoint; links are based on
    ``settings.render_base(request_base_url)``."""

    def format_visual(request: ChartRequest, chart: Chart) -> dict[str, Any]:
        services = request.services
        base = services.settings.render_base(request_base_url)
        url = svg_render_url(chart, account_id=request.principal.account_id,
                             keys=services.keys, hub=services.templates, render_base=base)
        data = chart.to_v2()
        return v2_success(data, type_name=CHART_RESULT, message=message,
                          extra={RENDER_URL_FIELD: url, **chart_labels(request, chart, data)})

    return format_visual


def visual_handler(endpoint: ChartEndpoint) -> Handler:
    """The Starlette endpoint of a visual-chart spec: the chart flow, with links based on
    the address this request came to (when no public or render URL is configured)."""

    async def serve(request: Request) -> Response:
        base = str(request.base_url)
        if services_of(request.scope).settings.render_url:
            base = ""  # not needed: render_url is absolute
        bound = replace(endpoint, format=visual_format(endpoint.success_message, base))
        return await serve_chart(bound, request)

    serve.__name__ = "serve_" + endpoint.path.strip("/").replace("/", "_").replace("-", "_")
    return serve


_NOTE = pgettext("openapi", "Public beta. The full chart plus svgRenderUrl, a non-expiring "
                 "bearer link to the rendered SVG (styled by the caller's active template, "
                 "default theme otherwise). Advanced tier. 1 credit.")


def _visual(path: str, kind: InputKind, *, summary: str, message: str, description: str,
            geocode_key_missing_status: int | None = None) -> ChartEndpoint:
    overrides = ({ErrorCode.GEOCODE_KEY_MISSING: geocode_key_missing_status}
                 if geocode_key_missing_status else {})
    return ChartEndpoint(path=path, kind=kind, format=visual_format(message), summary=summary,
                         success_type=CHART_RESULT, success_message=message,
                         success_schema=VISUAL_ENVELOPE.name, status_overrides=overrides,
                         description=sentences(description, _NOTE))


VISUAL_ENDPOINTS: tuple[ChartEndpoint, ChartEndpoint] = (
    _visual(VISUAL_PATH, "location", summary=pgettext("openapi", "Chart with rendered image"),
            message=GENERATED,
            description=pgettext(
                "openapi", "Geocodes the location with the caller's HD-Geocode-Key. A missing "
                "HD-Geocode-Key is 400 GEOCODE_KEY_MISSING here."),
            geocode_key_missing_status=400),
    _visual(VISUAL_COORDINATES_PATH, "coordinates",
            summary=pgettext("openapi", "Chart with rendered image from coordinates"),
            message=GENERATED_FROM_COORDINATES,
            description=pgettext(
                "openapi", "Resolves the time zone from lat and lng (no geocoding).")),
)
"""The two visual-chart endpoint specs."""
OPERATIONS: tuple[Operation, ...] = tuple(chart_operation(e, visual_handler(e))
                                          for e in VISUAL_ENDPOINTS)


def schemas() -> dict[str, Any]:
    """``VisualChartEnvelope``: the ChartResult envelope plus a required svgRenderUrl."""
    return {VISUAL_ENVELOPE.name: VISUAL_ENVELOPE.schema()}
