"""The plan table of the contract (section 8), loaded from ``data/plans.json``, and the
access tiers (section 5); money is :class:`decimal.Decimal` in EUR, ``None`` not offered."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from importlib import resources
from types import MappingProxyType
from typing import Any


class Tier(StrEnum):
    """Access tiers: Basic reaches only the simple-chart endpoints, Advanced reaches all."""

    BASIC = "basic"
    ADVANCED = "advanced"


class Billing(StrEnum):
    """How an account pays: monthly, annually (more credits per month) or once (Lifetime)."""

    MONTHLY = "monthly"
    ANNUAL = "annual"
    LIFETIME = "lifetime"


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


def _money(text: str | None) -> Decimal | None:
    return None if text is None else Decimal(text)


def _load_plans() -> Mapping[str, Plan]:
    raw: dict[str, Any] = json.loads(
        resources.files("bodygraph_server").joinpath("data/plans.json").read_text("utf-8")
    )
    plans = {}
    for row in raw["plans"]:
        plans[row["name"]] = Plan(
            name=row["name"],
            title=row["title"],
            tier=Tier(row["tier"]),
            monthly_credits=int(row["monthly_credits"]),
            annual_credits_per_month=row["annual_credits_per_month"],
            rollover_cap=int(row["rollover_cap"]),
            overage_per_1000=Decimal(row["overage_per_1000"]),
            monthly_price=_money(row["monthly_price"]),
            annual_price=_money(row["annual_price"]),
            lifetime_price=_money(row["lifetime_price"]),
        )
    return MappingProxyType(plans)


#: The plans by name, loaded once from ``data/plans.json`` (the contract's section 8).
PLANS: Mapping[str, Plan] = _load_plans()

#: Paths a Basic-tier key may call (section 5; and the MCP endpoint, whose tool calls take
#: their matching endpoint's tier); Advanced may call every path.
BASIC_PATHS: frozenset[str] = frozenset({"/v2/charts/simple", "/v1/bodygraphs/simple", "/mcp"})
#: Paths of the caller's own account, open to every tier (docs/accounts.md, "Self-service").
ACCOUNT_PATHS: frozenset[str] = frozenset({
    "/v2/account", "/v2/account/usage", "/v2/account/keys/rotate",
    "/v2/account/webhook-secret", "/v2/account/webhook-secret/rotate",
})
#: Every path a Basic-tier key may call (made once: :func:`tier_allows` runs per request).
_BASIC_TIER_PATHS: frozenset[str] = BASIC_PATHS | ACCOUNT_PATHS


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
    return path.rstrip("/") in _BASIC_TIER_PATHS
