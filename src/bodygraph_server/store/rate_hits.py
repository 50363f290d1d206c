"""The sliding-window rate limit in the SQL stores (tables ``rate_buckets``,
``rate_hits``)."""

from __future__ import annotations

from datetime import datetime

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.store.connections import Database
from bodygraph_server.store.records import RateDecision, decision_from_window


class RateHitRepository(Database):
    """Rate-limit windows; see :class:`~bodygraph_server.store.base.Store`."""

    def rate_limit_hit(
        self, bucket: str, now: datetime, limit: int, window_seconds: int
    ) -> RateDecision:
        """Sliding-window check-and-insert under the bucket's lock."""
        now_us = to_micros(now)
        cutoff = now_us - window_seconds * 1_000_000
        with self.write_transaction() as tx:
            # A lost hit (a database crash) only lets one more request through: the
            # window is a throttle, not money, so its commit does not wait for the disk.
            self.relax_durability(tx)
            # Create or touch the bucket's row: either way this transaction now holds its
            # lock (PostgreSQL locks the row an upsert updates, as UPDATE does). Hits that
            # left the window are not deleted here but by the housekeeping
            # (prune_rate_hits): one statement less per request.
            tx.execute(
                "INSERT INTO rate_buckets (bucket) VALUES (?) "
                "ON CONFLICT (bucket) DO UPDATE SET bucket = excluded.bucket", (bucket,)
            )
            row = tx.one(
                "SELECT COUNT(*), MIN(at_us) FROM rate_hits WHERE bucket = ? AND at_us > ?",
                (bucket, cutoff),
            )
            count = 0 if row is None else int(row[0])
            oldest = None if row is None or row[1] is None else int(row[1])
            allowed = count < limit
            if allowed:
                tx.execute("INSERT INTO rate_hits (bucket, at_us) VALUES (?, ?)", (bucket, now_us))
                count += 1
                oldest = now_us if oldest is None else min(oldest, now_us)
        return decision_from_window(allowed=allowed, count=count, oldest_us=oldest,
                                    now_us=now_us, limit=limit, window_seconds=window_seconds)

    def prune_rate_hits(self, older_than: datetime) -> int:
        """Delete the hits made before ``older_than`` (outside every window), idle keys'
        included, and the buckets left without hits (the windows of client addresses'
        failed authentications are many; a bucket's next hit makes its row again); how
        many hits."""
        with self.write_transaction() as tx:
            pruned = tx.execute("DELETE FROM rate_hits WHERE at_us <= ?", (to_micros(older_than),))
            tx.execute("DELETE FROM rate_buckets WHERE NOT EXISTS "
                       "(SELECT 1 FROM rate_hits h WHERE h.bucket = rate_buckets.bucket)")
            return pruned
