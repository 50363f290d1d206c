"""The plan table against the contract's own table, and the pure period/rollover rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bodygraph_server.policy.credits import (
    CreditState,
    LedgerKind,
    add_months,
    cancellation_effective_at,
    overage_price,
    period_bounds,
    period_index_at,
    roll_forward,
)
from bodygraph_server.policy.plans import (
    PLANS,
    Billing,
    Tier,
    UnknownPlanError,
    get_plan,
    tier_allows,
)

# Copied verbatim from the contract (docs/contract.md, section 8, Credits): the expected
# values come from this text, not from the code under test.
CONTRACT_TABLE = """
| Hobbyist | Basic | 5,000 | 6,000 | 10,000 | 2.00 EUR | 22.50 EUR | 225 EUR | none |
| Developer | Advanced | 10,000 | 12,000 | 20,000 | 2.00 EUR | 35 EUR | 350 EUR | none |
| Scale | Advanced | 50,000 | 60,000 | 100,000 | 1.00 EUR | 47.50 EUR | 475 EUR | none |
| Lifetime | Advanced | 50,000 | none | 100,000 | 1.00 EUR | none | none | 1,200 EUR |
"""

ENDPOINTS = [
    "/v2/charts",
    "/v2/charts/simple",
    "/v2/charts/coordinates",
    "/v2/visual-charts",
    "/v2/visual-charts/coordinates",
    "/v1/bodygraphs",
    "/v1/bodygraphs/simple",
]


def _count(cell: str) -> int | None:
    return None if cell == "none" else int(cell.replace(",", ""))


def _money(cell: str) -> Decimal | None:
    return None if cell == "none" else Decimal(cell.removesuffix(" EUR").replace(",", ""))


def _contract_rows() -> list[list[str]]:
    return [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in CONTRACT_TABLE.strip().splitlines()
    ]


@pytest.mark.parametrize("row", _contract_rows(), ids=lambda r: r[0])
def test_plan_table_matches_contract(row: list[str]) -> None:
    title, tier, monthly, annual, cap, overage, m_price, a_price, l_price = row
    plan = get_plan(title)
    assert plan.title == title
    assert plan.tier is Tier(tier.lower())
    assert plan.monthly_credits == _count(monthly)
    assert plan.annual_credits_per_month == _count(annual)
    assert plan.rollover_cap == _count(cap)
    assert plan.overage_per_1000 == _money(overage)
    assert plan.monthly_price == _money(m_price)
    assert plan.annual_price == _money(a_price)
    assert plan.lifetime_price == _money(l_price)


def test_every_plan_is_in_the_contract() -> None:
    assert sorted(PLANS) == sorted(r[0].lower() for r in _contract_rows())
    with pytest.raises(UnknownPlanError):
        get_plan("enterprise")


def test_billing_options() -> None:
    assert get_plan("lifetime").billings == (Billing.LIFETIME,)
    assert get_plan("hobbyist").billings == (Billing.MONTHLY, Billing.ANNUAL)
    assert get_plan("scale").credits_per_month(Billing.ANNUAL) == 60_000
    with pytest.raises(ValueError, match="does not offer"):
        get_plan("lifetime").credits_per_month(Billing.ANNUAL)
    with pytest.raises(ValueError, match="does not offer"):
        get_plan("developer").credits_per_month(Billing.LIFETIME)


@pytest.mark.parametrize("path", ENDPOINTS)
def test_tiers(path: str) -> None:
    # Section 5: Basic reaches only the two simple endpoints; Advanced reaches all.
    basic_ok = path in ("/v2/charts/simple", "/v1/bodygraphs/simple")
    assert tier_allows(Tier.BASIC, path) is basic_ok
    assert tier_allows(Tier.ADVANCED, path)


def test_add_months_clamps_to_month_end() -> None:
    anchor = datetime(2024, 1, 31, 12, tzinfo=UTC)
    got = [add_months(anchor, k).date().isoformat() for k in range(5)]
    assert got == ["2024-01-31", "2024-02-29", "2024-03-31", "2024-04-30", "2024-05-31"]
    assert add_months(anchor, 13).date().isoformat() == "2025-02-28"


instants = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2090, 1, 1), timezones=st.just(UTC)
)


@given(
    anchor=instants, offset=st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=4000))
)
def test_period_index_brackets_now(anchor: datetime, offset: timedelta) -> None:
    now = anchor + offset
    index = period_index_at(anchor, now)
    start, end = period_bounds(anchor, index)
    assert start <= now < end
    assert index >= 0


@given(
    plan_name=st.sampled_from(sorted(PLANS)),
    balance=st.integers(0, 300_000),
    months=st.integers(0, 40),
)
def test_roll_forward_rules(plan_name: str, balance: int, months: int) -> None:
    plan = get_plan(plan_name)
    billing = plan.billings[0]
    anchor = datetime(2025, 3, 31, tzinfo=UTC)
    now = add_months(anchor, months) + timedelta(seconds=1)
    state, changes = roll_forward(
        CreditState(0, balance), plan=plan, billing=billing, anchor=anchor, cancel_at=None, now=now
    )
    assert state.period_index == months
    # The ledger explains the balance exactly.
    assert balance + sum(c.delta for c in changes) == state.balance
    # Reference model, step by step: carry at most the cap, then add the allocation.
    expected = balance
    for _ in range(months):
        expected = min(expected, plan.rollover_cap) + plan.monthly_credits
    assert state.balance == expected
    assert [c.kind for c in changes].count(LedgerKind.ALLOCATION) == months


def test_roll_forward_stops_at_cancellation() -> None:
    plan = get_plan("developer")
    anchor = datetime(2025, 1, 15, tzinfo=UTC)
    cancel_at = cancellation_effective_at(anchor, Billing.MONTHLY, anchor + timedelta(days=40))
    assert cancel_at == datetime(2025, 3, 15, tzinfo=UTC)
    state, changes = roll_forward(
        CreditState(0, 7),
        plan=plan,
        billing=Billing.MONTHLY,
        anchor=anchor,
        cancel_at=cancel_at,
        now=datetime(2025, 6, 1, tzinfo=UTC),
    )
    assert state.balance == 0
    kinds = [(c.kind, c.delta) for c in changes]
    assert kinds == [(LedgerKind.ALLOCATION, 10_000), (LedgerKind.CANCELLATION, -10_007)]


def test_annual_cancellation_runs_to_the_end_of_the_year() -> None:
    anchor = datetime(2025, 1, 15, tzinfo=UTC)
    requested = datetime(2025, 4, 2, tzinfo=UTC)
    assert cancellation_effective_at(anchor, Billing.ANNUAL, requested) == datetime(
        2026, 1, 15, tzinfo=UTC
    )
    in_second_year = datetime(2026, 2, 1, tzinfo=UTC)
    assert cancellation_effective_at(anchor, Billing.ANNUAL, in_second_year) == datetime(
        2027, 1, 15, tzinfo=UTC
    )
    assert cancellation_effective_at(anchor, Billing.LIFETIME, requested) == datetime(
        2025, 4, 15, tzinfo=UTC
    )


@pytest.mark.parametrize(
    ("plan_name", "calls", "price"),
    [
        ("developer", 1000, "2.00"),
        ("developer", 1500, "3.00"),
        ("hobbyist", 3, "0.01"),  # 0.006 EUR rounds half-up to a cent
        ("scale", 2, "0.00"),  # 0.002 EUR
        ("scale", 5, "0.01"),  # 0.005 EUR: half-up
        ("lifetime", 12_345, "12.35"),  # 12.345 EUR: half-up
    ],
)
def test_overage_price(plan_name: str, calls: int, price: str) -> None:
    assert overage_price(get_plan(plan_name), calls) == Decimal(price)
