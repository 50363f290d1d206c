"""Read every activation down to color, tone and base, with its exact longitude.

Run: python examples/activations_to_base.py
"""

from __future__ import annotations

from datetime import UTC, datetime

import bodygraph


def main() -> None:
    chart = bodygraph.calculate(datetime(1990, 5, 14, 6, 30, tzinfo=UTC))
    print(f"design instant: {chart.design_utc.isoformat()}")
    print(f"{'side':<12}{'body':<11}{'gate.line':<10}{'color':>6}{'tone':>5}{'base':>5}"
          f"{'longitude':>14}")
    for side_name, side in (("personality", chart.personality), ("design", chart.design)):
        for a in side:
            print(f"{side_name:<12}{a.body.value:<11}{a!s:<10}{a.color:>6}{a.tone:>5}"
                  f"{a.base:>5}{a.longitude:>13.6f}°")


if __name__ == "__main__":
    main()
