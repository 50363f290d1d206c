"""Each account's webhook signing secret (table ``webhook_secrets``), in the Standard
Webhooks form ``whsec_`` + base64 of random bytes: made on first ask, replaced by a
rotation."""

from __future__ import annotations

import base64
import secrets
from datetime import datetime

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.store.accounts import AccountRepository
from bodygraph_server.store.connections import Tx

SECRET_PREFIX = "whsec_"
#: Random bytes of a secret (Standard Webhooks asks for 24 to 64).
SECRET_BYTES = 32


def new_webhook_secret() -> str:
    """A new random secret: ``whsec_`` + base64 of :data:`SECRET_BYTES` bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


class WebhookSecretRepository:
    """Webhook secrets within one transaction."""

    __slots__ = ("tx",)

    def __init__(self, tx: Tx) -> None:
        self.tx = tx

    def get(self, account_id: int) -> str | None:
        """The account's secret, None if none was made yet."""
        row = self.tx.one("SELECT secret FROM webhook_secrets WHERE account_id = ?",
                          (account_id,))
        return None if row is None else str(row.secret)

    def ensure(self, account_id: int, secret: str, now: datetime) -> str:
        """The account's secret, storing ``secret`` if it has none yet (the first of two
        concurrent askers wins; both get the stored one).
        :class:`~.errors.AccountNotFoundError` if there is no such account."""
        AccountRepository(self.tx).select(account_id, lock=False)
        self.tx.execute(
            "INSERT INTO webhook_secrets (account_id, secret, created_us) VALUES (?, ?, ?) "
            "ON CONFLICT (account_id) DO NOTHING",
            (account_id, secret, to_micros(now)),
        )
        stored = self.get(account_id)
        assert stored is not None
        return stored

    def replace(self, account_id: int, secret: str, now: datetime) -> str:
        """Store ``secret`` as the account's secret (the old one stops signing at once);
        :class:`~.errors.AccountNotFoundError` if there is no such account."""
        AccountRepository(self.tx).select(account_id, lock=True)
        self.tx.execute(
            "INSERT INTO webhook_secrets (account_id, secret, created_us) VALUES (?, ?, ?) "
            "ON CONFLICT (account_id) DO UPDATE SET secret = excluded.secret, "
            "created_us = excluded.created_us",
            (account_id, secret, to_micros(now)),
        )
        return secret
