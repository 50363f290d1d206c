"""Write the JSON Schemas of the chart objects into src/bodygraph/model/schemas/.

The value sets come from the domain tables, so the schemas never disagree
with the engine. Run after changing the tables or formats::

    python scripts/make_schemas.py

``tests/test_schemas.py`` fails when the files are stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from bodygraph.catalog.tables import CENTER_NAMES, lower_leading_the, tables  # noqa: E402
from bodygraph.catalog.wording import SIGNATURE, STRATEGY, V1_STRATEGY  # noqa: E402
from bodygraph.model.chart import BODIES, Authority, ChartType, Definition  # noqa: E402

OUT = ROOT / "src" / "bodygraph" / "model" / "schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def enum(values: object) -> dict[str, Any]:
    return {"type": "string", "enum": sorted(set(values))}  # type: ignore[call-overload]


def string_list(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": item, "uniqueItems": True}


def phrases(words: dict[int, Any]) -> list[str]:
    return [f"{w.left} {w.name}" for w in words.values()] + [
        f"{w.right} {w.name}" for w in words.values()
    ]


def schemas() -> dict[str, dict[str, Any]]:
    t = tables()
    v = t.variables
    activation = {"type": "string", "pattern": r"^([1-9]|[1-5][0-9]|6[0-4])\.[1-6]$"}
    gate = {"type": "string", "pattern": r"^([1-9]|[1-5][0-9]|6[0-4])$"}
    channel_short = enum(c.short for c in t.channels)
    center = enum(CENTER_NAMES)
    kinds = enum(k.value for k in ChartType)
    profile = enum(t.profile_angles)

    def side(keys: list[str]) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False, "required": keys,
                "properties": {k: activation for k in keys}}

    def full(v1: bool) -> dict[str, Any]:
        keys = [b.v1_key if v1 else b.value for b in BODIES]
        long_names = (
            [f"{c.name} ({c.short})" for c in t.channels] if v1
            else [f"The Channel of {lower_leading_the(c.name)} ({c.short})" for c in t.channels]
        )
        props: dict[str, Any] = {
            "type": kinds,
            "profile": profile,
            "channels_short" if v1 else "channelsShort": string_list(channel_short),
            "centers": string_list(center),
            "strategy": enum((V1_STRATEGY if v1 else STRATEGY).values()),
            "authority": enum(a.value for a in Authority),
            "incarnation_cross" if v1 else "incarnationCross": {
                "type": "string",
                "pattern": r"^(Right Angle|Left Angle|Juxtaposition) Cross of .+ "
                           r"\(\d{1,2}/\d{1,2} \| \d{1,2}/\d{1,2}\)$",
            },
            "definition": enum(d.value for d in Definition),
            "signature": enum(s for s, _ in SIGNATURE.values()),
            "not_self_theme" if v1 else "notSelfTheme": enum(n for _, n in SIGNATURE.values()),
            "cognition": enum(v.cognition.values()),
            "determination": enum(phrases(v.determination)),
            "variables": {"type": "string", "pattern": r"^P[LR]{2} D[LR]{2}$"},
            "motivation": enum(v.motivation.values()),
            "transference": enum(v.transference.values()),
            "perspective": enum(v.perspective.values()),
            "distraction": enum(v.distraction.values()),
            "environment": enum(phrases(v.environment)),
            "circuitries": {
                "type": "string",
                "pattern": r"^((Individual|Collective Logic|Collective Abstract|Tribal)"
                           r"(, (Individual|Collective Logic|Collective Abstract|Tribal))*)?$",
            },
            "channels_long" if v1 else "channelsLong": string_list(enum(long_names)),
            "gates": string_list(gate),
            "activations": {
                "type": "object", "additionalProperties": False,
                "required": ["design", "personality"],
                "properties": {"design": side(keys), "personality": side(keys)},
            },
            "birth_date_UTC" if v1 else "birthDateUtc": {
                "type": "string", "format": "date-time",
                "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$",
            },
        }
        return {"type": "object", "additionalProperties": False,
                "required": list(props), "properties": props}

    def simple(v1: bool) -> dict[str, Any]:
        props = {
            "type": kinds, "profile": profile, "gates": string_list(gate),
            "channels_short" if v1 else "channelsShort": string_list(channel_short),
            "centers": string_list(center),
        }
        return {"type": "object", "additionalProperties": False,
                "required": list(props), "properties": props}

    out = {
        "chart-result": ("ChartResult", "The data object of a v2 full chart.", full(False)),
        "chart-simple-result": ("ChartSimpleResult", "The data object of a v2 simple chart.",
                                simple(False)),
        "v1-bodygraph": ("V1Bodygraph", "The legacy v1 full bodygraph.", full(True)),
        "v1-bodygraph-simple": ("V1BodygraphSimple", "The legacy v1 simple bodygraph.",
                                simple(True)),
    }
    return {
        name: {"$schema": DRAFT, "$id": f"https://bodygraph.dev/schemas/{name}.schema.json",
               "title": title, "description": desc, **body}
        for name, (title, desc, body) in out.items()
    }


def rendered() -> dict[str, str]:
    return {f"{n}.schema.json": json.dumps(s, indent=2) + "\n" for n, s in schemas().items()}


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in rendered().items():
        (OUT / name).write_text(text, "utf-8")
        print("wrote", OUT / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
