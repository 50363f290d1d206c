"""The render signing keys kept in the SQL stores (table ``render_keys``; see
:mod:`bodygraph_server.images.signing_keys`)."""

from __future__ import annotations

from datetime import datetime

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.store.errors import InvalidOperationError
from bodygraph_server.store.schema import Schema


class RenderKeyRepository(Schema):
    """Stored render signing keys ``(kid, secret)``."""

    def render_keys(self) -> list[tuple[str, bytes]]:
        """The stored render signing keys ``(kid, secret)``, oldest first."""
        with self.read_transaction() as tx:
            rows = tx.rows("SELECT kid, secret FROM render_keys ORDER BY created_us, kid")
        return [(str(kid), bytes.fromhex(str(secret))) for kid, secret in rows]

    def ensure_render_key(self, kid: str, secret: bytes, now: datetime) -> list[tuple[str, bytes]]:
        """Store ``(kid, secret)`` if no render key is stored yet, then return every key,
        oldest first. Atomic across threads, processes and instances sharing the database:
        the first caller's key wins and everyone gets the same keys."""
        with self.write_transaction() as tx:
            self._lock_migrations(tx)
            row = tx.one("SELECT COUNT(*) FROM render_keys")
            if row is None or int(row[0]) == 0:
                tx.execute(
                    "INSERT INTO render_keys (kid, secret, created_us) VALUES (?, ?, ?)",
                    (kid, secret.hex(), to_micros(now)),
                )
        return self.render_keys()

    def add_render_key(self, kid: str, secret: bytes, now: datetime) -> None:
        """Store a new render key; it signs new links once the service restarts (the
        older keys keep verifying). :class:`InvalidOperationError` if ``kid`` is taken."""
        with self.write_transaction() as tx:
            if tx.one("SELECT kid FROM render_keys WHERE kid = ?", (kid,)) is not None:
                raise InvalidOperationError(f"render key id {kid!r} is already stored")
            newest = tx.one("SELECT MAX(created_us) FROM render_keys")
            at = to_micros(now)
            if newest is not None and newest[0] is not None:
                at = max(at, int(newest[0]) + 1)  # strictly newest, whatever the clock says
            tx.execute(
                "INSERT INTO render_keys (kid, secret, created_us) VALUES (?, ?, ?)",
                (kid, secret.hex(), at),
            )
