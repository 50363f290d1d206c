"""Hand-built sides and charts for rule tests: activations chosen gate by gate."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from bodygraph.model.chart import BODIES, Activation, Chart, Side
from bodygraph.rules.properties import build_chart

BIRTH = datetime(2000, 1, 1, 12, tzinfo=UTC)
DESIGN = datetime(1999, 10, 3, 12, tzinfo=UTC)


def side(
    gates: Sequence[int],
    *,
    line: int = 1,
    color: int = 1,
    tone: int = 1,
    node_tone: int = 1,
    node_color: int = 1,
    lines: dict[str, int] | None = None,
) -> Side:
    """13 activations: ``gates`` in BODIES order, the rest repeat the last gate given."""
    chosen = list(gates) + [gates[-1]] * (len(BODIES) - len(gates))
    acts = []
    for body, gate in zip(BODIES, chosen, strict=True):
        is_node = body.value in ("northNode", "southNode")
        acts.append(Activation(
            body, 0.0, gate, (lines or {}).get(body.value, line),
            node_color if is_node else color, node_tone if is_node else tone, 1,
        ))
    return Side(*acts)


def chart(personality: Sequence[int], design: Sequence[int] | None = None, **kw: int) -> Chart:
    """A chart whose activated gates are exactly those given (profile 1/3)."""
    return build_chart(
        BIRTH, DESIGN, "true", side(personality, **kw), side(design or personality, line=3)
    )
