"""The result schemas of stability and rectification, from the library's chart values and
the ``to_dict()`` of ``bodygraph.relations`` (checked against real answers by tests)."""

from __future__ import annotations

from typing import Any

from bodygraph_server.resources.chart_values import chart_values, closed_object

_LOCAL = {"type": "string", "format": "date-time",
          "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}[+-]\\d{2}:\\d{2}$",
          "description": "The wall time at the place, to the second, with its UTC offset."}
_PASS = {"oneOf": [{"enum": ["first", "second"]}, {"type": "null"}],
         "description": "Which pass of a wall time that occurs twice (clocks turned back); "
         "null where it occurs once."}


def _stretch(value: dict[str, Any]) -> dict[str, Any]:
    """A value and the birth instants over which it holds (null: to the bound)."""
    instant = {"oneOf": [chart_values()["instant"], {"type": "null"}]}
    return closed_object({"value": value, "from": instant, "to": instant})


def result_schemas() -> dict[str, Any]:
    """``StabilityResult`` and ``RectificationResult``."""
    from bodygraph.model.chart import BODIES
    from bodygraph.model.contract import json_schema

    v = chart_values()
    chart = json_schema("chart-result")["properties"]
    values = {"type": v["type"], "profile": v["profile"], "authority": v["authority"],
              "definition": v["definition"], "incarnationCross": v["cross"],
              "strategy": chart["strategy"], "variables": chart["variables"]}
    side = closed_object({body.value: _stretch(v["gateLine"]) for body in BODIES})
    window = closed_object({
        "from": v["instant"], "to": v["instant"], "fromLocal": _LOCAL, "toLocal": _LOCAL,
        "fromPass": _PASS, "toPass": _PASS,
        "chart": closed_object({key: values[key] for key in (
            "type", "profile", "authority", "definition", "incarnationCross")}),
    })
    return {
        "StabilityResult": closed_object({
            "birth": v["instant"],
            "properties": closed_object({key: _stretch(value) for key, value in values.items()}),
            "activations": closed_object({"personality": side, "design": side}),
        }),
        "RectificationResult": closed_object({
            "searched": closed_object({"from": v["instant"], "to": v["instant"],
                                       "fromLocal": _LOCAL, "toLocal": _LOCAL,
                                       "zone": {"type": "string",
                                                "description": "The tz database zone."}}),
            "windows": {"type": "array", "items": window,
                        "description": "In time order; empty when nothing fits."},
        }),
    }
