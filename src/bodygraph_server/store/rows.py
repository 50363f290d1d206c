"""Rows of the bookkeeping tables to records and back: the column lists and the one
ledger insert shared by the repositories."""

from __future__ import annotations

from datetime import datetime

from bodygraph_server.policy.clock import from_micros, to_micros
from bodygraph_server.policy.credits import LedgerKind
from bodygraph_server.policy.plans import Billing, get_plan
from bodygraph_server.store.connections import Row, Tx
from bodygraph_server.store.records import Account, ApiKeyRecord, LedgerEntry

ACCOUNT_COLUMNS = (
    "a.id, a.plan, a.billing, a.created_us, a.active, a.overage_enabled, "
    "a.cancel_requested_us, a.cancel_at_us, a.period_index, a.balance, "
    "(SELECT k.display_prefix FROM api_keys k WHERE k.account_id = a.id "
    "AND k.revoked_us IS NULL ORDER BY k.id DESC LIMIT 1)"
)
LEDGER_COLUMNS = "id, account_id, at_us, period_index, kind, delta, balance_after, note"
KEY_COLUMNS = (
    "k.id, k.key_hash, k.account_id, k.created_us, a.active, a.plan, a.overage_enabled"
)


def _opt_time(micros: int | None) -> datetime | None:
    return None if micros is None else from_micros(int(micros))


def account_from_row(row: Row) -> Account:
    """An :class:`Account` from a row of :data:`ACCOUNT_COLUMNS`."""
    return Account(
        id=int(row[0]),
        plan=get_plan(str(row[1])),
        billing=Billing(str(row[2])),
        created_at=from_micros(int(row[3])),
        active=bool(row[4]),
        overage_enabled=bool(row[5]),
        cancel_requested_at=_opt_time(row[6]),
        cancel_at=_opt_time(row[7]),
        period_index=int(row[8]),
        balance=int(row[9]),
        key_prefix=None if row[10] is None else str(row[10]),
    )


def key_from_row(row: Row) -> ApiKeyRecord:
    """An :class:`ApiKeyRecord` from a row of :data:`KEY_COLUMNS`."""
    return ApiKeyRecord(
        key_id=int(row[0]),
        key_hash=str(row[1]),
        account_id=int(row[2]),
        created_at=from_micros(int(row[3])),
        account_active=bool(row[4]),
        plan=get_plan(str(row[5])),
        overage_enabled=bool(row[6]),
    )


def ledger_from_row(row: Row) -> LedgerEntry:
    """A :class:`LedgerEntry` from a row of :data:`LEDGER_COLUMNS`."""
    return LedgerEntry(
        id=int(row[0]),
        account_id=int(row[1]),
        at=from_micros(int(row[2])),
        period_index=int(row[3]),
        kind=LedgerKind(str(row[4])),
        delta=int(row[5]),
        balance_after=int(row[6]),
        note=str(row[7]),
    )


def insert_ledger(
    tx: Tx,
    account_id: int,
    at: datetime,
    period_index: int,
    kind: LedgerKind,
    delta: int,
    balance_after: int,
    note: str = "",
) -> LedgerEntry:
    """Record one balance change in the ledger; the stored entry."""
    row = tx.one(
        "INSERT INTO ledger (account_id, at_us, period_index, kind, delta, balance_after, "
        f"note) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING {LEDGER_COLUMNS}",
        (account_id, to_micros(at), period_index, kind.value, delta, balance_after, note),
    )
    assert row is not None
    return ledger_from_row(row)
