"""Response bodies and their JSON Schemas, from one definition: the v2 envelope (contract
2.1) and its siblings of ``data``, the v2 error envelope and v1 errors."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from starlette.responses import Response

from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.policy.clock import timestamp_text

if TYPE_CHECKING:
    from bodygraph.geo.places.base import Place

JSON_MEDIA_TYPE = "application/json"
RENDER_URL_FIELD = "svgRenderUrl"
"""The top-level sibling of ``data`` linking the answer's picture."""
PLACE_FIELD = "place"
"""The top-level sibling of ``data`` naming the place a birth's ``location`` was taken for."""
PLACES_FIELD = "places"
"""The same for a body of several births: one entry per birth, null where given by
coordinates."""


def timestamp(now: datetime | None = None) -> str:
    """``now`` (default: the current instant) as :func:`timestamp_text` writes it."""
    return timestamp_text(now or datetime.now(UTC))


def v2_success(
    data: Mapping[str, Any] | Sequence[Any],
    *,
    type_name: str,
    message: str,
    extra: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The success envelope; ``extra`` adds top-level siblings such as ``svgRenderUrl``."""
    body: dict[str, Any] = {
        "timestamp": timestamp(now),
        "success": True,
        "message": message,
        "errorCode": "",
        "type": type_name,
        "data": dict(data) if isinstance(data, Mapping) else list(data),
    }
    if extra:
        body.update(extra)
    return body


def place_answer(place: Place) -> dict[str, Any]:
    """The place a ``location`` was taken for: its label, coordinates, the other places of
    that name (best first) and a note saying so (null when the name was clear)."""
    return {"name": place.label, "lat": place.lat, "lng": place.lng,
            "others": list(place.others), "note": place.ambiguity()}


def v2_error(error: ApiError, *, now: datetime | None = None) -> dict[str, Any]:
    """The error envelope: success false, errorCode set, type empty, data null."""
    return {
        "timestamp": timestamp(now),
        "success": False,
        "message": error.message,
        "errorCode": error.code.value,
        "type": "",
        "data": None,
    }


def v1_error(error: ApiError) -> dict[str, Any]:
    """The legacy error body: the HTTP status repeated as ``code``."""
    return {"status": "error", "code": error.status, "message": error.message}


def json_response(
    body: Mapping[str, Any], status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """A compact UTF-8 JSON response."""
    content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return Response(content, status_code=status, headers=dict(headers or {}),
                    media_type=JSON_MEDIA_TYPE)


def error_response(error: ApiError, *, legacy: bool) -> Response:
    """The response of a refusal: v1 body when ``legacy``, else the v2 envelope."""
    body = v1_error(error) if legacy else v2_error(error)
    return json_response(body, error.status, error.headers)


_REF = "#/components/schemas/"
_TIMESTAMP = {"type": "string", "format": "date-time"}
RENDER_URL_SCHEMA = {
    "type": "string", "format": "uri",
    "description": "{render_url}/<template-uuid|default>.svg?t=<token>: a "
    "non-expiring bearer link to the rendered SVG.",
}
_PLACE = {"$ref": _REF + "PlaceTaken"}
LABELS_FIELD = "labels"
"""The top-level sibling of ``data`` holding its words in the asked ``lang``."""
_LABELS = {"type": ["object", "array"],
           "description": "Only when lang was given: the words of data in that language, "
           "under the same keys (a list keeps its positions); numbers and codes are left "
           "out (docs/api.md, Languages)."}
_PLACES = {"type": "array", "items": {"oneOf": [_PLACE, {"type": "null"}]},
           "description": "One entry per birth, in the body's order: the place taken for "
           "its location, null for a birth given by coordinates. Only when a birth was "
           "given by location."}


@dataclass(frozen=True, slots=True)
class Envelope:
    """The success envelope of one ``type`` as :func:`v2_success` writes it, and its
    schema: ``picture`` adds ``svgRenderUrl`` (required with ``picture_required``),
    ``place``/``places`` the places taken (:func:`place_answer`)."""

    type_name: str
    picture: bool = False
    picture_required: bool = False
    place: bool = False
    places: bool = False
    named: str = ""

    @property
    def name(self) -> str:
        """Its name among the components' schemas."""
        return self.named or f"{self.type_name}Envelope"

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of the envelope."""
        required = ["timestamp", "success", "message", "errorCode", "type", "data"]
        properties: dict[str, Any] = {
            "timestamp": _TIMESTAMP,
            "success": {"const": True},
            "message": {"type": "string"},
            "errorCode": {"const": ""},
            "type": {"const": self.type_name},
            "data": {"$ref": _REF + self.type_name},
        }
        if self.picture:
            properties[RENDER_URL_FIELD] = RENDER_URL_SCHEMA
            if self.picture_required:
                required.append(RENDER_URL_FIELD)
        if self.place:
            properties[PLACE_FIELD] = _PLACE
        if self.places:
            properties[PLACES_FIELD] = _PLACES
        properties[LABELS_FIELD] = _LABELS
        return {"type": "object", "required": required, "properties": properties}


def place_schema() -> dict[str, Any]:
    """``PlaceTaken``: what :func:`place_answer` writes."""
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


def error_schemas() -> dict[str, Any]:
    """``ErrorEnvelope`` (:func:`v2_error`) and ``V1Error`` (:func:`v1_error`)."""
    return {
        "ErrorEnvelope": {
            "type": "object",
            "required": ["timestamp", "success", "message", "errorCode", "type", "data"],
            "additionalProperties": False,
            "properties": {
                "timestamp": _TIMESTAMP,
                "success": {"const": False},
                "message": {"type": "string"},
                "errorCode": {"type": "string", "enum": [c.value for c in ErrorCode]},
                "type": {"const": ""},
                "data": {"type": "null"},
            },
        },
        "V1Error": {
            "type": "object",
            "required": ["status", "code", "message"],
            "additionalProperties": False,
            "properties": {
                "status": {"const": "error"},
                "code": {"type": "integer", "description": "the HTTP status"},
                "message": {"type": "string"},
            },
        },
    }
