"""The months of the ingress calendar kept in the SQL stores (table ``calendar_blocks``,
read and written by :mod:`bodygraph_server.calendar_cache`): opaque bytes under a key."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.store.base import TransactionSource

#: Most keys looked up by one statement (a year is 12 or 13 months).
KEYS_PER_QUERY = 100


class SqlCalendarBlocks:
    """Calendar blocks in the bookkeeping database: every worker and instance on it
    shares them. Blocking; call from a worker thread."""

    def __init__(self, store: TransactionSource) -> None:
        self._store = store

    def get(self, keys: Sequence[str]) -> dict[str, bytes]:
        """The stored blocks among ``keys``."""
        found: dict[str, bytes] = {}
        for i in range(0, len(keys), KEYS_PER_QUERY):
            part = keys[i:i + KEYS_PER_QUERY]
            marks = ", ".join("?" * len(part))
            with self._store.read_transaction() as tx:
                rows = tx.rows("SELECT block_key, ingresses FROM calendar_blocks "
                               f"WHERE block_key IN ({marks})", part)
            found.update((str(row.block_key), bytes(row.ingresses)) for row in rows)
        return found

    def put(self, blocks: Sequence[tuple[str, bytes]], now: datetime) -> None:
        """Store ``(key, bytes)`` blocks; a key already stored keeps its row (two workers
        that computed the same block computed the same bytes)."""
        if not blocks:
            return
        with self._store.write_transaction() as tx:
            # A lost block (a database crash) is computed again: not worth a disk flush.
            tx.relax_durability()
            for key, value in blocks:
                tx.execute("INSERT INTO calendar_blocks (block_key, ingresses, created_us) "
                           "VALUES (?, ?, ?) ON CONFLICT (block_key) DO NOTHING",
                           (key, value, to_micros(now)))

    def count(self) -> int:
        """How many blocks are stored."""
        with self._store.read_transaction() as tx:
            row = tx.one("SELECT COUNT(*) AS blocks FROM calendar_blocks")
        return 0 if row is None else int(row.blocks)
