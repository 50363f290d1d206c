"""The words that go with each chart type: strategy (v2 and the legacy v1 wording),
signature and not-self theme.

Keyed by the type's name as the contract writes it (``"Generator"``, ...); the
``ChartType`` values of :mod:`bodygraph.model.chart` are these names, so either indexes.
"""

from __future__ import annotations

STRATEGY: dict[str, str] = {
    "Generator": "To Respond",
    "Manifesting Generator": "To Respond",
    "Projector": "Wait for the Invitation",
    "Manifestor": "To Inform",
    "Reflector": "Wait a Lunar Cycle",
}
#: v1 writes the strategy of the two sacral types as "Wait to Respond".
V1_STRATEGY: dict[str, str] = {
    **STRATEGY, "Generator": "Wait to Respond", "Manifesting Generator": "Wait to Respond",
}
#: (signature, not-self theme) of each type.
SIGNATURE: dict[str, tuple[str, str]] = {
    "Generator": ("Satisfaction", "Frustration"),
    "Manifesting Generator": ("Satisfaction", "Frustration"),
    "Projector": ("Success", "Bitterness"),
    "Manifestor": ("Peace", "Anger"),
    "Reflector": ("Surprise", "Disappointment"),
}
