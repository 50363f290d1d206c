"""The visual-chart endpoints: the full chart plus a signed link to its rendered image.

``POST /v2/visual-charts`` (location, HD-Geocode-Key required; a missing key is
GEOCODE_KEY_MISSING with status 400 here) and ``POST /v2/visual-charts/coordinates``
return the same envelope as the full-chart endpoints (``type`` ChartResult) plus a
top-level ``svgRenderUrl``: ``{render_url}/<active template id | default>.svg?t=<token>``.
They are Advanced-tier (below Advanced: 403 ACCESS_DENIED) and cost 1 credit per
success, like every chart endpoint (:mod:`bodygraph_server.http.endpoint` does the checks).

The signing keys and the templates come from the app's :class:`~bodygraph_server.services.
Services`; the link's base is ``Settings.render_base`` of the request's address
(:func:`visual_handler`), so ``create_app`` serves :data:`VISUAL_ENDPOINTS` with
:func:`visual_handler`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from bodygraph.render import RenderInput
from bodygraph_server.http.endpoint import Call, Endpoint, Formatter, InputKind, handler
from bodygraph_server.http.envelope import v2_success
from bodygraph_server.http.v2 import CHART_RESULT, GENERATED, GENERATED_FROM_COORDINATES
from bodygraph_server.images.overlay_tokens import Picture, issue_picture
from bodygraph_server.images.route import render_link, template_name
from bodygraph_server.images.templates import TemplateHub
from bodygraph_server.images.tokens import KeyRing
from bodygraph_server.services import services_of

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart

VISUAL_PATH = "/v2/visual-charts"
VISUAL_COORDINATES_PATH = "/v2/visual-charts/coordinates"
VISUAL_PATHS = (VISUAL_PATH, VISUAL_COORDINATES_PATH)
RENDER_URL_FIELD = "svgRenderUrl"


def picture_url(picture: Picture, account_id: int, keys: KeyRing, hub: TemplateHub,
                render_base: str) -> str:
    """The image link of ``picture`` (a chart, a transit, a connection) for an account:
    its active template, the newest key (blocking: the template store is asked)."""
    template_id = hub.active_id(account_id)
    token = issue_picture(picture, keys, template_name(template_id))
    return render_link(render_base, template_id, token)


def svg_render_url(chart: Chart, account_id: int, keys: KeyRing, hub: TemplateHub,
                   render_base: str) -> str:
    """The image link of ``chart`` for an account: its active template, the newest key."""
    return picture_url(RenderInput.from_chart(chart), account_id, keys, hub, render_base)


def visual_format(message: str, request_base_url: str = "") -> Formatter:
    """The formatter of a visual endpoint; links are based on
    ``settings.render_base(request_base_url)``."""

    def format_visual(call: Call, chart: Chart) -> dict[str, Any]:
        services = call.services
        base = services.settings.render_base(request_base_url)
        url = svg_render_url(chart, call.principal.account_id, services.keys,
                             services.templates, base)
        return v2_success(chart.to_v2(), type_name=CHART_RESULT, message=message,
                          extra={RENDER_URL_FIELD: url})

    return format_visual


def visual_handler(endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette endpoint of a visual-chart spec: the spec's checks and charging, with
    links based on the address this request came to (when no public or render URL is
    configured)."""

    async def serve(request: Request) -> Response:
        base = str(request.base_url)
        if services_of(request.scope).settings.render_url:
            base = ""  # not needed: render_url is absolute
        bound = replace(endpoint, format=visual_format(endpoint.success_message, base))
        return await handler(bound)(request)

    serve.__name__ = "serve_" + endpoint.path.strip("/").replace("/", "_").replace("-", "_")
    return serve


_NOTE = ("Public beta. The full chart plus svgRenderUrl, a non-expiring bearer link to the "
         "rendered SVG (styled by the caller's active template, default theme otherwise). "
         "Advanced tier. 1 credit.")


def _visual(path: str, kind: InputKind, summary: str, message: str, description: str,
            geocode_key_missing_status: int | None = None) -> Endpoint:
    return Endpoint(path=path, kind=kind, format=visual_format(message), summary=summary,
                    success_type=CHART_RESULT, success_message=message,
                    geocode_key_missing_status=geocode_key_missing_status,
                    description=description + " " + _NOTE)


VISUAL_ENDPOINTS: tuple[Endpoint, Endpoint] = (
    _visual(VISUAL_PATH, "location", "Chart with rendered image", GENERATED,
            "Geocodes the location with the caller's HD-Geocode-Key. A missing "
            "HD-Geocode-Key is 400 GEOCODE_KEY_MISSING here.",
            geocode_key_missing_status=400),
    _visual(VISUAL_COORDINATES_PATH, "coordinates", "Chart with rendered image from coordinates",
            GENERATED_FROM_COORDINATES, "Resolves the time zone from lat and lng (no geocoding)."),
)
"""The two visual-chart endpoint specs (serve them with :func:`visual_handler`)."""
