"""The errors of the bookkeeping store, :mod:`bodygraph_server.store` (every one carries a
one-line message for the user)."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of the bookkeeping's errors (all carry a one-line message)."""


class DatabaseURLError(StoreError):
    """``BODYGRAPH_DATABASE_URL`` is malformed or names an unsupported backend."""


class DatabaseUnavailableError(StoreError):
    """The database cannot be opened or reached, or is locked by another program for
    longer than the store waits: a passing condition (the service answers 503 and
    recovers by itself)."""


class DatabaseMissingError(DatabaseUnavailableError):
    """The database named does not exist (PostgreSQL knows no such database or role; a
    SQLite file's folder is missing): a mistake in the URL rather than an outage, so
    ``serve`` stops at once instead of waiting for it (``billing/opening.py``)."""


class CommitUncertainError(DatabaseUnavailableError):
    """The connection failed while a write transaction was committing (its body had run):
    the COMMIT may or may not have reached the database, so whether the transaction
    committed is unknown until it is read back (:mod:`bodygraph_server.store.outcomes`)."""


class DatabaseError(StoreError):
    """The database refused an operation for another reason than an outage (a broken
    schema, a violated constraint): not passing, not retried."""


class AccountNotFoundError(StoreError):
    """No account has the given id."""


class InvalidOperationError(StoreError):
    """The operation does not apply to the account in its current state."""


class ReservationNotFoundError(StoreError):
    """No pending reservation has the given id (unknown, or already committed/released)."""
