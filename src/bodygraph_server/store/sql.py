"""The bookkeeping shared by the SQL backends, assembled from one repository per table
family.

Backends (:mod:`.sqlite`, :mod:`.postgres`) differ only in how they connect, how a
locking transaction starts, how a row is locked, the parameter style and their migration
files; everything else (the queries and the credit rules) lives once in:

* :mod:`.connections`: connections and transactions (:class:`Tx`);
* :mod:`.schema`: the migrations;
* :mod:`.accounts`: accounts and API keys, and the lazy period rollover;
* :mod:`.charges`: reserve, commit, release;
* :mod:`.batch_charges`: the same for many calls at once (a batch request);
* :mod:`.idempotency`: the idempotency keys of charged requests;
* :mod:`.ledger`: adjustments, the ledger, usage and the audit;
* :mod:`.rate_hits`: the sliding-window rate limit;
* :mod:`.render_keys`: the render signing keys.

SQL is written with ``?`` placeholders and identical for both backends.
"""

from __future__ import annotations

from bodygraph_server.store.base import Store
from bodygraph_server.store.batch_charges import BatchChargeRepository
from bodygraph_server.store.ledger import LedgerRepository
from bodygraph_server.store.rate_hits import RateHitRepository
from bodygraph_server.store.render_keys import RenderKeyRepository

__all__ = ["SqlStore"]


class SqlStore(BatchChargeRepository, LedgerRepository, RateHitRepository, RenderKeyRepository,
               Store):
    """A :class:`Store` over a DB-API database; subclasses supply connections. Opening
    it creates or migrates the schema."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self._migrate()
