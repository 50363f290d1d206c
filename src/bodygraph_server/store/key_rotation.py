"""An account owner's rotation of the key they call with (``api_keys``), replacing it only
while it is current (two rotations with one key give one new key), and the replay of a
rotation (docs/accounts.md, "Self-service")."""

from __future__ import annotations

from datetime import datetime

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.store.accounts import AccountRepository
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.records import Account


class KeyRotationRepository:
    """Rotations by the key's owner within one transaction."""

    __slots__ = ("accounts", "tx")

    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.accounts = AccountRepository(tx)

    def rotate(self, account_id: int, key_id: int, *, key_hash: str, key_prefix: str,
               now: datetime) -> Account | None:
        """Revoke every key of the account and store the new one (given as hash), if key
        ``key_id`` is still a current key of the account; else None (it was rotated away
        meanwhile) and nothing changes."""
        self.accounts.touch(account_id, now)  # the account's lock: one rotation at a time
        current = self.tx.one(
            "SELECT id FROM api_keys WHERE id = ? AND account_id = ? AND revoked_us IS NULL",
            (key_id, account_id),
        )
        if current is None:
            return None
        at = to_micros(now)
        self.tx.execute(
            "UPDATE api_keys SET revoked_us = ? WHERE account_id = ? AND revoked_us IS NULL",
            (at, account_id),
        )
        self.accounts.insert_key(account_id, key_hash, key_prefix, at)
        return self.accounts.select(account_id, lock=False)

    def replayed(self, old_hash: str, new_hash: str, since: datetime) -> Account | None:
        """The account whose key ``old_hash`` was revoked at or after ``since`` by the
        rotation that made key ``new_hash`` (made in the same instant), which is still
        current; else None."""
        row = self.tx.one(
            "SELECT o.account_id FROM api_keys o JOIN api_keys n "
            "ON n.account_id = o.account_id AND n.created_us = o.revoked_us "
            "WHERE o.key_hash = ? AND o.revoked_us >= ? AND n.key_hash = ? "
            "AND n.revoked_us IS NULL",
            (old_hash, to_micros(since), new_hash),
        )
        return None if row is None else self.accounts.select(row[0], lock=False)
