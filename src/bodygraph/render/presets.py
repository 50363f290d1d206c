"""The shipped themes as data: each preset is a partial theme object over the defaults.

:meth:`bodygraph.render.Theme.preset` reads them. Every preset is tested for contrast
(``tests/render/test_contrast.py``): gate numbers and activation dots reach 4.5:1 on what
lies under them, and so does every other text on the background.
"""

from __future__ import annotations

from typing import Any

PRESETS: dict[str, dict[str, Any]] = {
    # The defaults of Theme: traditional center colours, red design, black personality.
    "light": {},
    "dark": {
        "background": "#15171c", "open_center": "#2a2e36", "center_outline": "#9aa3b0",
        "channel_outline": "#5a616d", "channel_empty": "#2a2e36",
        "design_color": "#ff7a7a", "personality_color": "#f5f7fa",
        "transit_color": "#64b5f6", "person_a_color": "#64b5f6", "person_b_color": "#f48fb1",
        "gate_text": "#c8ced8", "gate_active_text": "#15171c",
        "text_color": "#f5f7fa", "muted_text": "#aab2bf",
        "centers": {
            "Head": "#c9a227", "Ajna": "#4e8f52", "Throat": "#8a6a48", "G": "#c9a227",
            "Ego": "#b5473a", "Sacral": "#b5473a", "Solar Plexus": "#8a6a48",
            "Spleen": "#8a6a48", "Root": "#8a6a48",
        },
    },
    # Black on white only: defined centers are told by their heavy outline (the light
    # grey fill is a bonus), design by its square dots and double lines.
    "print": {
        "background": "#ffffff", "open_center": "#ffffff", "center_outline": "#000000",
        "channel_outline": "#000000", "channel_empty": "#ffffff",
        "design_color": "#000000", "personality_color": "#000000",
        "transit_color": "#000000", "person_a_color": "#000000", "person_b_color": "#000000",
        "gate_text": "#000000", "gate_active_text": "#ffffff",
        "text_color": "#000000", "muted_text": "#333333",
        "centers": {name: "#e6e6e6" for name in (
            "Head", "Ajna", "Throat", "G", "Ego", "Sacral", "Solar Plexus", "Spleen", "Root")},
    },
    "high-contrast": {
        "background": "#000000", "open_center": "#000000", "center_outline": "#ffffff",
        "channel_outline": "#ffffff", "channel_empty": "#000000",
        "design_color": "#ff5c5c", "personality_color": "#ffffff",
        "transit_color": "#40c4ff", "person_a_color": "#40c4ff", "person_b_color": "#ffd740",
        "gate_text": "#ffffff", "gate_active_text": "#000000",
        "text_color": "#ffffff", "muted_text": "#e0e0e0",
        "centers": {
            "Head": "#ffd740", "Ajna": "#69f0ae", "Throat": "#ffab40", "G": "#ffd740",
            "Ego": "#ff8a80", "Sacral": "#ff8a80", "Solar Plexus": "#ffab40",
            "Spleen": "#ffab40", "Root": "#ffab40",
        },
    },
}
"""Preset name -> theme fields that differ from the defaults of :class:`Theme`."""
