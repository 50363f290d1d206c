"""Zodiac positions and angles of charts: each activation's sign, degree, minute, second
and retrograde flag; for a known place the Ascendant, the Midheaven and the house cusps.
Arrays in, arrays out, time last (:func:`astro_table`); one chart is a table of one
(:func:`astro`). The rules are in docs/conventions.md ("Zodiac positions and angles")."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import numpy as np

from bodygraph._time import TT, as_micros
from bodygraph._typing import BoolArray, FloatArray, IntArray, Micros
from bodygraph.calculator import Calculator, activation_longitudes
from bodygraph.catalog.translations import SOURCE_LANGUAGE
from bodygraph.ephemeris.sidereal import apparent_sidereal_frame
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import BODIES, NodeKind, gate_line
from bodygraph.relations.common import calculator_or_default
from bodygraph.relations.labels import house_system_name, polar_note, sign_name
from bodygraph.rules.activations import body_positions
from bodygraph.rules.houses import (
    HOUSE_SYSTEMS,
    ascendant,
    midheaven,
    placidus_cusps,
    placidus_defined,
    whole_sign_cusps,
)
from bodygraph.rules.zodiac import SIGNS, zodiac_parts

SIDES: Final[tuple[str, str]] = ("personality", "design")
#: Half the interval of the central difference that gives a body's speed, days.
SPEED_STEP_DAYS: Final = 0.005
#: The note of a chart whose Placidus houses do not exist (``{latitude}`` filled in).
@dataclass(frozen=True, slots=True)
class AstroTable:
    """N charts' zodiac positions and angles, time last.

    ``longitude``, ``sign`` (index into ``SIGNS``), ``degree``, ``minute``, ``second``,
    ``retrograde``, ``gate`` and ``line`` have shape (2, 13, N): side (personality,
    design) x body (``BODIES`` order) x chart. With a place, ``ascendant`` and
    ``midheaven`` have shape (N,), ``cusps`` (12, N) and ``placidus`` (N,) says whether
    the cusps are Placidus (otherwise whole-sign: asked for, or beyond the polar
    circles); without one they are ``None``. ``system`` is the house system asked for
    (``None`` without a place). ``speed`` is each body's speed in longitude, degrees per
    day; ``retrograde`` where it is negative.
    """

    longitude: FloatArray
    speed: FloatArray
    sign: IntArray
    degree: IntArray
    minute: IntArray
    second: IntArray
    retrograde: BoolArray
    gate: IntArray
    line: IntArray
    latitude: FloatArray | None
    ascendant: FloatArray | None
    midheaven: FloatArray | None
    cusps: FloatArray | None
    placidus: BoolArray | None
    system: str | None

    def __len__(self) -> int:
        return int(self.longitude.shape[-1])

    def to_dict(self, i: int = 0) -> dict[str, Any]:
        """Chart ``i`` as the JSON of ``bodygraph astro --json``."""
        activations: dict[str, dict[str, Any]] = {}
        for s, side in enumerate(SIDES):
            activations[side] = {
                body.value: {
                    "gateLine": gate_line(int(self.gate[s, b, i]), int(self.line[s, b, i])),
                    "longitude": round(float(self.longitude[s, b, i]), 6),
                    "sign": SIGNS[int(self.sign[s, b, i])],
                    "degree": int(self.degree[s, b, i]),
                    "minute": int(self.minute[s, b, i]),
                    "second": int(self.second[s, b, i]),
                    "retrograde": bool(self.retrograde[s, b, i]),
                }
                for b, body in enumerate(BODIES)
            }
        return {"activations": activations, "angles": self._angles(i),
                "houses": self._houses(i)}

    def labels(self, lang: str, i: int = 0) -> dict[str, Any]:
        """The words of :meth:`to_dict` in ``lang`` under its keys: each activation's
        ``sign``, and the houses' ``system`` and ``note``."""
        data = self.to_dict(i)
        out: dict[str, Any] = {"activations": {
            side: {body: {"sign": sign_name(place["sign"], lang)}
                   for body, place in bodies.items()}
            for side, bodies in data["activations"].items()}}
        if data["houses"] is not None:
            out["houses"] = {"system": house_system_name(data["houses"]["system"], lang)}
            if self.latitude is not None and data["houses"]["note"] is not None:
                out["houses"]["note"] = polar_note(f"{float(self.latitude[i]):g}", lang)
        return out

    def _angles(self, i: int) -> dict[str, float] | None:
        if self.ascendant is None or self.midheaven is None:
            return None
        return {"ascendant": round(float(self.ascendant[i]), 6),
                "midheaven": round(float(self.midheaven[i]), 6)}

    def _houses(self, i: int) -> dict[str, Any] | None:
        if self.cusps is None or self.placidus is None or self.latitude is None:
            return None
        placidus = bool(self.placidus[i])
        return {"system": "placidus" if placidus else "whole-sign",
                "cusps": [round(float(c), 6) for c in self.cusps[:, i]],
                "note": self.note(i)}

    def note(self, i: int = 0) -> str | None:
        """Why chart ``i`` has whole-sign houses though Placidus was asked for, or None."""
        if self.system != "placidus" or self.placidus is None or self.latitude is None \
                or bool(self.placidus[i]):
            return None
        return polar_note(f"{float(self.latitude[i]):g}", SOURCE_LANGUAGE)


