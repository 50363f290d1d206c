"""Response bodies: the v2 envelope (contract 2.1), v1 flat bodies and v1 errors.

Only this module knows the shapes; the endpoints hand it data and codes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from starlette.responses import Response

from bodygraph_server.http.errors import ApiError

if TYPE_CHECKING:
    from bodygraph.geo.places.base import Place

JSON_MEDIA_TYPE = "application/json"
PLACE_FIELD = "place"
"""The top-level sibling of ``data`` naming the place a birth's ``location`` was taken for."""
PLACES_FIELD = "places"
"""The same for a body of several births: one entry per birth, null where given by
coordinates."""


def timestamp(now: datetime | None = None) -> str:
    """ISO 8601 UTC with milliseconds: ``2024-05-01T12:00:00.123Z``."""
    m = (now or datetime.now(UTC)).astimezone(UTC)
    return (
        f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}."
        f"{m.microsecond // 1000:03d}Z"
    )


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
