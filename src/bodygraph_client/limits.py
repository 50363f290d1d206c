"""What the service's headers say about waiting: the rate-limit state (contract section 8)
and the retry rules (section 7, retry guidance).

* ``ratelimit-policy: "100-in-1min"; q=100; w=60; pk=:...:`` gives the quota and window;
* ``ratelimit: "100-in-1min"; r=99; t=60`` the requests remaining and the seconds until
  a slot frees;
* ``Retry-After`` (seconds, or an HTTP date) the wait asked for on a 429.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


def _parameters(value: str) -> tuple[str, dict[str, str]]:
    """A structured-field item ``"name"; k=v; ...``: its name and parameters."""
    name, *rest = (part.strip() for part in value.split(";"))
    params = dict(part.split("=", 1) for part in rest if "=" in part)
    return name.strip('"'), {k.strip(): v.strip() for k, v in params.items()}


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() else None


@dataclass(frozen=True, slots=True)
class RateLimit:
    """The rate-limit state as of the last answer (``None`` where no answer said yet).

    ``limit`` requests per ``window`` seconds under ``policy``; ``remaining`` requests left;
    ``reset`` seconds until a slot frees, counted from the moment of that answer.
    """

    limit: int | None = None
    remaining: int | None = None
    reset: int | None = None
    window: int | None = None
    policy: str | None = None

    def updated(self, headers: Mapping[str, str]) -> RateLimit:
        """This state with what ``headers`` carry (headers absent: unchanged)."""
        state = self
        policy_header = headers.get("ratelimit-policy")
        if policy_header:
            name, params = _parameters(policy_header)
            state = replace(state, policy=name, limit=_int(params.get("q")),
                            window=_int(params.get("w")))
        state_header = headers.get("ratelimit")
        if state_header:
            name, params = _parameters(state_header)
            state = replace(state, policy=name, remaining=_int(params.get("r")),
                            reset=_int(params.get("t")))
        return state


def retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """The ``Retry-After`` wait in seconds (delay-seconds or HTTP-date), ``None`` if
    absent or unreadable."""
    value = headers.get("retry-after", "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - (now or datetime.now(UTC))).total_seconds())


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """When to try a request again (the contract's retry guidance).

    Only the statuses in ``statuses`` are retried (429, 500 and 503): a 429 after the
    ``Retry-After`` seconds it carries (the backoff step when it has none), the others
    after the ``backoff`` steps (1 s, 2 s, 4 s); at most ``len(backoff)`` retries. A 429
    asking to wait longer than ``max_wait`` seconds is not waited for (the
    :class:`~bodygraph_client.errors.RateLimited` error carries the wait).
    ``RetryPolicy(backoff=())`` never retries. 400, 401, 402, 403, 404 and 422 are
    never retried.
    """

    backoff: tuple[float, ...] = (1.0, 2.0, 4.0)
    statuses: frozenset[int] = field(default=frozenset({429, 500, 503}))
    max_wait: float = 60.0

    def delay(self, status: int, wait: float | None, retries_done: int) -> float | None:
        """Seconds to wait before retry number ``retries_done + 1``, or ``None`` for no
        retry. ``wait`` is the answer's Retry-After."""
        if status not in self.statuses or retries_done >= len(self.backoff):
            return None
        if status == 429 and wait is not None:
            return wait if wait <= self.max_wait else None
        return self.backoff[retries_done]
