"""The bookkeeping facade the HTTP layer and the admin CLI use: authentication, tier
checks, rate limiting, charging and account administration (the flow and the
refusals: docs/accounts.md)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import overload

from bodygraph_server.billing.keys import derived_key, generate_key, hash_key
from bodygraph_server.billing.principals import (
    Denial,
    Denied,
    IssuedKey,
    Principal,
    denied,
    principal_of,
)
from bodygraph_server.billing.ratelimit import (
    AUTH_FAILURE_LIMIT,
    RateLimiter,
    StoreRateLimiter,
    auth_failure_bucket,
    open_rate_limiter,
    rate_limit_headers,
)
from bodygraph_server.policy.clock import Clock, SystemClock
from bodygraph_server.policy.plans import Billing, get_plan, tier_allows
from bodygraph_server.store import (
    DEFAULT_BUSY_TIMEOUT,
    Account,
    AccountNotFoundError,
    AccountOverview,
    AccountStatus,
    Audit,
    ChargeRefusal,
    EndpointDay,
    IdempotencyClaim,
    InvalidOperationError,
    LedgerEntry,
    PeriodUsage,
    RateDecision,
    Replay,
    Reservation,
    Store,
    StoreError,
    open_store,
)

__all__ = [
    "Account",
    "AccountNotFoundError",
    "AccountStatus",
    "Bookkeeper",
    "Denial",
    "Denied",
    "InvalidOperationError",
    "IssuedKey",
    "Principal",
    "RateDecision",
    "Reservation",
    "StoreError",
]


def _refused(refusal: ChargeRefusal) -> Denied:
    """The refusal a caller sees for the store's."""
    if refusal is ChargeRefusal.ACCOUNT_INACTIVE:
        return denied(Denial.ACCOUNT_INACTIVE)
    return denied(Denial.CREDITS_EXHAUSTED)


