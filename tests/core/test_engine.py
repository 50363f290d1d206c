"""The engine: instants, ranges, kernels, determinism and physical sanity."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from contract_schemas import validate_contract as validate
from hypothesis import given, settings
from hypothesis import strategies as st

import bodygraph
from bodygraph.calculator import Calculator, default_calculator
from bodygraph.ephemeris.kernel import ENV_VARIABLE, shipped_kernel
from bodygraph.model.chart import Authority, ChartType, Definition
from bodygraph.testing import birth_instants

EXAMPLE = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)


def test_example_chart() -> None:
    chart = bodygraph.calculate(EXAMPLE)
    assert chart.incarnation_cross == "Right Angle Cross of Tension (38/39 | 48/21)"
    assert chart.type is ChartType.GENERATOR
    assert (chart.personality.sun.gate, chart.personality.sun.line) == (38, 3)
    assert (chart.design.sun.gate, chart.design.sun.line) == (48, 5)


def test_naive_datetime_is_an_error() -> None:
    with pytest.raises(bodygraph.InvalidInstantError, match="no time zone"):
        bodygraph.calculate(datetime(1980, 1, 3, 8, 30))


def test_offsets_do_not_change_the_chart() -> None:
    local = EXAMPLE.astimezone(timezone(timedelta(hours=5, minutes=45)))
    assert bodygraph.calculate(local) == bodygraph.calculate(EXAMPLE)


@pytest.mark.parametrize("instant", [
    datetime(1700, 1, 1, tzinfo=UTC),
    datetime(1800, 2, 1, tzinfo=UTC),  # birth inside the kernel, design before it
    datetime(2200, 6, 1, tzinfo=UTC),
])
def test_out_of_range_is_a_typed_error_naming_the_range(instant: datetime) -> None:
    with pytest.raises(bodygraph.OutOfRangeError) as info:
        bodygraph.calculate(instant)
    assert "1800-04-04" in str(info.value) and "2199-12-31" in str(info.value)


def test_range_edges_are_served() -> None:
    calc = default_calculator(None)
    for instant in (calc.first_birth, calc.last_birth):
        chart = calc.calculate(instant)
        assert chart.birth_utc == instant


def test_mean_node_differs_from_true_node_but_keeps_opposition() -> None:
    true = bodygraph.calculate(EXAMPLE)
    mean = bodygraph.calculate(EXAMPLE, node="mean")
    assert mean.node == "mean"
    assert true.personality.north_node.longitude != mean.personality.north_node.longitude
    difference = abs(true.personality.north_node.longitude - mean.personality.north_node.longitude)
    assert min(difference, 360 - difference) < 2.0  # the true node swings about the mean
    for chart in (true, mean):
        south = (chart.personality.north_node.longitude + 180) % 360
        assert chart.personality.south_node.longitude == pytest.approx(south, abs=1e-9)


def test_unknown_node_is_an_error() -> None:
    with pytest.raises(bodygraph.BodygraphError):
        bodygraph.calculate(EXAMPLE, node="osculating")  # type: ignore[arg-type]


def test_another_kernel_by_path_and_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "my-kernel.bsp"
    shutil.copyfile(shipped_kernel(), copy)
    with Calculator(copy) as calculator:
        assert calculator.kernel_path == copy.resolve()
        by_path = calculator.calculate(EXAMPLE)
    monkeypatch.setenv(ENV_VARIABLE, str(copy))
    with Calculator() as calculator:
        assert calculator.kernel_path == copy.resolve()
        assert calculator.calculate(EXAMPLE) == by_path == bodygraph.calculate(EXAMPLE)


def test_missing_or_bad_kernel_is_an_ephemeris_error(tmp_path: Path) -> None:
    with pytest.raises(bodygraph.EphemerisError, match="not found"):
        Calculator(tmp_path / "nope.bsp")
    junk = tmp_path / "junk.bsp"
    junk.write_bytes(b"not a kernel" * 100)
    with pytest.raises(bodygraph.EphemerisError):
        Calculator(junk)


@settings(max_examples=25, deadline=None)
@given(birth_instants(any_offset=True))
def test_same_input_same_chart(instant: datetime) -> None:
    first = bodygraph.calculate(instant)
    assert bodygraph.calculate(instant) == first
    assert bodygraph.calculate(instant.astimezone(UTC)) == first
    batch = default_calculator(None).calculate_list([instant, EXAMPLE, instant])
    assert batch[0] == batch[2]
    assert batch[0].to_v2() == first.to_v2()
    for ours, theirs in zip(batch[0].design, first.design, strict=True):
        assert ours.longitude == pytest.approx(theirs.longitude, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(birth_instants(), st.sampled_from(["true", "mean"]))
def test_physical_and_format_invariants(instant: datetime, node: str) -> None:
    chart = bodygraph.calculate(instant, node=node)  # type: ignore[arg-type]
    days = (chart.birth_utc - chart.design_utc).total_seconds() / 86400
    assert 86 <= days <= 93
    for side in (chart.personality, chart.design):
        for a, b in ((side.sun, side.earth), (side.north_node, side.south_node)):
            assert (a.line, a.color, a.tone, a.base) == (b.line, b.color, b.tone, b.base)
            assert a.gate != b.gate
        for activation in side:
            assert 0 <= activation.longitude < 360
    arc = (chart.personality.sun.longitude - chart.design.sun.longitude) % 360
    assert arc == pytest.approx(88.0, abs=1e-6)
    assert chart.type in ChartType and chart.authority in Authority
    assert chart.definition in Definition
    validate(chart.to_v2(), "chart-result", formats=True)
    validate(chart.to_v1(), "v1-bodygraph", formats=True)
    validate(chart.to_v2_simple(), "chart-simple-result")
    validate(chart.to_v1_simple(), "v1-bodygraph-simple")


def test_design_instant_is_solved_to_a_hundredth_of_a_second() -> None:
    calc = default_calculator(None)
    e = calc.epochs([EXAMPLE])
    # The Sun moves about 0.041 arcsec per second: 0.01 s is 0.0004 arcsec.
    arc = (e.personality[0, 0] - e.design_longitudes[0, 0]) % 360
    assert abs(arc - 88.0) * 3600 < 0.0004


def test_schemas_are_up_to_date() -> None:
    import importlib.util

    script = Path(__file__).parents[2] / "scripts" / "make_schemas.py"
    spec = importlib.util.spec_from_file_location("make_schemas", script)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, text in module.rendered().items():
        stored = (Path(bodygraph.__file__).parent / "model" / "schemas" / name).read_text("utf-8")
        assert stored == text, f"{name} is stale: run python scripts/make_schemas.py"
