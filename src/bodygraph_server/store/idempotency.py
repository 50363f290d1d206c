"""Idempotency keys (table ``idempotency_keys``): which charge a key's first request
made, so that a retry is answered without a second charge (docs/api.md, "Idempotent
retries"; docs/accounts.md, "Batches")."""

from __future__ import annotations

from datetime import datetime

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.records import IdempotencyClaim, Replay, UsageStatus


class IdempotencyRepository:
    """Idempotency keys within one transaction."""

    __slots__ = ("tx",)

    def __init__(self, tx: Tx) -> None:
        self.tx = tx

    def replay(self, claim: IdempotencyClaim) -> Replay | None:
        """What an earlier use of the key means for this request (None: a first use, or
        the earlier request failed or expired). A batch's key is answered once it records
        its charged count, whatever its first reservation became."""
        row = self.tx.one(
            "SELECT i.request_hash, u.status, i.charged FROM idempotency_keys i "
            "LEFT JOIN usage_log u ON u.id = i.usage_id "
            "WHERE i.key_hash = ? AND i.created_us > ?",
            (claim.key_hash, to_micros(claim.since)),
        )
        if row is None:
            return None
        answered = row.charged is not None or row.status == UsageStatus.COMMITTED.value
        if not answered and row.status in (UsageStatus.RELEASED.value, None):
            return None
        if row.request_hash != claim.request_hash:
            return Replay.MISMATCH
        return Replay.ANSWERED if answered else Replay.IN_FLIGHT

    def record_claim(self, claim: IdempotencyClaim, usage_id: int | None, at_us: int,
                     charged: int | None = None) -> None:
        """Link the key to the charge just made (replacing an expired or failed use);
        ``charged``: a batch answered at once (no reservation: ``usage_id`` None)."""
        self.tx.execute(
            "INSERT INTO idempotency_keys (key_hash, request_hash, usage_id, created_us, "
            "charged) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key_hash) DO UPDATE SET "
            "request_hash = excluded.request_hash, usage_id = excluded.usage_id, "
            "created_us = excluded.created_us, charged = excluded.charged",
            (claim.key_hash, claim.request_hash, usage_id, at_us, charged),
        )

    def record_charged(self, key_hash: str, charged: int) -> None:
        """A batch's key: its request was answered, charging ``charged`` charts."""
        self.tx.execute("UPDATE idempotency_keys SET charged = ? WHERE key_hash = ?",
                        (charged, key_hash))

    def claim_made(self, key_hash: str, made: datetime) -> tuple[str, int | None] | None:
        """The request hash and first reservation of key ``key_hash`` if its current claim
        was made at ``made``; None otherwise."""
        row = self.tx.one("SELECT request_hash, usage_id FROM idempotency_keys "
                          "WHERE key_hash = ? AND created_us = ?", (key_hash, to_micros(made)))
        if row is None:
            return None
        return str(row.request_hash), None if row.usage_id is None else int(row.usage_id)

    def prune(self, older_than: datetime) -> int:
        """Delete the keys used before ``older_than`` (expired); how many."""
        return self.tx.execute(
            "DELETE FROM idempotency_keys WHERE created_us <= ?", (to_micros(older_than),)
        )
