"""The calendar month by month: a month's ingresses do not depend on the range asked
for nor on the bodies searched with it, so a calendar assembled from kept months (every
body's, as the service keeps them) is the direct calendar, ingress for ingress, for
random ranges, ranges across month edges and ranges ending exactly on an ingress."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from bodygraph.calculator import default_calculator
from bodygraph.model.chart import BODIES
from bodygraph.relations.calendar import calendar, calendar_columns
from bodygraph.relations.calendar_blocks import (
    IngressColumns,
    Level,
    Month,
    block_identity,
    compute_blocks,
    month_start,
    months_between,
)

EVERY = range(len(BODIES))


class KeptMonths:
    """Every body's months, computed one at a time on first use and kept (the service's
    cache without the database)."""

    def __init__(self, level: Level) -> None:
        self.level = level
        self.kept: dict[Month, IngressColumns] = {}
        self.computed = 0

    def __call__(self, months: Sequence[Month]) -> list[IngressColumns]:
        for month in months:
            if month not in self.kept:
                self.kept[month] = compute_blocks([month], EVERY, self.level, "true",
                                                  default_calculator(None))[0]
                self.computed += 1
        return [self.kept[month] for month in months]


def _dicts(start: datetime, end: datetime, bodies: Sequence[str], level: Level,
           kept: KeptMonths) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    direct = [i.to_dict() for i in calendar(start, end, bodies, level)]
    assembled = calendar_columns(start, end, bodies, level, blocks=kept).to_dicts()
    return direct, assembled


@pytest.mark.parametrize("level", ["gate", "line"])
def test_kept_months_give_the_direct_calendar_for_random_ranges(level: Level) -> None:
    rng = random.Random(23 + len(level))
    kept = KeptMonths(level)
    names = [b.value for b in BODIES]
    base = datetime(2023, 11, 1, tzinfo=UTC)
    for _ in range(12):
        start = base + timedelta(seconds=rng.randrange(0, 400 * 86_400))
        end = start + timedelta(seconds=rng.randrange(1, 75 * 86_400))
        bodies = rng.sample(names, rng.randint(1, len(names)))
        direct, assembled = _dicts(start, end, bodies, level, kept)
        assert assembled == direct, (start, end, bodies)
    assert kept.computed < 12 * 3  # months were reused across ranges


def test_kept_months_give_the_direct_calendar_across_the_centuries() -> None:
    rng = random.Random(1800)
    kept = KeptMonths("line")
    for year in (1801, 1899, 1969, 2150, 2198):
        start = datetime(year, 1, 1, tzinfo=UTC) + timedelta(
            seconds=rng.randrange(0, 300 * 86_400))
        end = start + timedelta(seconds=rng.randrange(1, 40 * 86_400))
        direct, assembled = _dicts(start, end, ["moon", "sun", "southNode"], "line", kept)
        assert assembled == direct and direct, (start, end)


def test_month_edges_and_whole_days() -> None:
    kept = KeptMonths("line")
    for start, end in [("2024-01-31", "2024-02-01"), ("2024-02-01", "2024-03-01"),
                       ("2024-02-29", "2024-03-01"), ("2024-12-31", "2025-01-01"),
                       ("2024-03-01", "2024-03-02")]:
        first = datetime.fromisoformat(start).replace(tzinfo=UTC)
        last = datetime.fromisoformat(end).replace(tzinfo=UTC)
        direct, assembled = _dicts(first, last, ["moon", "mercury"], "line", kept)
        assert assembled == direct and direct, (start, end)


def test_a_range_ending_or_starting_exactly_on_an_ingress() -> None:
    kept = KeptMonths("line")
    start, end = datetime(2024, 5, 28, tzinfo=UTC), datetime(2024, 6, 3, tzinfo=UTC)
    found = calendar_columns(start, end, ["moon"], "line", blocks=kept)
    exact = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=int(found.at[3]))
    until = calendar_columns(start, exact, ["moon"], "line", blocks=kept)
    after = calendar_columns(exact, end, ["moon"], "line", blocks=kept)
    assert int(until.at[-1]) == int(found.at[3])  # (start, end]: the end is in
    assert int(after.at[0]) == int(found.at[4])  # the start is not
    for first, last in [(start, exact), (exact, end)]:
        assert _dicts(first, last, ["moon"], "line", kept)[0] == calendar_columns(
            first, last, ["moon"], "line", blocks=kept).to_dicts()


def test_a_month_is_the_same_alone_within_a_year_and_for_one_body() -> None:
    calculator = default_calculator(None)
    year = months_between(int(np.datetime64("2025-01-01T00:00", "us").astype(np.int64)),
                          int(np.datetime64("2026-01-01T00:00", "us").astype(np.int64)))
    assert len(year) == 12
    together = compute_blocks(year, EVERY, "line", "true", calculator)
    alone = compute_blocks([year[1]], EVERY, "line", "true", calculator)[0]
    moon = BODIES.index(next(b for b in BODIES if b.value == "moon"))
    only_moon = compute_blocks([year[1]], [moon], "line", "true", calculator)[0]
    for name in ("at", "body", "gate", "line"):
        assert np.array_equal(getattr(together[1], name), getattr(alone, name))
    february = alone.select(-(2**62), 2**62, [moon])
    for name in ("at", "body", "gate", "line"):
        assert np.array_equal(getattr(february, name), getattr(only_moon, name))


def test_to_dicts_is_to_dict_of_every_ingress() -> None:
    start, end = datetime(1850, 6, 1, tzinfo=UTC), datetime(1850, 9, 1, tzinfo=UTC)
    columns = calendar_columns(start, end, level="line")
    assert columns.to_dicts() == [i.to_dict() for i in calendar(start, end, level="line")]


def test_months_at_the_ends_of_the_ephemeris() -> None:
    calculator = default_calculator(None)
    first, last = calculator.first_birth, calculator.last_birth
    kept = KeptMonths("gate")
    for start, end in [(first, first + timedelta(days=40)), (last - timedelta(days=40), last)]:
        direct, assembled = _dicts(start, end, ["sun", "moon"], "gate", kept)
        assert assembled == direct and direct


def test_the_identity_names_the_node() -> None:
    calculator = default_calculator(None)
    assert block_identity(calculator, "true") != block_identity(calculator, "mean")


def _us(text: str) -> int:
    return int(np.datetime64(text, "us").astype(np.int64))


@pytest.mark.parametrize(("first", "last", "expected"), [
    ("1850-01-01T00:00", "1850-03-01T00:00", [("1850-01", "1850-02")]),
    ("1850-01-31T12:00", "1850-02-01T00:00", [("1850-01", "1850-01")]),
    ("1850-01-31T12:00", "1850-02-01T00:00:00.000001", [("1850-01", "1850-02")]),
    ("1969-12-31T23:00", "1970-01-01T01:00", [("1969-12", "1970-01")]),
    ("2199-11-30T00:00", "2199-12-31T00:00", [("2199-11", "2199-12")]),
])
def test_months_hold_the_instants_after_their_first(
    first: str, last: str, expected: list[tuple[str, str]]
) -> None:
    (low, high), = expected
    months = months_between(_us(first), _us(last))
    assert months == list(range(int(np.datetime64(low, "M").astype(np.int64)),
                                int(np.datetime64(high, "M").astype(np.int64)) + 1))
    assert month_start(months[0]) == _us(low + "-01T00:00")
