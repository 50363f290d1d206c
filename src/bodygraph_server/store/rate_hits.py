"""The sliding-window rate limit (tables ``rate_buckets``, ``rate_hits``)."""

from __future__ import annotations

from datetime import datetime

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.records import RateDecision, decision_from_window


class RateHitRepository:
    """Rate-limit windows within one transaction."""

    __slots__ = ("tx",)

    def __init__(self, tx: Tx) -> None:
        self.tx = tx

    def hit(self, bucket: str, now: datetime, limit: int, window_seconds: int) -> RateDecision:
        """Sliding-window check-and-insert under the bucket's lock."""
        tx = self.tx
        now_us = to_micros(now)
        cutoff = now_us - window_seconds * 1_000_000
        # A lost hit (a database crash) only lets one more request through: the
        # window is a throttle, not money, so its commit does not wait for the disk.
        tx.relax_durability()
        # Create or touch the bucket's row: either way this transaction now holds its
        # lock (PostgreSQL locks the row an upsert updates, as UPDATE does). Hits that
        # left the window are not deleted here but by the housekeeping
        # (prune): one statement less per request.
        tx.execute(
            "INSERT INTO rate_buckets (bucket) VALUES (?) "
            "ON CONFLICT (bucket) DO UPDATE SET bucket = excluded.bucket", (bucket,)
        )
        row = tx.one(
            "SELECT COUNT(*) AS hits, MIN(at_us) AS oldest_us FROM rate_hits "
            "WHERE bucket = ? AND at_us > ?",
            (bucket, cutoff),
        )
        count = 0 if row is None else int(row.hits)
        oldest = None if row is None or row.oldest_us is None else int(row.oldest_us)
        allowed = count < limit
        if allowed:
            tx.execute("INSERT INTO rate_hits (bucket, at_us) VALUES (?, ?)", (bucket, now_us))
            count += 1
            oldest = now_us if oldest is None else min(oldest, now_us)
        return decision_from_window(allowed=allowed, count=count, oldest_us=oldest,
                                    now_us=now_us, limit=limit, window_seconds=window_seconds)

    def carry(self, source: str, target: str, now: datetime, window_seconds: int) -> int:
        """Count the hits of bucket ``source`` still in the window at ``now`` in bucket
        ``target`` too (a rotated key's window goes on under the new key); how many."""
        tx = self.tx
        tx.execute(
            "INSERT INTO rate_buckets (bucket) VALUES (?) "
            "ON CONFLICT (bucket) DO UPDATE SET bucket = excluded.bucket", (target,)
        )
        return tx.execute(
            "INSERT INTO rate_hits (bucket, at_us) SELECT ?, at_us FROM rate_hits "
            "WHERE bucket = ? AND at_us > ?",
            (target, source, to_micros(now) - window_seconds * 1_000_000),
        )

    def prune(self, older_than: datetime) -> int:
        """Delete the hits made before ``older_than`` (outside every window), idle keys'
        included, and the buckets left without hits (the windows of client addresses'
        failed authentications are many; a bucket's next hit makes its row again); how
        many hits."""
        tx = self.tx
        pruned = tx.execute("DELETE FROM rate_hits WHERE at_us <= ?", (to_micros(older_than),))
        tx.execute("DELETE FROM rate_buckets WHERE NOT EXISTS "
                   "(SELECT 1 FROM rate_hits h WHERE h.bucket = rate_buckets.bucket)")
        return pruned
