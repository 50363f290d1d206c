"""The result schemas of the time searches, from the library's chart values."""

from __future__ import annotations

from typing import Any

from bodygraph_server.resources.chart_values import chart_values, closed_object


def result_schemas() -> dict[str, Any]:
    """``SensitivityResult``, ``CyclesResult`` and ``CalendarResult``."""
    from bodygraph.model.chart import BODIES

    v = chart_values()
    body = {"type": "string", "enum": [b.value for b in BODIES]}
    instants = {"type": "array", "items": v["instant"]}
    change = closed_object({"at": v["instant"], "side": {"enum": ["personality", "design"]},
                            "body": body, "from": v["gateLine"], "to": v["gateLine"]})
    segment = closed_object({"from": v["instant"], "to": v["instant"], "type": v["type"],
                             "profile": v["profile"], "authority": v["authority"],
                             "definition": v["definition"], "incarnationCross": v["cross"]})
    ingress = closed_object({"at": v["instant"], "body": body, "gate": v["gate"],
                             "line": {"type": "string", "pattern": "^[1-6]$"}})
    return {
        "SensitivityResult": closed_object({
            "from": v["instant"], "to": v["instant"],
            "changes": {"type": "array", "items": change},
            "segments": {"type": "array", "items": segment, "minItems": 1},
        }),
        "CyclesResult": closed_object({"solarReturn": v["instant"], "saturnReturn": instants,
                                       "uranusOpposition": instants}),
        "CalendarResult": {"type": "array", "items": ingress},
    }
