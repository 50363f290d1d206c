"""The image route as two operations, ``GET {render_path}/{template}.svg`` and ``.png``
(one Starlette route): a bearer link, nothing stored, no credit charged."""

from __future__ import annotations

from typing import Any

from bodygraph.catalog.translations import pgettext
from bodygraph.render import PRESET_NAMES
from bodygraph_server.http.openapi import Said, sentences
from bodygraph_server.http.operation import Answer, Handler, Operation
from bodygraph_server.images.route import IMAGE_ROUTE
from bodygraph_server.images.throttle import RENDER_BURST, RENDER_RATE
from bodygraph_server.images.tokens import TOKEN_PATTERN

TEMPLATE_PATTERN = ("^(default|" + "|".join(PRESET_NAMES)
                    + "|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")
_REFUSAL = {"$ref": "#/components/schemas/RenderRefusal"}
_NO_STORE = {"Cache-Control": {"description": "no-store", "schema": {"type": "string"}}}


def _refused(description: str) -> Answer:
    return Answer(description=description, schema=_REFUSAL, headers=_NO_STORE)


def image_operation(image_format: str, render_path: str, handler: Handler) -> Operation:
    """The image route for ``.svg`` or ``.png`` (the same token and checks, rasterised for
    e-mail and social previews)."""
    png = image_format == "png"
    refusals = {
        400: _refused("RENDER_TOKEN_MALFORMED: no t, or text that cannot be a token; "
                      "INVALID_LANGUAGE: lang unknown or given twice"),
        403: _refused("RENDER_TOKEN_INVALID: the signature does not verify (or the token "
                      "was issued for another template)"),
        404: _refused("NOT_FOUND: neither default, a shipped theme nor a template UUID"),
        429: _refused(f"RATE_LIMIT_EXCEEDED: more than {RENDER_BURST} images at once or "
                      f"{RENDER_RATE:g} per second from one client address (per worker); "
                      "Retry-After says when to retry"),
        503: _refused("TEMPLATE_STORE_UNAVAILABLE: the templates cannot be read"
                      + ("; PNG_UNAVAILABLE: this server cannot rasterise (the .svg link "
                         "still works)" if png else "")),
    }
    base = render_path.rstrip("/")
    return Operation(
        method="GET", path=f"{base}/{{template}}.{image_format}",
        route_path=base + IMAGE_ROUTE,
        summary=pgettext("openapi", "Rendered chart image (PNG)") if png
        else pgettext("openapi", "Rendered chart image"),
        description=sentences(pgettext(
            "openapi", "The PNG of a visual chart: the svgRenderUrl link with .png for .svg.")
            if png else pgettext("openapi", "The SVG of a visual chart: the link in svgRenderUrl."),
            pgettext("openapi", "A bearer link (no headers); the token is verified before "
                     "anything renders. Nothing is stored. No credit is charged.")),
        operation_id="render_image_png" if png else "render_image",
        tags=("images",), handler=handler,
        parameters=(
            {"name": "template", "in": "path", "required": True,
             "description": Said(pgettext(
                 "openapi", "the template's UUID (canonical: lower case, hyphenated), "
                 "default, or a shipped theme ({themes}: a wheel link's theme)"),
                 themes=", ".join(PRESET_NAMES)),
             "schema": {"type": "string", "pattern": TEMPLATE_PATTERN}},
            {"name": "t", "in": "query", "required": True,
             "description": pgettext(
                 "openapi", "the sealed, signed render token (key id, a dot, a body of "
                 "base64url characters of one of the token versions' lengths), given once; "
                 "bound to the template of the path"),
             "schema": {"type": "string", "pattern": TOKEN_PATTERN}},
            {"name": "lang", "in": "query", "required": False,
             "description": pgettext(
                 "openapi", "the language of the image's words (en by default); outside "
                 "the token, it changes nothing else. The svgRenderUrl of an answer asked "
                 "with lang carries it."),
             "schema": {"$ref": "#/components/schemas/Language"}},
        ),
        success=Answer(description="the image",
                       media_type="image/png" if png else "image/svg+xml",
                       schema={"type": "string"},
                       headers={"Cache-Control": {
                           "description": "public, max-age=31536000, immutable",
                           "schema": {"type": "string"}}}),
        refusals=refusals,
    )


def render_operations(render_path: str, handler: Handler) -> tuple[Operation, Operation]:
    """The ``.svg`` and ``.png`` operations of the image route at ``render_path``."""
    return (image_operation("svg", render_path, handler),
            image_operation("png", render_path, handler))


def schemas() -> dict[str, Any]:
    """``RenderRefusal``: the image route's refusal body."""
    return {"RenderRefusal": {
        "type": "object",
        "required": ["success", "errorCode", "message"],
        "properties": {
            "success": {"const": False},
            "errorCode": {"type": "string"},
            "message": {"type": "string"},
        },
    }}
