"""The render signing keys (table ``render_keys``; see
:mod:`bodygraph_server.images.signing_keys`)."""

from __future__ import annotations

from datetime import datetime

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.errors import InvalidOperationError


class RenderKeyRepository:
    """Stored render signing keys ``(kid, secret)`` within one transaction."""

    __slots__ = ("tx",)

    def __init__(self, tx: Tx) -> None:
        self.tx = tx

    def all(self) -> list[tuple[str, bytes]]:
        """The stored render signing keys ``(kid, secret)``, oldest first."""
        rows = self.tx.rows("SELECT kid, secret FROM render_keys ORDER BY created_us, kid")
        return [(str(row.kid), bytes.fromhex(str(row.secret))) for row in rows]

    def ensure(self, kid: str, secret: bytes, now: datetime) -> None:
        """Store ``(kid, secret)`` if no render key is stored yet (under the migrations'
        lock: the first caller's key wins)."""
        tx = self.tx
        tx.lock_migrations()
        row = tx.one("SELECT COUNT(*) AS stored FROM render_keys")
        if row is None or int(row.stored) == 0:
            tx.execute(
                "INSERT INTO render_keys (kid, secret, created_us) VALUES (?, ?, ?)",
                (kid, secret.hex(), to_micros(now)),
            )

    def add(self, kid: str, secret: bytes, now: datetime) -> None:
        """Store a new, newest render key; :class:`InvalidOperationError` if ``kid`` is
        taken."""
        tx = self.tx
        if tx.one("SELECT kid FROM render_keys WHERE kid = ?", (kid,)) is not None:
            raise InvalidOperationError(f"render key id {kid!r} is already stored")
        newest = tx.one("SELECT MAX(created_us) AS created_us FROM render_keys")
        at = to_micros(now)
        if newest is not None and newest.created_us is not None:
            at = max(at, int(newest.created_us) + 1)  # strictly newest, whatever the clock says
        tx.execute(
            "INSERT INTO render_keys (kid, secret, created_us) VALUES (?, ?, ?)",
            (kid, secret.hex(), at),
        )
