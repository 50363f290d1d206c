"""The OpenAPI 3.1 document of the service (the human-readable page made from it is
:mod:`bodygraph_server.http.docs_page`).

The result schemas are the library's own (``bodygraph.model.contract.json_schema``), so the
document, the tests and the code share one definition. The visual-chart endpoints answer
with ``VisualChartEnvelope`` (the ChartResult envelope plus a required ``svgRenderUrl``);
the image route (``GET {render_path}/{template}.svg?t=`` and ``.png``) is described as well.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from bodygraph_server.http.endpoint import Endpoint
from bodygraph_server.http.errors import ERROR_TABLE, ErrorCode
from bodygraph_server.http.extension_schemas import EXTENSION_TYPES, extension_schemas
from bodygraph_server.http.fields import input_schemas
from bodygraph_server.images.throttle import RENDER_BURST, RENDER_RATE
from bodygraph_server.images.tokens import TOKEN_PATTERN
from bodygraph_server.policy.plans import Tier, tier_allows

_REF = "#/components/schemas/"
VISUAL_ENVELOPE = "VisualChartEnvelope"
_VISUAL_PATHS = ("/v2/visual-charts", "/v2/visual-charts/coordinates")
TEMPLATE_PATTERN = "^(default|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$"

_RESULT_SCHEMAS = {
    "ChartResult": "chart-result",
    "ChartSimpleResult": "chart-simple-result",
    "V1Bodygraph": "v1-bodygraph",
    "V1BodygraphSimple": "v1-bodygraph-simple",
}


# Which codes each kind of endpoint can answer, per status (documentation of section 7).
_COMMON_CODES = (
    ErrorCode.API_KEY_MISSING, ErrorCode.API_KEY_INVALID, ErrorCode.UNAUTHORIZED,
    ErrorCode.CREDITS_EXHAUSTED, ErrorCode.ACCESS_DENIED, ErrorCode.ACCOUNT_INACTIVE,
    ErrorCode.INVALID_BIRTHDATE, ErrorCode.INVALID_BIRTHTIME,
    ErrorCode.MISSING_REQUIRED_FIELD, ErrorCode.INVALID_REQUEST_BODY,
    ErrorCode.RATE_LIMIT_EXCEEDED, ErrorCode.TIMEZONE_LOOKUP_FAILED,
    ErrorCode.EPHEMERIS_ERROR, ErrorCode.CHART_GENERATION_FAILED, ErrorCode.INTERNAL_ERROR,
)
_LOCATION_CODES = (
    ErrorCode.GEOCODE_KEY_MISSING, ErrorCode.INVALID_LOCATION, ErrorCode.GEOCODE_FAILED,
    ErrorCode.GEOCODE_KEY_INVALID, ErrorCode.GEOCODE_LOCATION_NOT_FOUND,
    ErrorCode.GEOCODE_RATE_LIMITED,
)
_COORDINATE_CODES = (ErrorCode.INVALID_LATITUDE, ErrorCode.INVALID_LONGITUDE)


def _embedded(name: str) -> dict[str, Any]:
    """A library JSON Schema made fit for ``components.schemas``."""
    from bodygraph.model.contract import json_schema

    schema = dict(json_schema(name))
    for key in ("$schema", "$id"):
        schema.pop(key, None)
    return schema


def _codes(endpoint: Endpoint) -> list[ErrorCode]:
    if endpoint.error_codes:
        return list(endpoint.error_codes)
    specific = _COORDINATE_CODES if endpoint.kind == "coordinates" else _LOCATION_CODES
    return [*_COMMON_CODES, *specific]


def _status(endpoint: Endpoint, code: ErrorCode) -> int:
    if code is ErrorCode.GEOCODE_KEY_MISSING and endpoint.geocode_key_missing_status:
        return endpoint.geocode_key_missing_status
    return ERROR_TABLE[code].status


_RENDER_URL = {
    "type": "string", "format": "uri",
    "description": "{render_url}/<template-uuid|default>.svg?t=<token>: a "
    "non-expiring bearer link to the rendered SVG.",
}
PICTURE_TYPES = ("TransitResult", "ConnectionResult")
"""The extension envelopes that carry ``svgRenderUrl`` when asked (``"visual": true``)."""
PLACE_TYPES = ("ChartResult", "ChartSimpleResult", "TransitResult", "SensitivityResult",
               "CyclesResult")
"""The envelopes that carry ``place`` when their one birth was given by ``location``."""
PLACES_TYPES = ("ConnectionResult", "PentaResult")
"""The envelopes that carry ``places`` when one of their births was given by ``location``."""
_PLACE = {"$ref": _REF + "PlaceTaken"}
_PLACES = {"type": "array", "items": {"oneOf": [_PLACE, {"type": "null"}]},
           "description": "One entry per birth, in the body's order: the place taken for "
           "its location, null for a birth given by coordinates. Only when a birth was "
           "given by location."}


def _place_schema() -> dict[str, Any]:
    """``PlaceTaken``: the place a ``location`` was taken for (a sibling of ``data``)."""
    return {
        "type": "object",
        "required": ["name", "lat", "lng", "others", "note"],
        "additionalProperties": False,
        "description": "The place the location was taken for; only when the birth was "
        "given by location. A name several places share is not an error: the geocoder's "
        "best place is taken and note says so.",
        "properties": {
            "name": {"type": "string", "description": "The place with its region and "
                     "country, e.g. Springfield, Missouri, United States."},
            "lat": {"type": "number", "minimum": -90, "maximum": 90},
            "lng": {"type": "number", "minimum": -180, "maximum": 180},
            "others": {"type": "array", "items": {"type": "string"},
                       "description": "The other places of that name the location may "
                       "have meant, best first (empty when it was clear)."},
            "note": {"type": ["string", "null"], "description": "Which place was taken, "
                     "the others, and how to choose one; null when the name was clear."},
        },
    }


def _envelope_schemas(types: Iterable[str]) -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    for type_name in types:
        schemas[f"{type_name}Envelope"] = {
            "type": "object",
            "required": ["timestamp", "success", "message", "errorCode", "type", "data"],
            "properties": {
                "timestamp": {"type": "string", "format": "date-time"},
                "success": {"const": True},
                "message": {"type": "string"},
                "errorCode": {"const": ""},
                "type": {"const": type_name},
                "data": {"$ref": _REF + type_name},
            },
        }
        if type_name in PICTURE_TYPES:
            schemas[f"{type_name}Envelope"]["properties"]["svgRenderUrl"] = _RENDER_URL
        if type_name in PLACE_TYPES:
            schemas[f"{type_name}Envelope"]["properties"]["place"] = _PLACE
        if type_name in PLACES_TYPES:
            schemas[f"{type_name}Envelope"]["properties"]["places"] = _PLACES
    schemas[VISUAL_ENVELOPE] = {
        "type": "object",
        "required": ["timestamp", "success", "message", "errorCode", "type", "data",
                     "svgRenderUrl"],
        "properties": {
            "timestamp": {"type": "string", "format": "date-time"},
            "success": {"const": True},
            "message": {"type": "string"},
            "errorCode": {"const": ""},
            "type": {"const": "ChartResult"},
            "data": {"$ref": _REF + "ChartResult"},
            "svgRenderUrl": _RENDER_URL,
            "place": _PLACE,
        },
    }
    schemas["PlaceTaken"] = _place_schema()
    schemas["RenderRefusal"] = {
        "type": "object",
        "required": ["success", "errorCode", "message"],
        "properties": {
            "success": {"const": False},
            "errorCode": {"type": "string"},
            "message": {"type": "string"},
        },
    }
    schemas["ErrorEnvelope"] = {
        "type": "object",
        "required": ["timestamp", "success", "message", "errorCode", "type", "data"],
        "additionalProperties": False,
        "properties": {
            "timestamp": {"type": "string", "format": "date-time"},
            "success": {"const": False},
            "message": {"type": "string"},
            "errorCode": {"type": "string", "enum": [c.value for c in ErrorCode]},
            "type": {"const": ""},
            "data": {"type": "null"},
        },
    }
    schemas["V1Error"] = {
        "type": "object",
        "required": ["status", "code", "message"],
        "additionalProperties": False,
        "properties": {
            "status": {"const": "error"},
            "code": {"type": "integer", "description": "the HTTP status"},
            "message": {"type": "string"},
        },
    }
    return schemas


def _header(description: str, type_: str = "string") -> dict[str, Any]:
    return {"description": description, "schema": {"type": type_}}


_RATE_HEADERS = {
    "ratelimit-policy": _header('e.g. "100-in-1min"; q=100; w=60; pk=:...:'),
    "ratelimit": _header('e.g. "100-in-1min"; r=99; t=60'),
    "X-Request-Id": _header("id of this request, also in the server log"),
}


def _operation(endpoint: Endpoint, geocode_key_required: bool = True) -> dict[str, Any]:
    legacy = endpoint.legacy
    error_ref = {"$ref": _REF + ("V1Error" if legacy else "ErrorEnvelope")}
    by_status: dict[int, list[ErrorCode]] = {}
    for code in _codes(endpoint):
        by_status.setdefault(_status(endpoint, code), []).append(code)
    by_status.setdefault(404, []).append(ErrorCode.NOT_FOUND)
    by_status.setdefault(413, []).append(ErrorCode.INVALID_REQUEST_BODY)
    # Every operation is a charged endpoint: each takes an Idempotency-Key.
    extra = [ErrorCode.SERVICE_UNAVAILABLE, ErrorCode.IDEMPOTENCY_KEY_INVALID,
             ErrorCode.IDEMPOTENCY_KEY_REUSED, ErrorCode.IDEMPOTENCY_KEY_IN_USE]
    for code in extra:
        by_status.setdefault(_status(endpoint, code), []).append(code)
    if legacy:
        success = {"$ref": _REF + endpoint.success_type}
    elif endpoint.path in _VISUAL_PATHS:
        success = {"$ref": _REF + VISUAL_ENVELOPE}
    else:
        success = {"$ref": _REF + f"{endpoint.success_type}Envelope"}
    responses: dict[str, Any] = {
        "200": {
            "description": endpoint.success_message or "the chart",
            "headers": _RATE_HEADERS,
            "content": {"application/json": {"schema": success}},
        }
    }
    for status in sorted(by_status):
        headers = dict(_RATE_HEADERS)
        if status in (409, 429, 503):
            headers["Retry-After"] = _header("seconds to wait", "integer")
        responses[str(status)] = {
            "description": ", ".join(c.value for c in by_status[status]),
            "headers": headers,
            "content": {"application/json": {"schema": error_ref}},
        }
    parameters = []
    optional = (not endpoint.needs_geocode_key
                and ErrorCode.GEOCODE_KEY_MISSING in endpoint.error_codes)
    if not geocode_key_required and (endpoint.needs_geocode_key or optional):
        parameters.append({
            "name": "HD-Geocode-Key",
            "in": "header",
            "required": False,
            "description": "Not needed on this service: it looks places up in its own "
            "gazetteer (the header is ignored).",
            "schema": {"type": "string"},
        })
    elif endpoint.needs_geocode_key or optional:
        parameters.append({
            "name": "HD-Geocode-Key",
            "in": "header",
            "required": not optional,
            "description": "The caller's key of the geocoding service."
            + (" Needed when a birth is given by location." if optional else ""),
            "schema": {"type": "string", "minLength": 0 if optional else 1},
        })
    parameters.append({
        "name": "Idempotency-Key",
        "in": "header",
        "required": False,
        "description": "A retry with the same key and body within 24 hours is answered "
        "again and charged once (docs/api.md, Idempotent retries; an extension of the "
        "contract).",
        "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    })
    input_name = endpoint.request_schema or {
        "location": "ChartInput", "coordinates": "CoordinatesInput", "v1": "V1Input"
    }[endpoint.kind]
    tiers = "Basic, Advanced" if tier_allows(Tier.BASIC, endpoint.path) else "Advanced"
    return {
        "summary": endpoint.summary,
        "description": f"{endpoint.description}\n\nAccess tiers: {tiers}.",
        "operationId": endpoint.path.strip("/").replace("/", "_").replace("-", "_"),
        "tags": ["v1 (legacy)" if legacy else "v2"],
        "security": [{"v1ApiKey": []}] if legacy else [{"bearerAuth": []}],
        "parameters": parameters,
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": _REF + input_name}}},
        },
        "responses": responses,
    }


def _refused(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "headers": {"Cache-Control": _header("no-store")},
        "content": {"application/json": {"schema": {"$ref": _REF + "RenderRefusal"}}},
    }


def render_operation(image_format: str = "svg") -> dict[str, Any]:
    """The image route: ``GET {render_path}/{template}.svg?t=<token>`` (or ``.png``, the same
    token and checks, rasterised for e-mail and social previews)."""
    png = image_format == "png"
    media = "image/png" if png else "image/svg+xml"
    refusals = {"503": _refused("TEMPLATE_STORE_UNAVAILABLE: the templates cannot be read"
                                + ("; PNG_UNAVAILABLE: this server cannot rasterise (the "
                                   ".svg link still works)" if png else ""))}
    return {
        "summary": "Rendered chart image" + (" (PNG)" if png else ""),
        "description": ("The PNG of a visual chart: the svgRenderUrl link with .png for .svg. "
                        if png else "The SVG of a visual chart: the link in svgRenderUrl. ")
        + "A bearer link (no headers); the token is verified before anything renders. "
        "Nothing is stored. No credit is charged.",
        "operationId": "render_image_png" if png else "render_image",
        "tags": ["images"],
        "security": [],
        "parameters": [
            {"name": "template", "in": "path", "required": True,
             "description": "the template's UUID (canonical: lower case, hyphenated), or "
             "default",
             "schema": {"type": "string", "pattern": TEMPLATE_PATTERN}},
            {"name": "t", "in": "query", "required": True,
             "description": "the sealed, signed render token (key id, a dot, a body of "
             "95 or 116 base64url characters), given once; bound to the template of the "
             "path",
             "schema": {"type": "string", "pattern": TOKEN_PATTERN}},
        ],
        "responses": {
            "200": {
                "description": "the image",
                "headers": {"Cache-Control": _header("public, max-age=31536000, immutable")},
                "content": {media: {"schema": {"type": "string"}}},
            },
            "400": _refused("RENDER_TOKEN_MALFORMED: no t, or text that cannot be a token"),
            "403": _refused("RENDER_TOKEN_INVALID: the signature does not verify (or the "
                            "token was issued for another template)"),
            "404": _refused("NOT_FOUND: neither default nor a template UUID"),
            "429": _refused(f"RATE_LIMIT_EXCEEDED: more than {RENDER_BURST} images at once "
                            f"or {RENDER_RATE:g} per second from one client address (per "
                            "worker); Retry-After says when to retry"),
            **refusals,
        },
    }


def openapi_document(
    endpoints: Sequence[Endpoint], *, render_path: str | None = None,
    geocode_key_required: bool = True,
) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``endpoints`` (plus the schemas they use) and, with
    ``render_path``, of the image route mounted there; ``geocode_key_required`` False
    (a service with the offline gazetteer) makes ``HD-Geocode-Key`` optional."""
    from bodygraph import __version__

    schemas: dict[str, Any] = {name: _embedded(file) for name, file in _RESULT_SCHEMAS.items()}
    schemas.update(input_schemas())
    schemas.update(extension_schemas())
    schemas.update(_envelope_schemas(["ChartResult", "ChartSimpleResult", *EXTENSION_TYPES]))
    paths: dict[str, Any] = {e.path: {"post": _operation(e, geocode_key_required)}
                              for e in endpoints}
    if render_path is not None:
        paths[render_path.rstrip("/") + "/{template}.svg"] = {"get": render_operation()}
        paths[render_path.rstrip("/") + "/{template}.png"] = {"get": render_operation("png")}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "bodygraph service",
            "version": __version__,
            "description": "Human Design charts (bodygraphs) from birth data. v2 answers in "
            "an envelope; v1 is the legacy flat form. Every successful call costs 1 credit. "
            "See /docs for the rules.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearerAuth": {"type": "http", "scheme": "bearer",
                               "description": "Authorization: Bearer <API_KEY> (v2)"},
                "v1ApiKey": {"type": "apiKey", "in": "header", "name": "HD-Api-Key",
                             "description": "the same API key, v1 header"},
            },
        },
    }
