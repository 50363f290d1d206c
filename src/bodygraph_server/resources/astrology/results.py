"""The result schemas of the astrology operations, from the library's chart values and the
``to_dict()`` of :mod:`bodygraph.rules.hologenetic` and :mod:`bodygraph.relations.astro`
(checked against real answers by tests)."""

from __future__ import annotations

from typing import Any

from bodygraph_server.resources.chart_values import chart_values, closed_object


def _longitude() -> dict[str, Any]:
    return {"type": "number", "minimum": 0, "exclusiveMaximum": 360,
            "description": "Tropical ecliptic longitude, degrees."}


def result_schemas() -> dict[str, Any]:
    """``HologeneticProfileResult``, ``AstroResult`` and ``WheelChartResult``."""
    from bodygraph.model.chart import BODIES
    from bodygraph.rules.hologenetic import SEQUENCES, SPHERES
    from bodygraph.rules.houses import HOUSE_SYSTEMS
    from bodygraph.rules.zodiac import SIGNS

    gate_line = chart_values()["gateLine"]
    profile = closed_object({
        sequence: closed_object({s.key: gate_line for s in SPHERES if s.sequence == sequence})
        for sequence in SEQUENCES})
    position = closed_object({
        "gateLine": gate_line, "longitude": _longitude(),
        "sign": {"type": "string", "enum": list(SIGNS)},
        "degree": {"type": "integer", "minimum": 0, "maximum": 29},
        "minute": {"type": "integer", "minimum": 0, "maximum": 59},
        "second": {"type": "integer", "minimum": 0, "maximum": 59},
        "retrograde": {"type": "boolean"}})
    side = closed_object({body.value: position for body in BODIES})
    longitudes = closed_object({body.value: _longitude() for body in BODIES})
    return {
        "HologeneticProfileResult": profile,
        "AstroResult": closed_object({
            "activations": closed_object({"personality": side, "design": side}),
            "angles": closed_object({"ascendant": _longitude(), "midheaven": _longitude()}),
            "houses": closed_object({
                "system": {"type": "string", "enum": list(HOUSE_SYSTEMS),
                           "description": "The system of the cusps given (whole-sign "
                           "beyond the polar circles, where Placidus is undefined)."},
                "cusps": {"type": "array", "items": _longitude(), "minItems": 12,
                          "maxItems": 12},
                "note": {"oneOf": [{"type": "string"}, {"type": "null"}],
                         "description": "Why whole-sign cusps are given though Placidus "
                         "was asked for; else null."}}),
        }),
        "WheelChartResult": closed_object({
            "personality": longitudes, "design": longitudes,
            "transit": {"oneOf": [longitudes, {"type": "null"}],
                        "description": "The sky at transitAt (its personality "
                        "longitudes); null without transitAt."}}),
    }