class Bookkeeper:
    """Accounts, keys, credits and the rate limit over one :class:`Store`.

    Owns the store and the rate limiters it is given (``close`` closes them all):
    ``rate_limiter`` counts the requests of each key, ``failure_limiter`` the failed
    authentications of each client address (default: windows in ``store``).
    """

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock | None = None,
        rate_limiter: RateLimiter | None = None,
        failure_limiter: RateLimiter | None = None,
    ) -> None:
        self.store = store
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.rate_limiter: RateLimiter = (
            rate_limiter if rate_limiter is not None else open_rate_limiter(None, store)
        )
        self.failure_limiter: RateLimiter = (
            failure_limiter if failure_limiter is not None
            else open_rate_limiter(None, store, limit=AUTH_FAILURE_LIMIT)
        )

    @classmethod
    def open(
        cls,
        database_url: str,
        *,
        clock: Clock | None = None,
        rate_limit_url: str | None = None,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> Bookkeeper:
        """Open the store at ``database_url`` (migrating it) and the rate limiter at
        ``rate_limit_url`` (None: the store itself; ``redis://...``: Redis);
        ``busy_timeout``: see :func:`~bodygraph_server.store.open_store`."""
        store = open_store(database_url, busy_timeout=busy_timeout)
        limiters: list[RateLimiter] = []
        try:
            limiters.append(open_rate_limiter(rate_limit_url, store))
            limiters.append(open_rate_limiter(rate_limit_url, store, limit=AUTH_FAILURE_LIMIT))
        except BaseException:
            for limiter in limiters:
                limiter.close()
            store.close()
            raise
        return cls(store, clock=clock, rate_limiter=limiters[0], failure_limiter=limiters[1])

    def close(self) -> None:
        """Close the rate limiters and the store."""
        self.rate_limiter.close()
        self.failure_limiter.close()
        self.store.close()

    def __enter__(self) -> Bookkeeper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- request path ----------------------------------------------------------------------

    def authenticate(self, api_key: str) -> Principal | Denied:
        """The principal for ``api_key``; API_KEY_INVALID for an unknown or rotated-away
        key, ACCOUNT_INACTIVE for a deactivated account. A missing key is the HTTP
        layer's API_KEY_MISSING and never reaches here."""
        key = api_key.strip()
        if not key:
            return denied(Denial.API_KEY_INVALID)
        return principal_of(self.store.find_key(hash_key(key)))

    def admit(self, api_key: str) -> tuple[Principal | Denied, RateDecision | None]:
        """:meth:`authenticate`, then for a principal :meth:`check_rate`: the outcome and
        the rate decision (None when refused before the rate limit). With the windows
        in the store itself, both are one store call
        (:meth:`~bodygraph_server.store.Store.admit_key`: one round trip on PostgreSQL)."""
        windows = self.windows_for(api_key)
        if windows is not None:
            key_hash, limiter = windows
            record, decision = limiter.admit(key_hash, self.clock.now())
            return principal_of(record), decision
        outcome = self.authenticate(api_key)
        if isinstance(outcome, Principal):
            return outcome, self.check_rate(outcome)
        return outcome, None

    def count_auth_failure(self, address: str) -> RateDecision:
        """Count a failed authentication (an unknown key) from client ``address`` in its
        window (:data:`~bodygraph_server.billing.ratelimit.AUTH_FAILURE_LIMIT` per 60 s);
        refused once the window is full: the request is then answered 429."""
        return self.failure_limiter.hit(auth_failure_bucket(address), self.clock.now())

    def windows_for(self, api_key: str) -> tuple[str, StoreRateLimiter] | None:
        """The hash of ``api_key`` and the rate limiter when the limiter keeps its windows
        in this bookkeeping's own store (admission is then one store call); None for
        another limiter or a blank key."""
        limiter, key = self.rate_limiter, api_key.strip()
        if key and isinstance(limiter, StoreRateLimiter) and limiter.store is self.store:
            return hash_key(key), limiter
        return None

    def authorize(self, principal: Principal, path: str) -> Denied | None:
        """ACCESS_DENIED when ``path`` is above the principal's tier, else None."""
        if tier_allows(principal.tier, path):
            return None
        return denied(Denial.ACCESS_DENIED)

    def check_rate(self, principal: Principal) -> RateDecision:
        """Count this request against the key's sliding window (100 per 60 s)."""
        return self.rate_limiter.hit(principal.key_hash, self.clock.now())

    def rate_headers(self, principal: Principal, decision: RateDecision) -> dict[str, str]:
        """``ratelimit-policy``, ``ratelimit`` and (if refused) ``Retry-After`` values."""
        return rate_limit_headers(decision, principal.key_hash)

    @overload
    def reserve(
        self, principal: Principal, endpoint: str, claim: None = None, *,
        now: datetime | None = None,
    ) -> Reservation | Denied: ...

    @overload
    def reserve(
        self, principal: Principal, endpoint: str, claim: IdempotencyClaim, *,
        now: datetime | None = None,
    ) -> Reservation | Denied | Replay: ...

    def reserve(
        self, principal: Principal, endpoint: str, claim: IdempotencyClaim | None = None, *,
        now: datetime | None = None,
    ) -> Reservation | Denied | Replay:
        """Take 1 credit (or record an overage call) before computing; see
        :meth:`commit` and :meth:`release`. With an idempotency ``claim``
        (:mod:`bodygraph_server.billing.idempotency`), a key used before is a
        :class:`Replay` instead and nothing is taken. ``now``: the clock's time unless
        given (a keyed reservation is found by it after a lost acknowledgement)."""
        at = self.clock.now() if now is None else now
        outcome = self.store.reserve(principal.account_id, endpoint, at, claim)
        return _refused(outcome) if isinstance(outcome, ChargeRefusal) else outcome

    def reserve_generally(self, principal: Principal, endpoint: str) -> Reservation | Denied:
        """:meth:`reserve` (no idempotency claim) by the general rules only, for a caller
        whose one-statement reservation did not apply
        (:class:`~bodygraph_server.billing.request_path.RequestBook`): it is not tried
        again."""
        outcome = self.store.general_reserve(principal.account_id, endpoint, self.clock.now())
        if isinstance(outcome, Replay):  # pragma: no cover - only with a claim
            raise InvalidOperationError("a replay without an idempotency claim")
        return _refused(outcome) if isinstance(outcome, ChargeRefusal) else outcome

    def commit(self, reservation: Reservation) -> None:
        """The call succeeded: count (and, for overage, bill) it."""
        self.store.commit(reservation.id, self.clock.now())

    def commit_many(self, reservations: Sequence[Reservation]) -> list[bool]:
        """Commit several successful calls at once (one transaction on the SQL stores);
        for each, whether its reservation was still pending."""
        return self.store.commit_many([r.id for r in reservations], self.clock.now())

    def release(self, reservation: Reservation) -> None:
        """The call failed: give the credit back; the call is not billed."""
        self.store.release(reservation.id, self.clock.now())

    # -- administration --------------------------------------------------------------------

    def create_account(self, plan_name: str, billing: Billing | str | None = None) -> IssuedKey:
        """A new account on ``plan_name`` with its first key (default billing: the plan's
        first option, monthly or lifetime)."""
        plan = get_plan(plan_name)
        chosen = plan.billings[0] if billing is None else Billing(billing)
        if chosen not in plan.billings:
            offered = ", ".join(b.value for b in plan.billings)
            raise InvalidOperationError(
                f"plan {plan.name} does not offer {chosen.value} billing (offers: {offered})"
            )
        key = generate_key()
        account = self.store.create_account(
            plan, chosen, key_hash=key.key_hash, key_prefix=key.display_prefix,
            now=self.clock.now()
        )
        return IssuedKey(account, key.api_key)

    def rotate_key(self, account_id: int) -> IssuedKey:
        """Replace the account's key; the old key stops working immediately."""
        key = generate_key()
        account = self.store.rotate_key(
            account_id, key.key_hash, key.display_prefix, self.clock.now()
        )
        return IssuedKey(account, key.api_key)

    def account(self, account_id: int) -> Account:
        """The account (periods rolled forward)."""
        return self.store.get_account(account_id, self.clock.now())

    def accounts(self) -> list[Account]:
        """All accounts."""
        return self.store.list_accounts(self.clock.now())

    def deactivate(self, account_id: int) -> Account:
        """Block the account: its requests give ACCOUNT_INACTIVE."""
        return self.store.set_active(account_id, False, self.clock.now())

    def activate(self, account_id: int) -> Account:
        """Unblock a deactivated account."""
        return self.store.set_active(account_id, True, self.clock.now())

    def cancel(self, account_id: int) -> Account:
        """Cancel at the end of the current billing period."""
        return self.store.cancel(account_id, self.clock.now())

    def set_overage(self, account_id: int, enabled: bool) -> Account:
        """Enable or disable overage billing."""
        return self.store.set_overage(account_id, enabled, self.clock.now())

    def adjust_credits(self, account_id: int, balance: int, note: str = "") -> LedgerEntry:
        """Set the balance, recorded in the ledger."""
        if balance < 0:
            raise InvalidOperationError("the balance cannot be negative")
        return self.store.adjust_credits(account_id, balance, self.clock.now(), note)

    def usage(self, account_id: int) -> list[PeriodUsage]:
        """Per-period usage report."""
        return self.store.usage(account_id, self.clock.now())

    def ledger(self, account_id: int) -> list[LedgerEntry]:
        """The account's ledger."""
        return self.store.ledger(account_id, self.clock.now())

    def audit(self, account_id: int) -> Audit:
        """The ledger check."""
        return self.store.audit(account_id, self.clock.now())

    # -- what an account's owner sees (the self-service account API) ----------------------

    def overview(self, account_id: int) -> AccountOverview:
        """The account and its current period's figures."""
        return self.store.account_overview(account_id, self.clock.now())

    def rotate_own_key(self, principal: Principal,
                       asked: tuple[str, str] | None = None) -> IssuedKey | Denied:
        """Replace the key ``principal`` called with (and every other key of its account)
        by a new one, which goes on with its rate-limit window; API_KEY_INVALID when that
        key was rotated away meanwhile. ``asked``: the key presented and the request's
        Idempotency-Key, from which the new key is derived (:func:`derived_key`)."""
        key = generate_key() if asked is None else derived_key(*asked)
        now = self.clock.now()
        account = self.store.rotate_own_key(principal.account_id, principal.key_id,
                                            key_hash=key.key_hash,
                                            key_prefix=key.display_prefix, now=now)
        if account is None:
            return denied(Denial.API_KEY_INVALID)
        # The rate limit is per key: the new key goes on with the old one's window, so
        # that a rotation is no way around the limit.
        self.rate_limiter.carry(principal.key_hash, key.key_hash, now)
        return IssuedKey(account, key.api_key)

    def replay_rotation(self, api_key: str, idempotency_key: str,
                        window: timedelta) -> IssuedKey | None:
        """The answer again of the rotation that replaced ``api_key`` within the last
        ``window``, asked with ``idempotency_key``: the key it made, if that is still the
        account's current key and the account is active; else None."""
        key = derived_key(api_key.strip(), idempotency_key)
        account = self.store.replayed_rotation(hash_key(api_key.strip()), key.key_hash,
                                               since=self.clock.now() - window)
        if account is None or not account.active:
            return None
        return IssuedKey(account, key.api_key)

    def usage_by_day(self, account_id: int, days: int) -> tuple[date, list[EndpointDay]]:
        """The first of the last ``days`` UTC days (today included) and the account's calls
        on them, by day and endpoint."""
        first = self.clock.now().date() - timedelta(days=days - 1)
        return first, self.store.usage_by_day(account_id, first)

    def webhook_secret(self, account_id: int) -> str:
        """The account's webhook signing secret (made on first ask)."""
        return self.store.webhook_secret(account_id, self.clock.now())

    def rotate_webhook_secret(self, account_id: int) -> str:
        """A new webhook signing secret for the account; the old one signs nothing more."""
        return self.store.rotate_webhook_secret(account_id, self.clock.now())
