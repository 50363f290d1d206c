"""The plan table of the contract (section 8) as data, and the access tiers (section 5).

Money is :class:`decimal.Decimal` in EUR. ``None`` means "not offered" (for example the
Lifetime plan has no monthly price and no annual billing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from types import MappingProxyType


class Tier(StrEnum):
    """Access tiers: Basic reaches only the simple-chart endpoints, Advanced reaches all."""

    BASIC = "basic"
    ADVANCED = "advanced"


class Billing(StrEnum):
    """How an account pays: monthly, annually (more credits per month) or once (Lifetime)."""

    MONTHLY = "monthly"
    ANNUAL = "annual"
    LIFETIME = "lifetime"


CURRENCY = "EUR"


@dataclass(frozen=True, slots=True)
class Plan:
    """One row of the plan table."""

    name: str
    title: str
    tier: Tier
    monthly_credits: int
    annual_credits_per_month: int | None
    rollover_cap: int
    overage_per_1000: Decimal
    monthly_price: Decimal | None
    annual_price: Decimal | None
    lifetime_price: Decimal | None

    @property
    def billings(self) -> tuple[Billing, ...]:
        """The billing options this plan offers (the first is the default)."""
        if self.lifetime_price is not None:
            return (Billing.LIFETIME,)
        options = [Billing.MONTHLY]
        if self.annual_credits_per_month is not None:
            options.append(Billing.ANNUAL)
        return tuple(options)

    def credits_per_month(self, billing: Billing) -> int:
        """Credits allocated at the start of every monthly period under ``billing``."""
        if billing not in self.billings:
            raise ValueError(f"plan {self.name} does not offer {billing.value} billing")
        if billing is Billing.ANNUAL:
            assert self.annual_credits_per_month is not None
            return self.annual_credits_per_month
        return self.monthly_credits


PLANS: Mapping[str, Plan] = MappingProxyType(
    {
        "hobbyist": Plan(
            name="hobbyist",
            title="Hobbyist",
            tier=Tier.BASIC,
            monthly_credits=5_000,
            annual_credits_per_month=6_000,
            rollover_cap=10_000,
            overage_per_1000=Decimal("2.00"),
            monthly_price=Decimal("22.50"),
            annual_price=Decimal("225"),
            lifetime_price=None,
        ),
        "developer": Plan(
            name="developer",
            title="Developer",
            tier=Tier.ADVANCED,
            monthly_credits=10_000,
            annual_credits_per_month=12_000,
            rollover_cap=20_000,
            overage_per_1000=Decimal("2.00"),
            monthly_price=Decimal("35"),
            annual_price=Decimal("350"),
            lifetime_price=None,
        ),
        "scale": Plan(
            name="scale",
            title="Scale",
            tier=Tier.ADVANCED,
            monthly_credits=50_000,
            annual_credits_per_month=60_000,
            rollover_cap=100_000,
            overage_per_1000=Decimal("1.00"),
            monthly_price=Decimal("47.50"),
            annual_price=Decimal("475"),
            lifetime_price=None,
        ),
        "lifetime": Plan(
            name="lifetime",
            title="Lifetime",
            tier=Tier.ADVANCED,
            monthly_credits=50_000,
            annual_credits_per_month=None,
            rollover_cap=100_000,
            overage_per_1000=Decimal("1.00"),
            monthly_price=None,
            annual_price=None,
            lifetime_price=Decimal("1200"),
        ),
    }
)

#: Paths a Basic-tier key may call (section 5); Advanced may call every path.
BASIC_PATHS: frozenset[str] = frozenset({"/v2/charts/simple", "/v1/bodygraphs/simple"})


class UnknownPlanError(ValueError):
    """A plan name that is not in :data:`PLANS`."""


def get_plan(name: str) -> Plan:
    """The plan called ``name`` (case-insensitive)."""
    try:
        return PLANS[name.strip().lower()]
    except KeyError:
        known = ", ".join(PLANS)
        raise UnknownPlanError(f"unknown plan {name!r} (known: {known})") from None


def tier_allows(tier: Tier, path: str) -> bool:
    """Whether ``tier`` may call the endpoint at ``path`` (e.g. ``"/v2/charts"``)."""
    if tier is Tier.ADVANCED:
        return True
    return path.rstrip("/") in BASIC_PATHS
