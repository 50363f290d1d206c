"""The media type of an answer chosen by the request's ``Accept`` header (RFC 9110
section 12.5.1): an operation offers one or more, the first being the default; a header
that accepts none of them is refused with 406 (docs/api.md, "Order of checks")."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.datastructures import Headers

from bodygraph_server.http.errors import ApiError, ErrorCode

NOT_ACCEPTABLE = 406


def _ranges(accept: str) -> list[tuple[str, str, float]]:
    """The media ranges of an ``Accept`` value: (type, subtype, q), lowercase; an entry
    without ``type/subtype`` or with a q that is not a number is left out."""
    found = []
    for item in accept.split(","):
        media, *params = (part.strip() for part in item.split(";"))
        kind, slash, sub = media.lower().partition("/")
        if not slash or not kind or not sub:
            continue
        weight = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value.strip())
                except ValueError:
                    weight = -1.0
        if 0.0 <= weight <= 1.0:
            found.append((kind, sub, weight))
    return found


def _quality(media_type: str, ranges: Sequence[tuple[str, str, float]]) -> float:
    """The q the most specific range matching ``media_type`` gives it (0: none)."""
    kind, _, sub = media_type.partition("/")
    best, specificity = 0.0, -1
    for range_kind, range_sub, weight in ranges:
        if range_kind == "*" and range_sub == "*":
            level = 0
        elif range_kind == kind and range_sub == "*":
            level = 1
        elif (range_kind, range_sub) == (kind, sub):
            level = 2
        else:
            continue
        if level > specificity:
            best, specificity = weight, level
    return best


def preferred(accept: str, offered: Sequence[str]) -> str | None:
    """The type of ``offered`` (the first is the default) that ``accept`` prefers: the
    default for an absent or blank header, None when it accepts none of them."""
    if not accept.strip():
        return offered[0]
    ranges = _ranges(accept)
    scored = [(_quality(media_type, ranges), -index, media_type)
              for index, media_type in enumerate(offered)]
    weight, _, chosen = max(scored)
    return chosen if weight > 0 else None


def negotiate(headers: Headers, offered: Sequence[str]) -> str:
    """The media type to answer with (:func:`preferred` of every ``Accept`` line), or
    406 INVALID_REQUEST_BODY naming what the operation answers."""
    chosen = preferred(", ".join(headers.getlist("accept")), offered)
    if chosen is None:
        raise ApiError(ErrorCode.INVALID_REQUEST_BODY,
                       "Accept names no media type this endpoint answers (it answers "
                       + ", ".join(offered) + ")", status=NOT_ACCEPTABLE)
    return chosen
