"""Rows of the bookkeeping tables to records: the column lists, their readers (by column
name) and the one ledger insert, shared by the repositories and the request path."""

from __future__ import annotations

from datetime import datetime

from bodygraph_server.policy.clock import from_micros, from_micros_or_none, to_micros
from bodygraph_server.policy.credits import LedgerKind
from bodygraph_server.policy.plans import Billing, get_plan
from bodygraph_server.store.connections import Row, Tx
from bodygraph_server.store.records import Account, ApiKeyRecord, LedgerEntry

ACCOUNT_COLUMNS = (
    "a.id, a.plan, a.billing, a.created_us, a.active, a.overage_enabled, "
    "a.cancel_requested_us, a.cancel_at_us, a.period_index, a.balance, "
    "(SELECT k.display_prefix FROM api_keys k WHERE k.account_id = a.id "
    "AND k.revoked_us IS NULL ORDER BY k.id DESC LIMIT 1) AS key_prefix"
)
LEDGER_COLUMNS = "id, account_id, at_us, period_index, kind, delta, balance_after, note"
KEY_COLUMNS = (
    "k.id AS key_id, k.key_hash, k.account_id, k.created_us AS key_created_us, a.active, "
    "a.plan, a.overage_enabled"
)


def account_from_row(row: Row) -> Account:
    """An :class:`Account` from a row of :data:`ACCOUNT_COLUMNS`."""
    return Account(
        id=int(row.id),
        plan=get_plan(str(row.plan)),
        billing=Billing(str(row.billing)),
        created_at=from_micros(int(row.created_us)),
        active=bool(row.active),
        overage_enabled=bool(row.overage_enabled),
        cancel_requested_at=from_micros_or_none(row.cancel_requested_us),
        cancel_at=from_micros_or_none(row.cancel_at_us),
        period_index=int(row.period_index),
        balance=int(row.balance),
        key_prefix=None if row.key_prefix is None else str(row.key_prefix),
    )


def key_from_row(row: Row) -> ApiKeyRecord:
    """An :class:`ApiKeyRecord` from a row of :data:`KEY_COLUMNS` (or of the request
    path's ``bodygraph_admit``, which names its columns alike)."""
    return ApiKeyRecord(
        key_id=int(row.key_id),
        key_hash=str(row.key_hash),
        account_id=int(row.account_id),
        created_at=from_micros(int(row.key_created_us)),
        account_active=bool(row.active),
        plan=get_plan(str(row.plan)),
        overage_enabled=bool(row.overage_enabled),
    )


def ledger_from_row(row: Row) -> LedgerEntry:
    """A :class:`LedgerEntry` from a row of :data:`LEDGER_COLUMNS`."""
    return LedgerEntry(
        id=int(row.id),
        account_id=int(row.account_id),
        at=from_micros(int(row.at_us)),
        period_index=int(row.period_index),
        kind=LedgerKind(str(row.kind)),
        delta=int(row.delta),
        balance_after=int(row.balance_after),
        note=str(row.note),
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
