"""The bookkeeping store: :class:`SqlStore` composes one repository per table family
over the transactions of a :class:`~.connections.Database` (SQLite or PostgreSQL), and
offers the PostgreSQL request path (:mod:`.request_path`) where the backend has one."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.policy.plans import Billing, Plan
from bodygraph_server.store.account_usage import (
    AccountOverview,
    AccountUsageRepository,
    EndpointDay,
)
from bodygraph_server.store.accounts import AccountRepository
from bodygraph_server.store.batch_charges import BatchChargeRepository
from bodygraph_server.store.charges import ChargeRepository, not_pending
from bodygraph_server.store.connections import Database, Tx
from bodygraph_server.store.errors import InvalidOperationError, ReservationNotFoundError
from bodygraph_server.store.idempotency import IdempotencyRepository
from bodygraph_server.store.key_rotation import KeyRotationRepository
from bodygraph_server.store.ledger import LedgerRepository
from bodygraph_server.store.outcomes import settling
from bodygraph_server.store.rate_hits import RateHitRepository
from bodygraph_server.store.records import (
    Account,
    ApiKeyRecord,
    Audit,
    ChargeRefusal,
    IdempotencyClaim,
    LedgerEntry,
    PeriodUsage,
    RateDecision,
    Replay,
    Reservation,
    UsageStatus,
)
from bodygraph_server.store.render_keys import RenderKeyRepository
from bodygraph_server.store.schema import migrate, read_migrations, version
from bodygraph_server.store.webhook_secrets import WebhookSecretRepository, new_webhook_secret

if TYPE_CHECKING:
    from bodygraph_server.store.async_request_path import AsyncRequestPath
    from bodygraph_server.store.request_path import RequestPath

__all__ = ["SqlStore"]


class SqlStore:
    """The bookkeeping's persistence (the contract: docs/accounts.md). Blocking and
    thread-safe; every instant passed in is the caller's clock. Opening it creates or
    migrates the schema; ``request_path``: the PostgreSQL one-round-trip calls."""

    def __init__(self, database: Database, *, url: str,
                 request_path: RequestPath | None = None) -> None:
        self.database = database
        self.url = url
        self.request_path = request_path
        with database.write_transaction() as tx:
            migrate(tx, self._migration_files())

    def _migration_files(self) -> list[tuple[int, str]]:
        """The backend's numbered migration scripts, in order."""
        return list(read_migrations(self.database.dialect.migrations))

    # -- lifecycle and transactions --------------------------------------------------------

    def schema_version(self) -> int:
        """The highest migration applied (migrations run automatically when opened)."""
        with self.database.read_transaction() as tx:
            return version(tx)

    def close(self) -> None:
        """Close every connection this store opened (in this process)."""
        self.database.close()

    def __enter__(self) -> SqlStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ping(self) -> None:
        """Return if the database answers a query, else raise
        :class:`~bodygraph_server.store.errors.DatabaseUnavailableError`."""
        with self.database.read_transaction() as tx:
            tx.one("SELECT 1")

    def check_writable(self) -> None:
        """Return if the database stores a write (committed), else raise
        :class:`~bodygraph_server.store.errors.DatabaseUnavailableError`: read-only, full
        or locked, it cannot charge."""
        self.database.check_writable()

    def async_request_path(self) -> AsyncRequestPath | None:
        """The request path's statements on the running event loop, where the backend has
        them (PostgreSQL); None: every call goes through the bookkeeping threads."""
        if self.request_path is None:
            return None
        from bodygraph_server.store.async_request_path import AsyncRequestPath  # imports psycopg

        return AsyncRequestPath(self.request_path)

    def write_transaction(self) -> AbstractContextManager[Tx]:
        """A write transaction (see :meth:`Database.write_transaction`)."""
        return self.database.write_transaction()

    def read_transaction(self) -> AbstractContextManager[Tx]:
        """A read-only transaction (a consistent snapshot)."""
        return self.database.read_transaction()

    def lock_account(self, tx: Tx, account_id: int) -> None:
        """Lock account ``account_id`` for the rest of ``tx`` (a write transaction);
        :class:`AccountNotFoundError` if there is no such account."""
        AccountRepository(tx).select(account_id, lock=True)

    # -- accounts and keys -----------------------------------------------------------------

    def create_account(
        self, plan: Plan, billing: Billing, key_hash: str, key_prefix: str, now: datetime
    ) -> Account:
        """Create an account with its first API key (given as hash) and its first
        allocation; the period anchor is ``now`` truncated to whole seconds."""
        with self.database.write_transaction() as tx:
            return AccountRepository(tx).create(plan, billing, key_hash=key_hash,
                                                key_prefix=key_prefix, now=now)

    def get_account(self, account_id: int, now: datetime) -> Account:
        """The account (periods rolled forward); AccountNotFoundError if absent."""
        with self.database.write_transaction() as tx:
            return AccountRepository(tx).touch(account_id, now)

    def list_accounts(self, now: datetime) -> list[Account]:
        """All accounts by id (periods rolled forward, each in its own transaction)."""
        with self.database.read_transaction() as tx:
            ids = AccountRepository(tx).ids()
        return [self.get_account(account_id, now) for account_id in ids]

    def has_accounts(self) -> bool:
        """Whether any account exists (one cheap query)."""
        with self.database.read_transaction() as tx:
            return AccountRepository(tx).any()

    def find_key(self, key_hash: str) -> ApiKeyRecord | None:
        """The current (not rotated-away) key with this hash, or None."""
        with self.database.read_transaction() as tx:
            return AccountRepository(tx).find_key(key_hash)

    def rotate_key(self, account_id: int, key_hash: str, key_prefix: str,
                   now: datetime) -> Account:
        """Revoke every key of the account (immediately) and store the new one."""
        with self.database.write_transaction() as tx:
            return AccountRepository(tx).rotate_key(account_id, key_hash, key_prefix, now)

    def set_active(self, account_id: int, active: bool, now: datetime) -> Account:
        """Deactivate or reactivate the account."""
        with self.database.write_transaction() as tx:
            return AccountRepository(tx).set_flag(account_id, "active", active, now)

    def set_overage(self, account_id: int, enabled: bool, now: datetime) -> Account:
        """Enable or disable overage billing."""
        with self.database.write_transaction() as tx:
            return AccountRepository(tx).set_flag(account_id, "overage_enabled", enabled, now)

    def cancel(self, account_id: int, now: datetime) -> Account:
        """Request cancellation, effective at the end of the current billing period.
        Idempotent (a second request keeps the first date)."""
        with self.database.write_transaction() as tx:
            return AccountRepository(tx).cancel(account_id, now)

    # -- charges ---------------------------------------------------------------------------

    def reserve(
        self, account_id: int, endpoint: str, now: datetime,
        claim: IdempotencyClaim | None = None,
    ) -> Reservation | ChargeRefusal | Replay:
        """Atomically take 1 credit (or record an overage call) for a call to
        ``endpoint``; a :class:`ChargeRefusal` when the call must not proceed. With
        ``claim`` (an idempotency key) and a key used since ``claim.since``: a
        :class:`Replay` and nothing taken; otherwise the key is linked to this charge.
        On PostgreSQL one round trip when that is all there is to do.
        :class:`CommitUncertainError` when the commit's acknowledgement is lost."""
        path = self.request_path
        if path is not None and claim is None:
            fast = path.reserve(account_id, endpoint, now)
            if fast is not None:
                return fast
        return self.general_reserve(account_id, endpoint, now, claim)

    def general_reserve(
        self, account_id: int, endpoint: str, now: datetime,
        claim: IdempotencyClaim | None = None,
    ) -> Reservation | ChargeRefusal | Replay:
        """:meth:`reserve` by the general rules (period boundaries, refusals, idempotency
        keys), never the one-round-trip reservation; it then remembers the account's
        period for the next fast one."""
        path = self.request_path
        anchor = None if path is None else path.anchor(account_id)
        with settling(self.database) as tx:
            outcome = ChargeRepository(tx).reserve(account_id, endpoint, now, claim)
        if path is not None and anchor is not None and isinstance(outcome, Reservation):
            path.remember(account_id, anchor, outcome.period_index)
        return outcome

    def commit(self, reservation_id: int, now: datetime) -> None:
        """Mark a reservation as a successful, billed call (a lost acknowledgement of
        the commit: :class:`~bodygraph_server.store.errors.CommitUncertainError`)."""
        if not self.commit_many([reservation_id], now)[0]:
            raise not_pending(reservation_id)

    def commit_many(self, reservation_ids: Sequence[int], now: datetime) -> list[bool]:
        """Commit several reservations in one transaction (the service's group commit;
        PostgreSQL: one statement); for each, whether it was pending.
        :class:`CommitUncertainError` when the commit's acknowledgement is lost."""
        if self.request_path is not None:
            return self.request_path.commit_many(reservation_ids, now)
        at = to_micros(now)
        with settling(self.database) as tx:
            charges = ChargeRepository(tx)
            return [charges.commit(reservation_id, at) for reservation_id in reservation_ids]

    def usage_statuses(self, reservation_ids: Sequence[int]) -> list[UsageStatus | None]:
        """The status of each reservation's usage row (None: unknown id), read in a new
        transaction: how a commit whose acknowledgement was lost turned out."""
        if not reservation_ids:
            return []
        with self.database.read_transaction() as tx:
            return ChargeRepository(tx).statuses(reservation_ids)

    def release(self, reservation_id: int, now: datetime) -> None:
        """Cancel a reservation because the call failed: the credit goes back to the
        balance if the account is still in the same period (and not cancelled); the call
        is never billed as overage."""
        with self.database.write_transaction() as tx:
            ChargeRepository(tx).release(reservation_id, now)

    def withdraw(self, reservation_id: int, now: datetime) -> bool:
        """Release a reservation as :meth:`release` does, also one already committed (a
        charge whose answer never reached its client: the worker died before writing it,
        or the client was gone); False if it was neither pending nor committed."""
        with self.database.write_transaction() as tx:
            return ChargeRepository(tx).withdraw(reservation_id, now)

    def claimed_reservation(self, key_hash: str, made: datetime) -> int | None:
        """The reservation linked to idempotency key ``key_hash`` (its hash) if its
        current claim was made at ``made`` (the instant a reservation with the claim was
        asked for); None otherwise."""
        with self.database.read_transaction() as tx:
            claim = IdempotencyRepository(tx).claim_made(key_hash, made)
        return None if claim is None else claim[1]

    def release_stale(self, older_than: datetime, now: datetime) -> int:
        """Release (as :meth:`release` does, each in its own transaction) every reservation
        still pending that was made before ``older_than``: its call died with its
        process. The number released."""
        with self.database.read_transaction() as tx:
            stale = ChargeRepository(tx).stale(older_than)
        released = 0
        for reservation_id in stale:
            try:
                self.release(reservation_id, now)
            except ReservationNotFoundError:
                continue  # settled meanwhile by its call or by another sweeper
            released += 1
        return released

    def prune_idempotency(self, older_than: datetime) -> int:
        """Delete the idempotency keys used before ``older_than``; how many."""
        with self.database.write_transaction() as tx:
            return IdempotencyRepository(tx).prune(older_than)

    # -- batches ---------------------------------------------------------------------------

    def reserve_many(
        self, account_id: int, endpoint: str, count: int, now: datetime,
        claim: IdempotencyClaim | None = None,
    ) -> list[Reservation] | ChargeRefusal | Replay:
        """``count`` reservations at once, all or nothing (see
        :meth:`BatchChargeRepository.reserve_many`). :class:`CommitUncertainError` when
        the commit's acknowledgement is lost."""
        if count < 1:
            raise InvalidOperationError("a batch reserves at least one call")
        with settling(self.database) as tx:
            return BatchChargeRepository(tx).reserve_many(account_id, endpoint, count=count,
                                                          now=now, claim=claim)

    def release_claim(self, account_id: int, claim: IdempotencyClaim, made: datetime,
                      now: datetime, count: int = 1) -> int:
        """Release what a keyed reservation of ``count`` calls made at ``made`` stored and
        is still pending (its acknowledgement was lost); how many were released."""
        with self.database.write_transaction() as tx:
            return BatchChargeRepository(tx).release_claim(account_id, claim, made=made,
                                                           now=now, count=count)

    def claim_unpaid(self, account_id: int, claim: IdempotencyClaim,
                     now: datetime) -> Replay | None:
        """Record the key of a batch answered without any reservation: None for a first
        use, else the :class:`Replay`."""
        with self.database.write_transaction() as tx:
            return BatchChargeRepository(tx).claim_unpaid(account_id, claim, now)

    def release_many(self, account_id: int, reservation_ids: Sequence[int],
                     now: datetime) -> int:
        """Release the pending reservations among ``reservation_ids`` (all of account
        ``account_id``) in one transaction; the number released."""
        if not reservation_ids:
            return 0
        with self.database.write_transaction() as tx:
            return BatchChargeRepository(tx).release_ids(account_id, reservation_ids, now)

    def settle_batch(self, account_id: int, used: Sequence[int], unused: Sequence[int],
                     now: datetime, key_hash: str | None = None) -> None:
        """A batch answered: commit ``used``, release ``unused`` and record the charged
        count under ``key_hash``, in one transaction. :class:`CommitUncertainError` when
        its commit's acknowledgement is lost."""
        with settling(self.database) as tx:
            BatchChargeRepository(tx).settle(account_id, used=used, unused=unused, now=now,
                                             key_hash=key_hash)

    # -- ledger ----------------------------------------------------------------------------

    def adjust_credits(
        self, account_id: int, balance: int, now: datetime, note: str = ""
    ) -> LedgerEntry:
        """Set the balance to ``balance`` (>= 0), recording the difference in the ledger.
        InvalidOperationError on a cancelled account."""
        with self.database.write_transaction() as tx:
            return LedgerRepository(tx).adjust_credits(account_id, balance, now, note)

    def ledger(self, account_id: int, now: datetime) -> list[LedgerEntry]:
        """Every ledger entry of the account, oldest first."""
        with self.database.write_transaction() as tx:
            return LedgerRepository(tx).entries(account_id, now)

    def usage(self, account_id: int, now: datetime) -> list[PeriodUsage]:
        """Per-period usage from the first period to the current one, oldest first."""
        with self.database.write_transaction() as tx:
            return LedgerRepository(tx).usage(account_id, now)

    def audit(self, account_id: int, now: datetime) -> Audit:
        """The ledger check (see :class:`Audit`)."""
        with self.database.write_transaction() as tx:
            return LedgerRepository(tx).audit(account_id, now)

    # -- rate limiting ---------------------------------------------------------------------

    def rate_limit_hit(
        self, bucket: str, now: datetime, limit: int, window_seconds: int
    ) -> RateDecision:
        """Sliding window: accept and record this request if fewer than ``limit``
        requests were accepted for ``bucket`` in ``(now - window, now]``; atomic across
        processes. Refused requests are not recorded."""
        with self.database.write_transaction() as tx:
            return RateHitRepository(tx).hit(bucket, now, limit, window_seconds)

    def admit_key(
        self, key_hash: str, now: datetime, limit: int, window_seconds: int
    ) -> tuple[ApiKeyRecord | None, RateDecision | None]:
        """:meth:`find_key` and, when the key is current and its account active, the
        request's :meth:`rate_limit_hit` on the bucket ``key_hash``: the key (None if
        unknown) and the decision (None when nothing was counted). PostgreSQL: one round
        trip."""
        if self.request_path is not None:
            return self.request_path.admit_key(key_hash, now, limit, window_seconds)
        record = self.find_key(key_hash)
        if record is None or not record.account_active:
            return record, None
        return record, self.rate_limit_hit(key_hash, now, limit, window_seconds)

    def carry_rate_hits(self, source: str, target: str, now: datetime,
                        window_seconds: int) -> int:
        """Count bucket ``source``'s hits still in the window in bucket ``target`` too (a
        rotated key's window goes on under its new key); how many."""
        with self.database.write_transaction() as tx:
            return RateHitRepository(tx).carry(source, target, now, window_seconds)

    def prune_rate_hits(self, older_than: datetime) -> int:
        """Delete the rate-limit hits made before ``older_than`` (idle keys' included, so
        the table stays bounded); how many."""
        with self.database.write_transaction() as tx:
            return RateHitRepository(tx).prune(older_than)

    # -- render keys -----------------------------------------------------------------------

    def render_keys(self) -> list[tuple[str, bytes]]:
        """The stored render signing keys ``(kid, secret)``, oldest first."""
        with self.database.read_transaction() as tx:
            return RenderKeyRepository(tx).all()

    def ensure_render_key(self, kid: str, secret: bytes, now: datetime) -> list[tuple[str, bytes]]:
        """Store ``(kid, secret)`` if no render key is stored yet, then return every key,
        oldest first. Atomic across threads, processes and instances sharing the database:
        the first caller's key wins and everyone gets the same keys."""
        with self.database.write_transaction() as tx:
            RenderKeyRepository(tx).ensure(kid, secret, now)
        return self.render_keys()

    def add_render_key(self, kid: str, secret: bytes, now: datetime) -> None:
        """Store a new render key; it signs new links once the service restarts (the
        older keys keep verifying). :class:`InvalidOperationError` if ``kid`` is taken."""
        with self.database.write_transaction() as tx:
            RenderKeyRepository(tx).add(kid, secret, now)

    # -- what an account's owner sees -----------------------------------------------------

    def account_overview(self, account_id: int, now: datetime) -> AccountOverview:
        """The account (periods rolled forward) with its current period's figures, in one
        transaction (see :class:`~.account_usage.PeriodFigures`)."""
        with self.database.write_transaction() as tx:
            return AccountUsageRepository(tx).overview(account_id, now)

    def rotate_own_key(self, account_id: int, key_id: int, *, key_hash: str, key_prefix: str,
                       now: datetime) -> Account | None:
        """The owner's rotation with key ``key_id``: every key of the account revoked and
        the new one stored, unless ``key_id`` was rotated away meanwhile (None)."""
        with self.database.write_transaction() as tx:
            return KeyRotationRepository(tx).rotate(account_id, key_id, key_hash=key_hash,
                                                    key_prefix=key_prefix, now=now)

    def replayed_rotation(self, old_hash: str, new_hash: str, *,
                          since: datetime) -> Account | None:
        """The account whose key ``old_hash`` was rotated since ``since`` into the key
        ``new_hash``, still current; else None."""
        with self.database.read_transaction() as tx:
            return KeyRotationRepository(tx).replayed(old_hash, new_hash, since)

    def usage_by_day(self, account_id: int, first_day: date) -> list[EndpointDay]:
        """The account's calls from the start of ``first_day`` (UTC) on, by day and
        endpoint."""
        with self.database.read_transaction() as tx:
            return AccountUsageRepository(tx).by_day(account_id, first_day)

    # -- webhook secrets --------------------------------------------------------------------

    def webhook_secret(self, account_id: int, now: datetime | None = None) -> str:
        """The account's webhook signing secret (``whsec_...``), made and stored at its
        first ask (``now``: when; default the system clock), the same on every worker and
        instance. :class:`AccountNotFoundError` if there is no such account."""
        with self.database.read_transaction() as tx:
            stored = WebhookSecretRepository(tx).get(account_id)
        if stored is not None:
            return stored
        with self.database.write_transaction() as tx:
            return WebhookSecretRepository(tx).ensure(
                account_id, new_webhook_secret(), now or datetime.now(UTC))

    def rotate_webhook_secret(self, account_id: int, now: datetime) -> str:
        """Replace the account's webhook secret by a new one (the old one signs nothing
        more); the new secret."""
        with self.database.write_transaction() as tx:
            return WebhookSecretRepository(tx).replace(account_id, new_webhook_secret(), now)
