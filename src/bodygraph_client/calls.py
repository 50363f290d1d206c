"""The request layer: each endpoint of the contract is an :class:`Endpoint`, each call of
it a :class:`Call` (endpoint, JSON body, how to read the answer). The clients send calls;
adding an endpoint is one :class:`Endpoint` here and a method of a few lines in each
client.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date as Date
from datetime import datetime
from datetime import time as Time
from typing import Any, Generic, Literal, TypeVar, cast

from bodygraph_client.types import (
    ChartResult,
    SimpleChart,
    V1Bodygraph,
    V1SimpleBodygraph,
    VisualChart,
)

T = TypeVar("T")

DateLike = Date | str
"""A birth date: a :class:`datetime.date` or the text the endpoint takes."""
TimeLike = Time | str
"""A local birth time: a naive :class:`datetime.time` (minutes used) or ``"HH:MM"``."""

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """An endpoint: ``legacy`` (v1: ``HD-Api-Key``, flat answers), ``geocoded``
    (sends ``HD-Geocode-Key``), ``charged`` (costs a credit: sends an ``Idempotency-Key``),
    ``replayable`` (sends an ``Idempotency-Key`` although free: the key rotation),
    ``method`` (POST with a JSON body, or GET without one)."""

    path: str
    legacy: bool = False
    geocoded: bool = False
    charged: bool = True
    replayable: bool = False
    method: Literal["POST", "GET"] = "POST"


CHARTS = Endpoint("/v2/charts", geocoded=True)
CHARTS_SIMPLE = Endpoint("/v2/charts/simple", geocoded=True)
CHARTS_COORDINATES = Endpoint("/v2/charts/coordinates")
VISUAL_CHARTS = Endpoint("/v2/visual-charts", geocoded=True)
VISUAL_CHARTS_COORDINATES = Endpoint("/v2/visual-charts/coordinates")
V1_BODYGRAPHS = Endpoint("/v1/bodygraphs", legacy=True, geocoded=True)
V1_BODYGRAPHS_SIMPLE = Endpoint("/v1/bodygraphs/simple", legacy=True, geocoded=True)


@dataclass(frozen=True, slots=True)
class Labelled(Generic[T]):
    """The answer of a call asked in a language (:meth:`Call.in_language`): ``value`` is
    the call's usual result (the contract's English values, unchanged); ``labels`` the
    words of its ``data`` in ``lang``, under the same keys (the service's ``labels``)."""

    value: T
    labels: Any
    lang: str


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One logical call: where, what (the body; ``params``: the query), and how the JSON
    answer becomes the result; :meth:`in_language` asks for words in a language
    (``?lang=``)."""

    endpoint: Endpoint
    body: Mapping[str, Any]
    read: Callable[[Any], T]
    params: Mapping[str, str] = field(default_factory=dict)

    def in_language(self, lang: str) -> Call[Labelled[T]]:
        """The same call asking for ``lang`` (``"de"``, ``"ja"``, ...: the service's
        codes; an unknown one is refused with :class:`~bodygraph_client.InvalidInput`,
        INVALID_LANGUAGE). v2 only: v1 has no languages."""
        if self.endpoint.legacy:
            raise ValueError("the v1 endpoints have no languages; use a v2 call")
        read = self.read

        def labelled(body: Any) -> Labelled[T]:
            return Labelled(read(body), body["labels"], lang)

        return Call(self.endpoint, self.body, labelled, {**self.params, "lang": lang})


def date_text(value: DateLike) -> str:
    """``YYYY-MM-DD`` of a date; a text is sent as given (the service checks it)."""
    if isinstance(value, datetime):
        raise TypeError("pass the birth date as a date, not a datetime")
    return value.isoformat() if isinstance(value, Date) else value


def v1_date_text(value: DateLike) -> str:
    """``DD-MMM-YY`` (English month abbreviation) of a date; a text is sent as given."""
    if isinstance(value, datetime):
        raise TypeError("pass the birth date as a date, not a datetime")
    if isinstance(value, Date):
        return f"{value.day:02d}-{_MONTHS[value.month - 1]}-{value.year % 100:02d}"
    return value


def time_text(value: TimeLike) -> str:
    """``HH:MM`` of a time; a text is sent as given."""
    return value.strftime("%H:%M") if isinstance(value, Time) else value


def at_place(birthdate: DateLike, birthtime: TimeLike, location: str) -> dict[str, Any]:
    """The body of the location endpoints (contract 2.2)."""
    return {"birthdate": date_text(birthdate), "birthtime": time_text(birthtime),
            "location": location}


def at_coordinates(
    lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike
) -> dict[str, Any]:
    """The body of the coordinates endpoints (contract 2.3)."""
    return {"birthdate": date_text(birthdate), "birthtime": time_text(birthtime),
            "lat": lat, "lng": lng}


def v1_at_place(birthdate: DateLike, birthtime: TimeLike, location: str) -> dict[str, Any]:
    """The body of the v1 endpoints."""
    return {"birthdate": v1_date_text(birthdate), "birthtime": time_text(birthtime),
            "location": location}


def data(kind: type[T]) -> Callable[[Any], T]:
    """Reads the ``data`` of a v2 envelope as ``kind``."""

    def read(body: Any) -> T:
        return cast(T, body["data"])

    return read


def flat(kind: type[T]) -> Callable[[Any], T]:
    """Reads a v1 answer (the whole body) as ``kind``."""

    def read(body: Any) -> T:
        return cast(T, body)

    return read


def visual(body: Any) -> VisualChart:
    """Reads a visual-chart envelope: the chart and the top-level ``svgRenderUrl``."""
    return VisualChart(chart=cast(ChartResult, body["data"]),
                       svg_render_url=str(body["svgRenderUrl"]))


_FULL = data(ChartResult)


# -- one function per endpoint: the call a client method sends ------------------------------


def chart(birthdate: DateLike, birthtime: TimeLike, location: str) -> Call[ChartResult]:
    """POST /v2/charts: the full chart of a birth at a place (Advanced tier; geocoding
    key)."""
    return Call(CHARTS, at_place(birthdate, birthtime, location), _FULL)


def chart_at(
    lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike
) -> Call[ChartResult]:
    """POST /v2/charts/coordinates: the full chart of a birth at coordinates (Advanced)."""
    return Call(CHARTS_COORDINATES, at_coordinates(lat, lng, birthdate, birthtime), _FULL)


def simple_chart(birthdate: DateLike, birthtime: TimeLike, location: str) -> Call[SimpleChart]:
    """POST /v2/charts/simple: type, profile, gates, channels, centers (Basic and
    Advanced; geocoding key)."""
    return Call(CHARTS_SIMPLE, at_place(birthdate, birthtime, location), data(SimpleChart))


def visual_chart(birthdate: DateLike, birthtime: TimeLike, location: str) -> Call[VisualChart]:
    """POST /v2/visual-charts: the full chart and its SVG link (Advanced; geocoding key)."""
    return Call(VISUAL_CHARTS, at_place(birthdate, birthtime, location), visual)


def visual_chart_at(
    lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike
) -> Call[VisualChart]:
    """POST /v2/visual-charts/coordinates: the full chart and its SVG link (Advanced)."""
    return Call(VISUAL_CHARTS_COORDINATES, at_coordinates(lat, lng, birthdate, birthtime),
                visual)


def v1_bodygraph(birthdate: DateLike, birthtime: TimeLike, location: str) -> Call[V1Bodygraph]:
    """POST /v1/bodygraphs: the legacy flat full chart (Advanced; geocoding key)."""
    return Call(V1_BODYGRAPHS, v1_at_place(birthdate, birthtime, location), flat(V1Bodygraph))


def v1_simple_bodygraph(
    birthdate: DateLike, birthtime: TimeLike, location: str
) -> Call[V1SimpleBodygraph]:
    """POST /v1/bodygraphs/simple: the legacy flat simplified chart (Basic and Advanced;
    geocoding key)."""
    return Call(V1_BODYGRAPHS_SIMPLE, v1_at_place(birthdate, birthtime, location),
                flat(V1SimpleBodygraph))
