"""Calculate one chart and print its main properties.

Run: python examples/one_chart.py
"""

from __future__ import annotations

from datetime import UTC, datetime

import bodygraph


def main() -> None:
    chart = bodygraph.calculate(datetime(1980, 1, 3, 8, 30, tzinfo=UTC))
    print(f"Type:       {chart.type.value}")
    print(f"Strategy:   {chart.strategy}")
    print(f"Authority:  {chart.authority.value}")
    print(f"Profile:    {chart.profile}")
    print(f"Definition: {chart.definition.value}")
    print(f"Cross:      {chart.incarnation_cross}")
    print(f"Centers:    {', '.join(chart.centers)}")
    print(f"Channels:   {', '.join(c.short for c in chart.channels)}")


if __name__ == "__main__":
    main()
