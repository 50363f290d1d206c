"""Penta: gates and channels against the definitions, member order, group size."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bodygraph import BodygraphError, calculate, penta
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import Chart
from bodygraph.relations import PENTA_GATES
from bodygraph.relations.penta import penta_channels
from bodygraph.testing import penta_groups

from .independent import PENTA_PAIRS

ISSUE_GATES = (1, 2, 5, 7, 8, 13, 14, 15, 29, 31, 33, 46)


def test_the_twelve_gates_and_six_channels() -> None:
    assert PENTA_GATES == ISSUE_GATES
    assert {c.gates for c in penta_channels()} == PENTA_PAIRS
    assert all({"G"} & set(c.centers) for c in penta_channels())


@settings(max_examples=40, deadline=None)
@given(penta_groups())
def test_penta_of_random_groups_matches_the_definition(group: list[Chart]) -> None:
    held = {g for chart in group for g in chart.gates}
    result = penta(group)
    assert result.gates == tuple(g for g in ISSUE_GATES if g in held)
    assert {c.gates for c in result.channels} == {
        (x, y) for x, y in PENTA_PAIRS if x in held and y in held}
    assert set(result.gates) | set(result.missing_gates) == set(ISSUE_GATES)
    assert result.members == tuple(chart.birth_utc for chart in group)


@settings(max_examples=30, deadline=None)
@given(penta_groups(), st.randoms(use_true_random=False))
def test_penta_is_invariant_under_member_order(group: list[Chart], rng: object) -> None:
    shuffled = list(group)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    a, b = penta(group), penta(shuffled)
    assert (a.gates, a.channels) == (b.gates, b.channels)


@pytest.mark.parametrize("size", [0, 1, 2, 6, 7])
def test_other_group_sizes_are_a_clear_error(size: int) -> None:
    chart = calculate(datetime(1980, 1, 3, 8, 30, tzinfo=UTC))
    with pytest.raises(InvalidOptionError, match=f"3 to 5 members, not {size}") as caught:
        penta([chart] * size)
    assert isinstance(caught.value, BodygraphError)
    assert isinstance(caught.value, ValueError)


def test_json_shape() -> None:
    group = [calculate(datetime(y, 1, 3, 8, 30, tzinfo=UTC)) for y in (1980, 1983, 1990)]
    assert penta(group).to_dict() == {
        "members": ["1980-01-03T08:30:00.000Z", "1983-01-03T08:30:00.000Z",
                    "1990-01-03T08:30:00.000Z"],
        "gates": ["1", "2", "5", "7", "13", "14", "33", "46"],
        "channels": ["13-33", "2-14"],
    }