def check_place(lat: float, lng: float) -> None:
    """A latitude in (-90, 90) and a longitude in [-180, 180], or InvalidOptionError
    (at the poles the horizon is the equator and no Ascendant exists)."""
    if not (math.isfinite(lat) and -90.0 < lat < 90.0):
        raise InvalidOptionError(f"latitude {lat} is outside -90 to 90 (the poles have no "
                                 "Ascendant)")
    if not (math.isfinite(lng) and -180.0 <= lng <= 180.0):
        raise InvalidOptionError(f"longitude {lng} is outside -180 to 180")


def check_system(houses: str) -> str:
    """The house system name, or InvalidOptionError naming the known ones."""
    if houses not in HOUSE_SYSTEMS:
        raise InvalidOptionError(f"unknown house system {houses!r}: use "
                                 + " or ".join(HOUSE_SYSTEMS))
    return houses


def astro_table(
    births: Sequence[datetime] | Micros,
    lat: FloatArray | Sequence[float] | None = None,
    lng: FloatArray | Sequence[float] | None = None,
    *,
    houses: str = "placidus",
    node: NodeKind = "true",
    calculator: Calculator | None = None,
) -> AstroTable:
    """Zodiac positions and angles of N births (aware datetimes, or datetime64 UTC), with
    the places' latitudes and longitudes (shape (N,), degrees, east positive) or none."""
    check_system(houses)
    calc = calculator_or_default(calculator)
    utc = as_micros(births)
    epochs = calc.epochs_micros(utc, node)
    longitude = np.stack([epochs.personality, epochs.design_longitudes])
    speed = np.stack([_speeds(calc, epochs.birth, node), _speeds(calc, epochs.design, node)])
    sign, degree, minute, second = zodiac_parts(longitude)
    wheel = body_positions(longitude)
    places = _places(lat, lng, len(utc))
    latitude = asc = mc = cusps = placidus = None
    if places is not None:
        latitude, longitude_east = places
        gast, obliquity, _ = apparent_sidereal_frame(epochs.birth)
        ramc = np.mod(gast + longitude_east, 360.0)
        asc = ascendant(ramc, obliquity, latitude)
        mc = midheaven(ramc, obliquity)
        placidus = placidus_defined(obliquity, latitude) & (houses == "placidus")
        cusps = np.where(placidus, placidus_cusps(ramc, obliquity, latitude),
                         whole_sign_cusps(asc))
    return AstroTable(longitude, speed, sign, degree, minute, second, speed < 0.0,
                      wheel.gate, wheel.line, latitude, asc, mc, cusps, placidus,
                      None if places is None else houses)


def astro(birth: datetime, lat: float | None = None, lng: float | None = None, *,
          houses: str = "placidus", node: NodeKind = "true",
          calculator: Calculator | None = None) -> AstroTable:
    """The zodiac positions and angles of one birth (a table of one: ``to_dict()``);
    ``lat`` and ``lng`` together, or neither (then no angles and no houses)."""
    if (lat is None) != (lng is None):
        raise InvalidOptionError("give the latitude and the longitude together")
    if lat is not None and lng is not None:
        check_place(lat, lng)
        return astro_table([birth], [lat], [lng], houses=houses, node=node,
                           calculator=calculator)
    return astro_table([birth], houses=houses, node=node, calculator=calculator)


def _speeds(calculator: Calculator, tt: TT, node: NodeKind) -> FloatArray:
    """(13, N) speeds in longitude, degrees per day, by a central difference on the
    engine (earth and south node: those of the sun and the north node)."""
    step = np.full(tt.whole.shape, SPEED_STEP_DAYS)
    after = activation_longitudes(calculator.engine.longitudes(tt.shifted(step), node))
    before = activation_longitudes(calculator.engine.longitudes(tt.shifted(-step), node))
    change = np.mod(after - before + 180.0, 360.0) - 180.0
    out: FloatArray = change / (2.0 * SPEED_STEP_DAYS)
    return out


def _places(lat: FloatArray | Sequence[float] | None, lng: FloatArray | Sequence[float] | None,
            size: int) -> tuple[FloatArray, FloatArray] | None:
    if lat is None and lng is None:
        return None
    if lat is None or lng is None:
        raise InvalidOptionError("give the latitudes and the longitudes together")
    latitude = np.asarray(lat, dtype=np.float64).reshape(-1)
    longitude = np.asarray(lng, dtype=np.float64).reshape(-1)
    if latitude.shape != (size,) or longitude.shape != (size,):
        raise InvalidOptionError(f"give one latitude and one longitude per birth ({size})")
    for a, b in zip(latitude.tolist(), longitude.tolist(), strict=True):
        check_place(a, b)
    return latitude, longitude
