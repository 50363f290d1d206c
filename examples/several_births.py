"""A table of several births, one line each, through the library's batch path.

Run: python examples/several_births.py
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from bodygraph import Calculator

BIRTHS = {
    "Ada": datetime(1815, 12, 10, 13, 0, tzinfo=timezone(timedelta(minutes=-1))),
    "Grace": datetime(1906, 12, 9, 12, 0, tzinfo=timezone(timedelta(hours=-5))),
    "Alan": datetime(1912, 6, 23, 2, 15, tzinfo=UTC),
    "Margaret": datetime(1936, 8, 17, 10, 0, tzinfo=timezone(timedelta(hours=-5))),
    "Tim": datetime(1955, 6, 8, 9, 0, tzinfo=UTC),
}


def main() -> None:
    with Calculator() as calculator:
        charts = calculator.calculate_list(list(BIRTHS.values()))
    print(f"{'name':<10} {'type':<22} {'profile':<8} {'authority':<15} cross")
    for name, chart in zip(BIRTHS, charts, strict=True):
        print(
            f"{name:<10} {chart.type.value:<22} {chart.profile:<8} "
            f"{chart.authority.value:<15} {chart.incarnation_cross}"
        )


if __name__ == "__main__":
    main()
