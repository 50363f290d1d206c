"""The client's typed dictionaries against the service's JSON Schemas: the same keys, all
required, the same JSON types, and every Literal's values equal to the schema's enum;
and the header readers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest

from bodygraph.model.contract import json_schema
from bodygraph_client import (
    ChartResult,
    RateLimit,
    SimpleChart,
    V1Bodygraph,
    V1SimpleBodygraph,
)
from bodygraph_client.limits import RetryPolicy, retry_after

from .schema_check import conforms

PAIRS = [
    (ChartResult, "chart-result"),
    (SimpleChart, "chart-simple-result"),
    (V1Bodygraph, "v1-bodygraph"),
    (V1SimpleBodygraph, "v1-bodygraph-simple"),
]


@pytest.mark.parametrize(("kind", "name"), PAIRS, ids=[p[1] for p in PAIRS])
def test_typed_dict_matches_schema(kind: Any, name: str) -> None:
    conforms(kind, json_schema(name), name)


def test_rate_limit_headers() -> None:
    state = RateLimit().updated({
        "ratelimit-policy": '"100-in-1min"; q=100; w=60; pk=:YWJj:',
        "ratelimit": '"100-in-1min"; r=12; t=34',
    })
    assert state == RateLimit(limit=100, remaining=12, reset=34, window=60,
                              policy="100-in-1min")
    assert state.updated({}) == state
    assert state.updated({"ratelimit": '"100-in-1min"; r=11; t=30'}).remaining == 11


def test_retry_after_forms() -> None:
    now = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    assert retry_after({"retry-after": "5"}) == 5.0
    later = format_datetime(now + timedelta(seconds=90), usegmt=True)
    assert retry_after({"retry-after": later}, now=now) == 90.0
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None


def test_retry_policy() -> None:
    policy = RetryPolicy()
    assert [policy.delay(500, None, n) for n in range(4)] == [1.0, 2.0, 4.0, None]
    assert policy.delay(429, 9.0, 0) == 9.0 and policy.delay(429, None, 1) == 2.0
    assert all(policy.delay(s, None, 0) is None for s in (400, 401, 402, 403, 404, 422, 502))
    assert RetryPolicy(backoff=()).delay(500, None, 0) is None
